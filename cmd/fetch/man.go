package main

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cpuguy83/go-md2man/v2/md2man"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// newManCmd writes the man pages, generated from the command definitions
// themselves: fetch(1) and fetch-SUBCOMMAND(1) for each subcommand.
func newManCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "man DIR",
		Short: "Write the man pages into DIR",
		Args:  exactArgs("DIR"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := writeManPages(cmd.Root(), args[0]); err != nil {
				return err
			}
			fmt.Fprintf(e.err, "fetch: man pages written to %s\n", args[0])
			return nil
		},
	}
}

func writeManPages(root *cobra.Command, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	cmds := append([]*cobra.Command{root}, manCommands(root)...)
	for _, c := range cmds {
		page := md2man.Render([]byte(manMarkdown(c, cmds)))
		if err := writePage(filepath.Join(dir, manName(c)+".1"), page); err != nil {
			return err
		}
	}
	return nil
}

// writePage writes page to name through a temporary file beside it: a
// page cut short (a full disk, an interruption) never takes the name.
func writePage(name string, page []byte) error {
	f, err := createTemp(name)
	if err != nil {
		return err
	}
	_, err = f.Write(page)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = renameFile(f.Name(), name)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// manCommands are the subcommands that get a page.
func manCommands(root *cobra.Command) []*cobra.Command {
	var cs []*cobra.Command
	for _, c := range root.Commands() {
		if c.IsAvailableCommand() {
			cs = append(cs, c)
		}
	}
	return cs
}

func manName(c *cobra.Command) string { return strings.ReplaceAll(c.CommandPath(), " ", "-") }

// manMarkdown is the page of c in the Markdown that go-md2man reads.
func manMarkdown(c *cobra.Command, all []*cobra.Command) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%% %s 1 \"\" \"fetch %s\" \"User Commands\"\n\n", strings.ToUpper(manName(c)), versionString())
	fmt.Fprintf(&b, "# NAME\n\n%s - %s\n\n", manName(c), mdEscape(c.Short))
	fmt.Fprintf(&b, "# SYNOPSIS\n\n**%s**\n\n", mdEscape(c.UseLine()))
	fmt.Fprintf(&b, "# DESCRIPTION\n\n%s\n\n", mdEscape(cmp.Or(c.Long, c.Short)))
	if c.HasAvailableLocalFlags() {
		b.WriteString("# OPTIONS\n\n")
		c.LocalFlags().VisitAll(func(f *pflag.Flag) { manFlag(&b, f) })
	}
	if c.Example != "" {
		fmt.Fprintf(&b, "# EXAMPLES\n\n%s\n\n", indent(c.Example))
	}
	if !c.HasParent() {
		b.WriteString(exitStatusMarkdown)
	}
	b.WriteString("# SEE ALSO\n\n")
	var see []string
	for _, o := range all {
		if o != c {
			see = append(see, "**"+manName(o)+"**(1)")
		}
	}
	fmt.Fprintf(&b, "%s\n", strings.Join(see, ", "))
	return b.String()
}

func manFlag(b *strings.Builder, f *pflag.Flag) {
	if f.Hidden {
		return
	}
	name, usage := pflag.UnquoteUsage(f)
	b.WriteString("**")
	if f.Shorthand != "" {
		fmt.Fprintf(b, "-%s**, **", f.Shorthand)
	}
	fmt.Fprintf(b, "--%s**", f.Name)
	if name != "" && f.Value.Type() != "bool" {
		fmt.Fprintf(b, " *%s*", mdEscape(name))
	}
	fmt.Fprintf(b, "\n: %s\n\n", mdEscape(usage))
}

const exitStatusMarkdown = `# EXIT STATUS

0 success; 1 any other failure; 2 usage error; 3 malformed URL; 4 refused by
the safety policy (nothing was sent); 5 network failure (connect, DNS, timeout,
connection lost); 6 the server refused (not found, permission denied, login
failed); 7 no access method (wais or prospero without a gateway, file: on
another host, unsupported scheme); 8 partial (some of several URLs failed);
9 the server broke the protocol; 130 interrupted (Ctrl\-C).

`

// mdEscape protects text from Markdown's markup.
func mdEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune("\\`*_{}[]<>#|-", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// indent makes each line of s part of a code block.
func indent(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = "    " + strings.TrimLeft(l, " ")
	}
	return strings.Join(lines, "\n")
}
