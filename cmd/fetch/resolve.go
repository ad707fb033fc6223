package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/safety"
	"github.com/rfc1738/fetch/uri"
)

type resolveOptions struct {
	rfc  string
	base string
	refs []string
}

func newResolveCmd(e *env) *cobra.Command {
	o := &resolveOptions{}
	cmd := &cobra.Command{
		Use:   "resolve [--rfc 1808|2396|3986] BASE REF...",
		Short: "Resolve relative references against a base URL",
		Long: `Resolve each REF against BASE and print one absolute URL per line, by the
algorithm of RFC 3986 (the default), RFC 2396 or RFC 1808 (the 1996 URL draft).
Passwords are printed as xxxxx.`,
		Example: `  fetch resolve --rfc 2396 'http://a/b/c/d;p?q' '?y' '../g'`,
		Args:    minArgs("BASE", "REF"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.base, o.refs = args[0], args[1:]
			return runResolve(o, e)
		},
	}
	cmd.Flags().StringVar(&o.rfc, "rfc", "3986", "resolve by the algorithm of RFC `NUMBER`: 1808, 2396 or 3986")
	return cmd
}

func runResolve(o *resolveOptions, e *env) error {
	mode, err := uri.ParseMode(o.rfc)
	if err != nil {
		return &FlagError{err: err}
	}
	base, err := uri.Parse(o.base)
	if err != nil {
		return &fetch.Error{Op: "parse", URL: safety.Redact(o.base), Err: err}
	}
	codes := make([]int, 0, len(o.refs))
	for _, raw := range o.refs {
		err := resolveOne(base, raw, mode, &errWriter{e.out})
		if err != nil {
			fmt.Fprintf(e.err, "fetch: %s\n", message(err))
		}
		codes = append(codes, codeOf(err))
	}
	return exitFor(codes)
}

func resolveOne(base *uri.URL, raw string, mode uri.Mode, out io.Writer) error {
	ref, err := uri.Parse(raw)
	if err != nil {
		return &fetch.Error{Op: "parse", URL: safety.Redact(raw), Err: err}
	}
	u, err := uri.Resolve(base, ref, mode)
	if err != nil {
		return &fetch.Error{Op: "resolve", URL: ref.Redacted(), Err: err}
	}
	_, err = fmt.Fprintln(out, u.Redacted())
	return err
}
