package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/spf13/afero"
	"github.com/spf13/cobra"

	"github.com/rfc1738/fetch/fetch/fetchtest"
	"github.com/rfc1738/fetch/internal/testrig/localserver"
)

// update rewrites the golden files under testdata/golden from the
// command's output: go test ./cmd/fetch -run Golden -update
var update = flag.Bool("update", false, "rewrite the golden files")

// goldenTime is the modification time of every file the servers serve,
// far enough in the past that ls-style listings show the year.
var goldenTime = time.Date(2003, 4, 5, 6, 7, 8, 0, time.UTC)

// goldenCase is one run of the command whose output is compared with
// testdata/golden/<name>.stdout and, when stderr is set, with
// <name>.stderr: stderr is compared only where it is the product (summary
// lines, warnings, notes), not where it is a -v trace.
type goldenCase struct {
	name   string
	args   []string
	stdin  string
	code   int
	stderr bool
}

// normalizer replaces what varies between runs with fixed placeholders:
// each server's 127.0.0.1:PORT with <NAME>, the same port alone (as in
// a gopher menu's port field) with <NAME-PORT>, temporary directories
// with <DIR>, and the mirror's duration (in the summary line and the
// report's duration_ns) with <DURATION>.
type normalizer struct {
	old, new []string
}

func (n *normalizer) addr(name, addr string) {
	n.old = append(n.old, addr)
	n.new = append(n.new, "<"+name+">")
	if _, port, ok := strings.Cut(addr, ":"); ok {
		n.old = append(n.old, port)
		n.new = append(n.new, "<"+name+"-PORT>")
	}
}

