package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
)

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
	newVersionCmd,
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
		Version:           versionLine(linkVersion, linkCommit, linkDate, buildInfo()),
		SilenceErrors:     true,
		SilenceUsage:      true,
		Args:              cobra.NoArgs,
		CompletionOptions: cobra.CompletionOptions{DisableDefaultCmd: true},
		RunE: func(cmd *cobra.Command, args []string) error {
			fmt.Fprint(cmd.ErrOrStderr(), cmd.UsageString())
			return flagErrorf("no command or URL given")
		},
	}
	root.SuggestionsMinimumDistance = 2
	root.Flags().Bool("version", false, "print the version and exit")
	root.SetVersionTemplate("{{.Version}}\n")
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
	if len(args) == 0 || isRootWord(root, args[0]) {
		return args
	}
	return append([]string{"get"}, args...)
}

// isRootWord reports whether word is for the root command itself: a
// subcommand (or alias), help, --version, or a completion request.
func isRootWord(root *cobra.Command, word string) bool {
	isCommand := func(c *cobra.Command) bool { return c.Name() == word || slices.Contains(c.Aliases, word) }
	return slices.Contains([]string{"-h", "--help", "--version", "help",
		cobra.ShellCompRequestCmd, cobra.ShellCompNoDescRequestCmd}, word) || slices.ContainsFunc(root.Commands(), isCommand)
}

// unknownCommand reports a first word that is neither a command, nor a
// flag, nor possibly a URL, as a usage error naming the commands it is
// close to. A URL always has a scheme (ftp:...), and a word with a '/',
// '.', '@' or '%' may be a mistyped URL: those stay for "get", which says
// what is wrong with them (exit 3). A plain word such as "mirorr" or
// "localhost" cannot be a URL, only a command mistyped.
func unknownCommand(root *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	word := args[0]
	if word == "" || strings.HasPrefix(word, "-") || isRootWord(root, word) ||
		strings.ContainsAny(word, ":/.@%[]\\") {
		return nil
	}
	switch s := root.SuggestionsFor(word); len(s) {
	case 0:
		return flagErrorf("unknown command %q (a URL starts with its scheme, as ftp://host/)", word)
	case 1:
		return flagErrorf("unknown command %q (did you mean %q?)", word, s[0])
	default:
		return flagErrorf("unknown command %q (did you mean one of %s?)", word, quotedList(s))
	}
}

// quotedList is words quoted and joined as a sentence does ("a" or "b").
func quotedList(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = strconv.Quote(w)
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

// exactArgs and minArgs are cobra's argument checks, failing as usage
// errors that say in words what is missing or too much. names are the
// arguments of the command's usage line; with minArgs the last one may be
// repeated.
func exactArgs(names ...string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		switch {
		case len(args) < len(names):
			return flagErrorf("missing %s: %s needs %s", names[len(args)], cmd.CommandPath(), wordList(names))
		case len(args) > len(names) && len(names) == 0:
			return flagErrorf("%s takes no arguments, got %q", cmd.CommandPath(), args)
		case len(args) > len(names):
			return flagErrorf("too many arguments: %s needs %s, got %d: %q", cmd.CommandPath(), wordList(names), len(args), args)
		}
		return nil
	}
}

func minArgs(names ...string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < len(names) {
			want := slices.Clone(names)
			want[len(want)-1] = "at least one " + want[len(want)-1]
			return flagErrorf("missing %s: %s needs %s", names[len(args)], cmd.CommandPath(), wordList(want))
		}
		return nil
	}
}

// wordList joins words as a sentence does: "A", "A and B", "A, B and C".
func wordList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}
