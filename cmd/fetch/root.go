package main

import (
	"fmt"
	"runtime/debug"
	"slices"

	"github.com/spf13/cobra"
)

// version is set at link time (-ldflags "-X main.version=v1.2.3"); when it
// is not, the module version from the build information is used.
var version = ""

func versionString() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

// subcommands builds every subcommand, one file each. The mirror command
// (mirror.go, newMirrorCmd) is added to this list when it exists.
var subcommands = []func(*env) *cobra.Command{
	newGetCmd,
	newLintCmd,
	newParseCmd,
	newResolveCmd,
	newExtractCmd,
	newCompletionCmd,
	newManCmd,
	newMirrorCmd,
	newManifestCmd,
}

func newRootCmd(e *env) *cobra.Command {
	root := &cobra.Command{
		Use:   "fetch",
		Short: "Retrieve, mirror and lint the URLs of RFC 1738",
		Long: `fetch retrieves the resources named by the URL schemes of RFC 1738 (ftp, http,
gopher, news, nntp, file, telnet, mailto, wais, prospero; https too), and lints
URLs for the dangers named in the specifications' security sections.

"fetch URL..." is short for "fetch get URL...". Every URL is checked before
anything is sent: a URL aimed at another protocol's port, or whose decoded
parts would inject commands, is refused (exit 4).`,
		Version:           versionString(),
		SilenceErrors:     true,
		SilenceUsage:      true,
		Args:              cobra.NoArgs,
		CompletionOptions: cobra.CompletionOptions{DisableDefaultCmd: true},
		RunE: func(cmd *cobra.Command, args []string) error {
			fmt.Fprint(cmd.ErrOrStderr(), cmd.UsageString())
			return flagErrorf("no command or URL given")
		},
	}
	root.Flags().Bool("version", false, "print the version and exit")
	root.SetVersionTemplate("fetch {{.Version}}\n")
	root.SetIn(e.in)
	root.SetOut(e.out)
	root.SetErr(e.err)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return &FlagError{err: err} })
	for _, sub := range subcommands {
		root.AddCommand(sub(e))
	}
	return root
}

// withDefaultCommand puts "get" in front of args whose first word is not a
// subcommand or a flag of the root command, so that "fetch URL" and
// "fetch -sO URL" mean "fetch get ...".
func withDefaultCommand(root *cobra.Command, args []string) []string {
	if len(args) == 0 {
		return args
	}
	first := args[0]
	if slices.Contains([]string{"-h", "--help", "--version", "help",
		cobra.ShellCompRequestCmd, cobra.ShellCompNoDescRequestCmd}, first) {
		return args
	}
	for _, c := range root.Commands() {
		if c.Name() == first || slices.Contains(c.Aliases, first) {
			return args
		}
	}
	return append([]string{"get"}, args...)
}

// exactArgs, minArgs: cobra argument checks that fail as usage errors.
func minArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < n {
			return flagErrorf("%s needs at least %d argument(s), got %d", cmd.Name(), n, len(args))
		}
		return nil
	}
}

func exactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return flagErrorf("%s needs exactly %d argument(s), got %d", cmd.Name(), n, len(args))
		}
		return nil
	}
}
