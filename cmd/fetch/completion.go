package main

import (
	"github.com/spf13/cobra"
)

func newCompletionCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "completion bash|zsh|fish",
		Short: "Print a shell completion script",
		Long: `Print the completion script for a shell. For example:

  fetch completion bash > /etc/bash_completion.d/fetch
  fetch completion zsh > "${fpath[1]}/_fetch"
  fetch completion fish > ~/.config/fish/completions/fetch.fish`,
		ValidArgs: []string{"bash", "zsh", "fish"},
		Args:      exactArgs("SHELL"),
		RunE: func(cmd *cobra.Command, args []string) error {
			root, out := cmd.Root(), &errWriter{e.out}
			switch args[0] {
			case "bash":
				return root.GenBashCompletionV2(out, true)
			case "zsh":
				return root.GenZshCompletion(out)
			case "fish":
				return root.GenFishCompletion(out, true)
			}
			return flagErrorf("no completion for shell %q (bash, zsh or fish)", args[0])
		},
	}
}
