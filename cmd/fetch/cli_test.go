package main

import (
	"bytes"
	"os"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/rfc1738/fetch/fetch"
)

// A first word that is no command and cannot be a URL (no scheme, no '/',
// '.', '@' or '%') is an unknown command, exit 2, naming the command it is
// close to; nothing is sent. A word that may be a mistyped URL stays a URL
// for "get" (exit 3, no scheme).
func TestUnknownCommand(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"mirorr", "ftp://127.0.0.1/pub/", "./x"}, fetch.ExitUsage,
			"fetch: unknown command \"mirorr\" (did you mean \"mirror\"?)\nRun 'fetch --help' for usage.\n"},
		{[]string{"lnit", "ftp://h/"}, fetch.ExitUsage,
			"fetch: unknown command \"lnit\" (did you mean \"lint\"?)\nRun 'fetch --help' for usage.\n"},
		{[]string{"versoin"}, fetch.ExitUsage,
			"fetch: unknown command \"versoin\" (did you mean \"version\"?)\nRun 'fetch --help' for usage.\n"},
		{[]string{"localhost"}, fetch.ExitUsage,
			"fetch: unknown command \"localhost\" (a URL starts with its scheme, as ftp://host/)\nRun 'fetch --help' for usage.\n"},
		{[]string{"./x"}, fetch.ExitMalformed, ""},
		{[]string{"host.example/pub/"}, fetch.ExitMalformed, ""},
	} {
		n := &netlog{}
		r := runArgs(t, n, "", tc.args...)
		if r.code != tc.code || tc.err != "" && r.err != tc.err {
			t.Errorf("fetch %q = %d, stderr %q; want %d, %q", tc.args, r.code, r.err, tc.code, tc.err)
		}
		if n.dials.Load()+n.lookups.Load() != 0 {
			t.Errorf("fetch %q used the network", tc.args)
		}
	}
}

// "fetch version" and "fetch --version" print the same line, naming a
// version and a commit (or why the commit is unknown).
func TestVersionCommand(t *testing.T) {
	a := runArgs(t, nil, "", "version")
	b := runArgs(t, nil, "", "--version")
	if a.code != 0 || b.code != 0 || a.out != b.out || !strings.HasPrefix(a.out, "fetch ") || !strings.Contains(a.out, "commit ") {
		t.Errorf("version = %d %q, --version = %d %q", a.code, a.out, b.code, b.out)
	}
	if r := runArgs(t, nil, "", "version", "x"); r.code != fetch.ExitUsage {
		t.Errorf("version x = %d, want 2", r.code)
	}
}

func TestVersionLine(t *testing.T) {
	vcs := &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "0123abcd"}, {Key: "vcs.time", Value: "2026-11-28T10:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}
	for _, tc := range []struct {
		version, commit, date string
		bi                    *debug.BuildInfo
		want                  string
	}{
		{"", "", "", nil, "fetch (devel, commit unknown: built without VCS information)"},
		{"", "", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "fetch (devel, commit unknown: built without VCS information)"},
		{"", "", "", &debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}}, "fetch v1.4.0 (commit unknown: built without VCS information)"},
		{"", "", "", vcs, "fetch (devel, commit 0123abcd, 2026-11-28T10:00:00Z, with uncommitted changes)"},
		{"v1.2.3", "feed", "2026-01-02", nil, "fetch v1.2.3 (commit feed, 2026-01-02)"},
		{"v1.2.3", "feed", "", vcs, "fetch v1.2.3 (commit feed, 2026-11-28T10:00:00Z, with uncommitted changes)"},
	} {
		if got := versionLine(tc.version, tc.commit, tc.date, tc.bi); got != tc.want {
			t.Errorf("versionLine(%q, %q, %q, %v) = %q, want %q", tc.version, tc.commit, tc.date, tc.bi, got, tc.want)
		}
	}
}

// Every command is listed in the help, man included.
func TestHelpListsEveryCommand(t *testing.T) {
	r := runArgs(t, nil, "", "--help")
	for _, name := range []string{"get", "mirror", "lint", "parse", "resolve", "extract", "completion", "man", "manifest", "version"} {
		if !strings.Contains(r.out, "\n  "+name+" ") {
			t.Errorf("--help does not list %q:\n%s", name, r.out)
		}
	}
}