// dir adds a temporary directory, and its form in JSON where it differs
// (Windows' backslashes are escaped there).
func (n *normalizer) dir(d string) {
	n.old = append(n.old, d)
	n.new = append(n.new, "<DIR>")
	if esc := strings.ReplaceAll(d, `\`, `\\`); esc != d {
		n.old = append(n.old, esc)
		n.new = append(n.new, "<DIR>")
	}
}

var (
	summaryDuration = regexp.MustCompile(`in [0-9]+\.[0-9]{2} s`)
	reportDuration  = regexp.MustCompile(`"duration_ns": [0-9]+`)
)

func (n *normalizer) apply(s string) string {
	for i, old := range n.old {
		if strings.Contains(old, ":") || strings.Contains(old, "/") {
			s = strings.ReplaceAll(s, old, n.new[i])
			continue
		}
		// A bare port is replaced only as a whole number (not inside a
		// longer one); it may follow a letter, as in the JSON "\t44643".
		re := regexp.MustCompile(`(^|[^0-9])` + regexp.QuoteMeta(old) + `([^0-9]|$)`)
		s = re.ReplaceAllString(s, "${1}"+n.new[i]+"${2}")
	}
	s = summaryDuration.ReplaceAllString(s, "in <DURATION> s")
	return reportDuration.ReplaceAllString(s, `"duration_ns": "<DURATION>"`)
}

// checkGolden compares got with the golden file, or writes it with -update.
// A missing golden file is a failure.
func checkGolden(t *testing.T, file, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", file)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./cmd/fetch -run Golden -update writes it)", err)
	}
	if !bytes.Equal(want, []byte(got)) {
		t.Errorf("%s differs from the output:\n--- want\n%s\n--- got\n%s", path, want, got)
	}
}

func runGolden(t *testing.T, n *normalizer, cases []goldenCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := runArgs(t, nil, tc.stdin, tc.args...)
			if r.code != tc.code {
				t.Errorf("%q: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", tc.args, r.code, tc.code, r.out, r.err)
			}
			checkGolden(t, tc.name+".stdout", n.apply(r.out))
			if tc.stderr {
				checkGolden(t, tc.name+".stderr", n.apply(r.err))
			}
		})
	}
}

// goldenFTP serves a small tree with fixed times, directories included;
// with noMLSD the client lists with LIST (ls -l lines) instead of MLSD.
func goldenFTP(t *testing.T, noMLSD bool) string {
	t.Helper()
	mem := afero.NewMemMapFs()
	files := map[string]string{
		"/pub/README":        "Read me.\n",
		"/pub/data.bin":      "\x00\x01\x02\x03",
		"/pub/sub/notes.txt": "notes\n",
	}
	for name, body := range files {
		if err := afero.WriteFile(mem, name, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"/pub/README", "/pub/data.bin", "/pub/sub/notes.txt", "/pub/sub", "/pub"} {
		if err := mem.Chtimes(name, goldenTime, goldenTime); err != nil {
			t.Fatal(err)
		}
	}
	srv, err := fetchtest.StartFTP(mem, fetchtest.FTPOptions{DisableMLSD: noMLSD})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv.Addr()
}

// goldenGopher serves a menu of a text, a directory, a search and a menu
// with lines that are no menu lines, with Gopher+ attributes for the text.
func goldenGopher(t *testing.T) string {
	t.Helper()
	fsys := fstest.MapFS{
		"about.txt":    {Data: []byte("About this server.\n"), ModTime: goldenTime},
		"docs/faq.txt": {Data: []byte("Questions.\n"), ModTime: goldenTime},
	}
	srv, err := fetchtest.StartGopherWith(fsys, fetchtest.GopherOptions{
		Items: map[string]fetchtest.GopherItem{
			"/about.txt": {Attributes: "+ADMIN:\n Admin: A. Person <a@example.org>\n Mod-Date: Sat Apr  5 06:07:08 2003 <20030405060708>\n+ABSTRACT:\n A short text about the server.\n"},
			"/search":    {Type: "7", Title: "Search the docs"},
			"/bad": {Type: "1", Title: "A broken menu", Serve: func(string, []string) []byte {
				return []byte("0Fine\t/about.txt\t127.0.0.1\t70\r\n0NUL\x00inside\t/x\t127.0.0.1\t70\r\n1Port\t/y\t127.0.0.1\tseventy\r\n.\r\n")
			}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv.Addr()
}

// goldenNNTP serves one group of two articles.
func goldenNNTP(t *testing.T) string {
	t.Helper()
	s := &fetchtest.NNTP{Over: "OVER"}
	s.Post("From: a@example.org\nSubject: Hello\nDate: Sat, 05 Apr 2003 06:07:08 +0000\nMessage-ID: <1@example.org>\nNewsgroups: local.test\n\nFirst post.\n", []string{"local.test"}, []int64{1})
	s.Post("From: b@example.org\nSubject: Re: Hello\nDate: Sat, 05 Apr 2003 07:00:00 +0000\nMessage-ID: <2@example.org>\nReferences: <1@example.org>\nNewsgroups: local.test\n\nA reply.\n", []string{"local.test"}, []int64{2})
	s.Start(t)
	return s.Addr
}

// TestGoldenFetch checks what "fetch get" shows of listings, menus,
// attributes and articles, for people and as JSON.
func TestGoldenFetch(t *testing.T) {
	ftpAddr, listAddr, gopherAddr, nntpAddr := goldenFTP(t, false), goldenFTP(t, true), goldenGopher(t), goldenNNTP(t)
	n := &normalizer{}
	n.addr("FTP", ftpAddr)
	n.addr("FTP-LIST", listAddr)
	n.addr("GOPHER", gopherAddr)
	n.addr("NNTP", nntpAddr)
	runGolden(t, n, []goldenCase{
		{name: "get-ftp-listing", args: []string{"get", "ftp://" + ftpAddr + "/pub/"}, stderr: true},
		{name: "get-ftp-listing-json", args: []string{"get", "--json", "ftp://" + ftpAddr + "/pub/"}, stderr: true},
		{name: "get-ftp-listing-list", args: []string{"get", "ftp://" + listAddr + "/pub/"}, stderr: true},
		{name: "get-ftp-listing-list-json", args: []string{"get", "--json", "ftp://" + listAddr + "/pub/"}, stderr: true},
		{name: "get-ftp-text-note", args: []string{"get", "ftp://" + ftpAddr + "/pub/README"}, stderr: true},
		{name: "get-ftp-names", args: []string{"get", "ftp://" + ftpAddr + "/pub/;type=d"}, stderr: true},
		{name: "get-gopher-menu", args: []string{"get", "gopher://" + gopherAddr + "/1/"}, stderr: true},
		{name: "get-gopher-menu-json", args: []string{"get", "--json", "gopher://" + gopherAddr + "/1/"}, stderr: true},
		{name: "get-gopher-menu-unparsed", args: []string{"get", "gopher://" + gopherAddr + "/1/bad"}, code: 8, stderr: true},
		{name: "get-gopher-menu-unparsed-json", args: []string{"get", "--json", "gopher://" + gopherAddr + "/1/bad"}, code: 8, stderr: true},
		{name: "get-gopher-attributes", args: []string{"get", "gopher://" + gopherAddr + "/0/about.txt%09%09!"}, stderr: true},
		{name: "get-gopher-attributes-json", args: []string{"get", "--json", "gopher://" + gopherAddr + "/0/about.txt%09%09!"}, stderr: true},
		{name: "get-nntp-group", args: []string{"get", "nntp://" + nntpAddr + "/local.test"}, stderr: true},
		{name: "get-nntp-group-json", args: []string{"get", "--json", "nntp://" + nntpAddr + "/local.test"}, stderr: true},
		{name: "get-nntp-article-json", args: []string{"get", "--json", "nntp://" + nntpAddr + "/local.test/1"}, stderr: true},
	})
}

// TestGoldenMirror checks the mirror's summary line and its JSON report.
// Target directories are temporary (<DIR>) and the duration varies
// (<DURATION>); -j 1 keeps the order of the entries. The -v trace on
// stderr (passive ports, the order of pipelined replies) is not compared.
func TestGoldenMirror(t *testing.T) {
	ftpAddr := goldenFTP(t, false)
	n := &normalizer{}
	n.addr("FTP", ftpAddr)
	parent := t.TempDir()
	n.dir(parent)
	src := "ftp://" + ftpAddr + "/pub/"
	runGolden(t, n, []goldenCase{
		{name: "mirror-dry-run", args: []string{"mirror", "-j", "1", "--dry-run", src, filepath.Join(parent, "m")}, stderr: true},
		{name: "mirror-dry-run-verbose", args: []string{"mirror", "-j", "1", "-v", "--dry-run", src, filepath.Join(parent, "m")}},
		{name: "mirror", args: []string{"mirror", "-j", "1", src, filepath.Join(parent, "m")}, stderr: true},
		{name: "mirror-again", args: []string{"mirror", "-j", "1", src, filepath.Join(parent, "m")}, stderr: true},
		{name: "mirror-json", args: []string{"mirror", "-j", "1", "--json", src, filepath.Join(parent, "j")}, stderr: true},
		{name: "mirror-json-again", args: []string{"mirror", "-j", "1", "--json", src, filepath.Join(parent, "j")}, stderr: true},
	})
}

// TestGoldenMirrorGopherNews checks the summary, report and warnings of a
// gopher mirror (a search item, a broken menu: exit 8) and of a news
// mirror.
func TestGoldenMirrorGopherNews(t *testing.T) {
	gopherAddr, nntpAddr := goldenGopher(t), goldenNNTP(t)
	n := &normalizer{}
	n.addr("GOPHER", gopherAddr)
	n.addr("NNTP", nntpAddr)
	parent := t.TempDir()
	n.dir(parent)
	gopher, news := "gopher://"+gopherAddr+"/1/", "nntp://"+nntpAddr+"/local.test"
	runGolden(t, n, []goldenCase{
		{name: "mirror-gopher", args: []string{"mirror", "-j", "1", gopher, filepath.Join(parent, "g")}, code: 8, stderr: true},
		{name: "mirror-gopher-json", args: []string{"mirror", "-j", "1", "--json", gopher, filepath.Join(parent, "gj")}, code: 8, stderr: true},
		{name: "mirror-news", args: []string{"mirror", "-j", "1", news, filepath.Join(parent, "n")}, stderr: true},
		{name: "mirror-news-json", args: []string{"mirror", "-j", "1", "--json", news, filepath.Join(parent, "nj")}, stderr: true},
	})
}

// goldenURLs are one URL of each scheme, as parse shows them.
var goldenURLs = []string{
	"ftp://user:secret@ftp.example.org:2121/pub/a%20b.txt;type=a",
	"http://www.example.org:8080/a/b?q=1",
	"https://www.example.org/",
	"gopher://gopher.example.org/7/search%09words",
	"news:comp.infosystems",
	"nntp://news.example.org/comp.infosystems/42",
	"file://localhost/etc/motd",
	"telnet://guest:pw@bbs.example.org:2323/",
	"mailto:a.person@example.org",
	"wais://wais.example.org:210/db?query",
	"prospero://pros.example.org/path;type=text",
}

// TestGoldenParse checks parse, for people and as JSON, of a URL of each
// scheme, and resolve.
func TestGoldenParse(t *testing.T) {
	var cases []goldenCase
	for _, raw := range goldenURLs {
		scheme, _, _ := strings.Cut(raw, ":")
		cases = append(cases,
			goldenCase{name: "parse-" + scheme, args: []string{"parse", raw}},
			goldenCase{name: "parse-json-" + scheme, args: []string{"parse", "--json", raw}})
	}
	cases = append(cases, goldenCase{name: "resolve", args: []string{"resolve", "http://a/b/c/d;p?q", "g", "../g", "//g", "?y", "#s"}})
	runGolden(t, &normalizer{}, cases)
}

// goldenLint are URLs with and without findings.
var goldenLint = "ftp://ftp.example.org/pub/README\n" +
	"ftp://ftp.example.org:25/pub/\n" +
	"gopher://gopher.example.org/0/a%0d%0aQUIT\n" +
	"http://user:secret@www.example.org/\n" +
	"nntp://news.example.org/group/1\n"

// TestGoldenLint checks lint's lines for people and its JSON (exit 4:
// an error-level finding refuses the URL).
func TestGoldenLint(t *testing.T) {
	runGolden(t, &normalizer{}, []goldenCase{
		{name: "lint", args: []string{"lint", "-"}, stdin: goldenLint, code: 4, stderr: true},
		{name: "lint-json", args: []string{"lint", "--json", "-"}, stdin: goldenLint, code: 4, stderr: true},
	})
}

// TestGoldenHelp checks the help of the root command and of every
// subcommand, found by walking the command tree (manifest merge too).
func TestGoldenHelp(t *testing.T) {
	e, _, _ := newEnv("", &netlog{})
	cases := []goldenCase{{name: "help-root", args: []string{"--help"}}}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if sub.Hidden || sub.Name() == "help" {
				continue
			}
			words := strings.Fields(sub.CommandPath())[1:]
			cases = append(cases, goldenCase{name: "help-" + strings.Join(words, "-"), args: append(words, "--help")})
			walk(sub)
		}
	}
	walk(newRootCmd(e))
	runGolden(t, &normalizer{}, cases)
}

// TestGoldenExtract checks the URLs extract finds in text, passwords
// masked.
func TestGoldenExtract(t *testing.T) {
	text := "See <URL:ftp://ftp.example.org/pub/README> and\n" +
		"http://user:secret@www.example.org/a, or gopher://gopher.example.org/1/.\n"
	runGolden(t, &normalizer{}, []goldenCase{{name: "extract", args: []string{"extract"}, stdin: text}})
}

// TestGoldenFTPSystems checks the listing, for people and as JSON, of each
// system's LIST layout the in-process servers play (the unknown one's
// lines are warnings, exit 8), and of a listing of hostile names (exit 8:
// its "lf\ninjected" leaves a line that fits no layout).
func TestGoldenFTPSystems(t *testing.T) {
	tree := localserver.Tree{
		Files: map[string][]byte{"README.txt": []byte("read me\n"), "data.bin": []byte("0123456789"), "sub/a.txt": []byte("a\n")},
		Dirs:  []string{"empty"},
		Time:  goldenTime,
	}
	vms := localserver.Tree{
		Files: map[string][]byte{"README.TXT;1": []byte("old\n"), "README.TXT;2": []byte("new one\n"), "SUB/A.TXT;3": []byte("a\n")},
		Dirs:  []string{"EMPTY"},
		Time:  goldenTime,
	}
	n := &normalizer{}
	var cases []goldenCase
	for _, system := range append(slices.Clone(parsedSystems), localserver.SysVMS, localserver.SysUnknown) {
		tr := tree
		if system == localserver.SysVMS {
			tr = vms
		}
		srv := startSystem(t, system, tr)
		n.addr("FTP-"+strings.ToUpper(system), srv.Addr())
		code := 0
		if system == localserver.SysUnknown {
			code = 8
		}
		raw := "ftp://" + srv.Addr() + "/"
		cases = append(cases,
			goldenCase{name: "get-ftp-system-" + system, args: []string{"get", raw}, code: code, stderr: true},
			goldenCase{name: "get-ftp-system-" + system + "-json", args: []string{"get", "--json", raw}, code: code, stderr: true})
	}
	hostile := startRaw(t, localserver.HostileFTP())
	n.addr("FTP-HOSTILE", hostile.Addr())
	cases = append(cases,
		goldenCase{name: "get-ftp-hostile", args: []string{"get", "ftp://" + hostile.Addr() + "/"}, code: 8, stderr: true},
		goldenCase{name: "get-ftp-hostile-json", args: []string{"get", "--json", "ftp://" + hostile.Addr() + "/"}, code: 8, stderr: true})
	runGolden(t, n, cases)
}

// TestGoldenErrors checks the messages and exit codes of refused,
// malformed and unsupported URLs and of usage errors (exit 2 usage, 3
// malformed, 4 refused, 7 unsupported), and the advice shown for mailto
// and telnet URLs; no case reaches the network.
func TestGoldenErrors(t *testing.T) {
	runGolden(t, &normalizer{}, []goldenCase{
		{name: "error-no-args", args: []string{}, code: 2, stderr: true},
		{name: "error-unknown-flag", args: []string{"get", "--no-such-flag", "ftp://ftp.example.org/"}, code: 2, stderr: true},
		{name: "error-malformed", args: []string{"get", "ftp://a b/"}, code: 3, stderr: true},
		{name: "error-refused-port", args: []string{"get", "ftp://ftp.example.org:25/pub/"}, code: 4, stderr: true},
		{name: "error-refused-crlf", args: []string{"get", "gopher://gopher.example.org/0/a%0d%0aQUIT"}, code: 4, stderr: true},
		{name: "error-password-hidden", args: []string{"get", "ftp://user:secret@ftp.example.org:25/"}, code: 4, stderr: true},
		{name: "get-mailto", args: []string{"get", "mailto:a.person@example.org"}, stderr: true},
		{name: "get-mailto-json", args: []string{"get", "--json", "mailto:a.person@example.org"}, stderr: true},
		{name: "get-telnet", args: []string{"get", "telnet://guest:pw@bbs.example.org:2323/"}, stderr: true},
		{name: "get-telnet-json", args: []string{"get", "--json", "telnet://guest:pw@bbs.example.org:2323/"}, stderr: true},
		{name: "error-unknown-scheme", args: []string{"get", "zzz://example.org/"}, code: 7, stderr: true},
	})
}
