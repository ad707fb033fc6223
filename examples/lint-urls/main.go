// Command lint-urls lints a file of URLs (one per line; blank lines and
// lines starting with "#" are skipped) with package safety and prints a
// summary: how many URLs were read, how many would be refused, and the
// findings counted by level and by rule. Passwords are never printed.
//
//	go run ./examples/lint-urls urls.txt
//	go run ./examples/lint-urls -v - < urls.txt      # also each finding
//
// It exits 4 when any URL would be refused (an error-level finding), like
// "fetch lint".
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/safety"
)

// Summary counts the findings about a list of URLs.
type Summary struct {
	URLs    int
	Refused int                  // URLs with an error-level finding
	Levels  map[safety.Level]int // findings by level
	Rules   map[string]int       // findings by rule id
	levelOf map[string]safety.Level
}

// Add lints one URL under p and counts its findings. It returns them, for
// printing.
func (s *Summary) Add(raw string, p safety.Policy) []safety.Finding {
	if s.Levels == nil {
		s.Levels, s.Rules, s.levelOf = map[safety.Level]int{}, map[string]int{}, map[string]safety.Level{}
	}
	s.URLs++
	_, fs := safety.CheckString(raw, p)
	refused := false
	for _, f := range fs {
		s.Levels[f.Level]++
		s.Rules[f.Rule]++
		s.levelOf[f.Rule] = max(s.levelOf[f.Rule], f.Level)
		refused = refused || f.Level == safety.Error
	}
	if refused {
		s.Refused++
	}
	return fs
}

// Write prints the summary: totals, then one line per rule, most severe
// and most frequent first.
func (s *Summary) Write(w io.Writer) error {
	fmt.Fprintf(w, "%d URLs, %d refused\n", s.URLs, s.Refused)
	fmt.Fprintf(w, "findings: %d error, %d warning, %d info\n",
		s.Levels[safety.Error], s.Levels[safety.Warning], s.Levels[safety.Info])
	rules := make([]string, 0, len(s.Rules))
	for r := range s.Rules {
		rules = append(rules, r)
	}
	slices.SortFunc(rules, func(a, b string) int {
		if la, lb := s.levelOf[a], s.levelOf[b]; la != lb {
			return int(lb - la)
		}
		if s.Rules[a] != s.Rules[b] {
			return s.Rules[b] - s.Rules[a]
		}
		return strings.Compare(a, b)
	})
	for _, r := range rules {
		if _, err := fmt.Fprintf(w, "%8d  %-7s  %s\n", s.Rules[r], s.levelOf[r], r); err != nil {
			return err
		}
	}
	return nil
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// lint counts the findings about each URL of in; with verbose it prints
// each finding, the URL redacted.
func lint(in io.Reader, verbose bool, w io.Writer) (*Summary, error) {
	s := &Summary{}
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		for _, f := range s.Add(line, safety.Policy{Wire: fetch.DefaultRegistry()}) {
			if verbose {
				fmt.Fprintf(w, "%s: %s\n", safety.Redact(line), f)
			}
		}
	}
	return s, sc.Err()
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("lint-urls", flag.ContinueOnError)
	fl.SetOutput(stderr)
	verbose := fl.Bool("v", false, "print every finding")
	if err := fl.Parse(args); err != nil || fl.NArg() != 1 {
		fmt.Fprintln(stderr, "usage: lint-urls [-v] FILE|-")
		return fetch.ExitUsage
	}
	in := stdin
	if name := fl.Arg(0); name != "-" {
		f, err := os.Open(name)
		if err != nil {
			fmt.Fprintf(stderr, "lint-urls: %v\n", err)
			return fetch.ExitError
		}
		defer f.Close()
		in = f
	}
	s, err := lint(in, *verbose, stdout)
	if err != nil {
		fmt.Fprintf(stderr, "lint-urls: %v\n", err)
		return fetch.ExitError
	}
	if err := s.Write(stdout); err != nil {
		return fetch.ExitError
	}
	if s.Refused > 0 {
		return fetch.ExitRefused
	}
	return fetch.ExitOK
}
