package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/safety"
)

type lintOptions struct {
	urls       []string
	json       bool
	strict     bool
	allowPorts []int
}

func newLintCmd(e *env) *cobra.Command {
	o := &lintOptions{}
	cmd := &cobra.Command{
		Use:   "lint [--json] [--strict] [URL... | -]",
		Short: "Report the safety findings about URLs",
		Long: `Report what the safety layer finds in each URL: encoded CR/LF/NUL/TAB that would
reach a line protocol, ports of other protocols, passwords in URLs, user
information where the scheme has none, unsafe characters. URLs come from the
arguments, or one per line from stdin when there are none or one is "-".

Exit status 4 when any finding is an error (with --strict, a warning too).
Passwords are never printed.`,
		Example: `  fetch lint 'gopher://127.0.0.1:25/1'
  fetch lint --json < urls.txt`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.urls = args
			return runLint(o, e)
		},
	}
	cmd.Flags().BoolVar(&o.json, "json", false, `print an array of {"url", "rule", "level", "component", "message"}`)
	cmd.Flags().BoolVar(&o.strict, "strict", false, "exit 4 on warnings too")
	cmd.Flags().IntSliceVar(&o.allowPorts, "allow-port", nil, "lint as if `PORT` were allowed (repeatable)")
	return cmd
}

// lintRow is one finding in the --json output.
type lintRow struct {
	URL string `json:"url"`
	safety.Finding
}

func runLint(o *lintOptions, e *env) error {
	if err := checkPorts(o.allowPorts); err != nil {
		return err
	}
	urls, err := lintInput(o.urls, e.in)
	if err != nil {
		return err
	}
	red := newRedactor(urls)
	p := safety.Policy{AllowPorts: o.allowPorts, Wire: fetch.DefaultRegistry()}
	rows := []lintRow{}
	var text bytes.Buffer
	for _, raw := range urls {
		u, fs := safety.CheckString(raw, p)
		shown := safety.Redact(raw)
		if u != nil {
			shown = u.Redacted()
		}
		if len(fs) == 0 {
			fmt.Fprintf(&text, "%s: ok\n", shown)
		}
		for _, f := range fs {
			rows = append(rows, lintRow{URL: shown, Finding: f})
			fmt.Fprintf(&text, "%s: %s %s (%s): %s\n", shown, f.Level, f.Rule, f.Component, f.Message)
		}
	}
	if err := o.print(&errWriter{e.out}, rows, text.String(), red); err != nil {
		return err
	}
	if code := o.exitCode(rows); code != fetch.ExitOK {
		return &exitError{code: code}
	}
	return nil
}

func (o *lintOptions) print(w io.Writer, rows []lintRow, text string, red *redactor) error {
	if !o.json {
		_, err := io.WriteString(w, red.redact(text))
		return err
	}
	var b bytes.Buffer
	if err := writeJSON(&b, rows); err != nil {
		return err
	}
	_, err := io.WriteString(w, red.redact(b.String()))
	return err
}

func (o *lintOptions) exitCode(rows []lintRow) int {
	for _, r := range rows {
		if r.Level == safety.Error || o.strict && r.Level == safety.Warning {
			return fetch.ExitRefused
		}
	}
	return fetch.ExitOK
}

// lintInput returns the URLs to lint: the arguments, with "-" (or no
// argument at all) standing for the non-empty lines of stdin.
func lintInput(args []string, stdin io.Reader) ([]string, error) {
	if len(args) == 0 {
		args = []string{"-"}
	}
	var urls []string
	for _, a := range args {
		if a != "-" {
			urls = append(urls, a)
			continue
		}
		lines, err := readLines(stdin)
		if err != nil {
			return nil, fmt.Errorf("stdin: %w", err)
		}
		urls = append(urls, lines...)
	}
	return urls, nil
}

// readLines returns the lines of r without surrounding white space,
// skipping empty ones.
func readLines(r io.Reader) ([]string, error) {
	var lines []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			lines = append(lines, l)
		}
	}
	return lines, sc.Err()
}