// Every flag that takes a value shows a placeholder that says what the
// value is (pflag's backquoted word), not its Go type.
func TestFlagPlaceholders(t *testing.T) {
	e, _, _ := newEnv("", &netlog{})
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			name, _ := pflag.UnquoteUsage(f)
			switch name {
			case "", "string", "int", "int64", "uint", "float", "float64", "duration", "strings", "stringArray", "ints", "bytes":
				if f.Value.Type() != "bool" {
					t.Errorf("%s --%s shows %q as its placeholder", c.CommandPath(), f.Name, name)
				}
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCmd(e))
}

// A usage error says what is wrong in words and names the help of the
// command that failed.
func TestUsageErrorsNameTheCommand(t *testing.T) {
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"mirror", "ftp://127.0.0.1/pub/"}, "fetch: missing DIR: fetch mirror needs URL and DIR\nRun 'fetch mirror --help' for usage.\n"},
		{[]string{"mirror", "a", "b", "c"}, "fetch: too many arguments: fetch mirror needs URL and DIR, got 3: [\"a\" \"b\" \"c\"]\nRun 'fetch mirror --help' for usage.\n"},
		{[]string{"get"}, "fetch: missing URL: fetch get needs at least one URL\nRun 'fetch get --help' for usage.\n"},
		{[]string{"resolve", "http://a/"}, "fetch: missing REF: fetch resolve needs BASE and at least one REF\nRun 'fetch resolve --help' for usage.\n"},
		{[]string{"manifest", "merge"}, "fetch: missing MANIFEST|DIR: fetch manifest merge needs at least one MANIFEST|DIR\nRun 'fetch manifest merge --help' for usage.\n"},
		{[]string{"mirror", "--jobs", "x", "a", "b"}, "fetch: invalid argument \"x\" for \"-j, --jobs\" flag: strconv.ParseInt: parsing \"x\": invalid syntax\nRun 'fetch mirror --help' for usage.\n"},
	} {
		r := runArgs(t, nil, "", tc.args...)
		if r.code != fetch.ExitUsage || r.err != tc.err {
			t.Errorf("fetch %q = %d, stderr\n%s\nwant 2,\n%s", tc.args, r.code, r.err, tc.err)
		}
	}
}

// docs/commands.md names every flag of every command, so that the page
// cannot fall behind the code.
func TestDocsNameEveryFlag(t *testing.T) {
	page, err := os.ReadFile("../../docs/commands.md")
	if err != nil {
		t.Fatal(err)
	}
	e, _, _ := newEnv("", &netlog{})
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if f.Hidden || f.Name == "help" {
				return
			}
			if !bytes.Contains(page, []byte("`--"+f.Name+"`")) && !bytes.Contains(page, []byte("`--"+f.Name+" ")) {
				t.Errorf("docs/commands.md does not name %s --%s", c.CommandPath(), f.Name)
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCmd(e))
}

// -O with two URLs that name the same file is a usage error before
// anything is sent: the second file would replace the first without a
// word (with -C, both would resume one FILE.part). The password of a URL
// is not shown.
func TestRemoteNameTwice(t *testing.T) {
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"-O", "ftp://127.0.0.1/a/README", "http://127.0.0.1/b/README"},
			"fetch: -O: ftp://127.0.0.1/a/README and http://127.0.0.1/b/README would both be saved as README; fetch them in two runs or with -o\n"},
		{[]string{"-Z", "-C", "-", "-O", "--output-dir", "d", "ftp://127.0.0.1/a/README", "http://127.0.0.1/x", "ftp://u:secret@127.0.0.1/b/README;type=a"},
			"fetch: -O: ftp://127.0.0.1/a/README and ftp://u:xxxxx@127.0.0.1/b/README;type=a would both be saved as d/README; fetch them in two runs or with -o\n"},
	} {
		n := &netlog{}
		r := runArgs(t, n, "", tc.args...)
		want := tc.err + "Run 'fetch get --help' for usage.\n"
		if r.code != fetch.ExitUsage || r.err != want {
			t.Errorf("fetch %q = %d, stderr\n%s\nwant 2,\n%s", tc.args, r.code, r.err, want)
		}
		if n.dials.Load()+n.lookups.Load() != 0 {
			t.Errorf("fetch %q used the network", tc.args)
		}
	}
}
