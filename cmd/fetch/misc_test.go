package main

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }

func TestVersionAndHelp(t *testing.T) {
	if r := runArgs(t, nil, "", "--version"); r.code != 0 || !strings.HasPrefix(r.out, "fetch ") {
		t.Errorf("--version = %d %q", r.code, r.out)
	}
	if r := runArgs(t, nil, "", "--help"); r.code != 0 || !strings.Contains(r.out, "lint") {
		t.Errorf("--help = %d %q", r.code, r.out)
	}
	if r := runArgs(t, nil, "", "get", "--help"); r.code != 0 || !strings.Contains(r.out, "--deny-private") {
		t.Errorf("get --help = %d", r.code)
	}
}

func TestCompletion(t *testing.T) {
	for shell, want := range map[string]string{"bash": "__start_fetch", "zsh": "#compdef fetch", "fish": "complete -c fetch"} {
		r := runArgs(t, nil, "", "completion", shell)
		if r.code != 0 || !strings.Contains(r.out, want) {
			t.Errorf("completion %s = %d, output lacks %q", shell, r.code, want)
		}
	}
	if r := runArgs(t, nil, "", "completion", "tcsh"); r.code != fetch.ExitUsage {
		t.Errorf("completion tcsh = %d, want 2", r.code)
	}
}

func TestMan(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "man")
	r := runArgs(t, nil, "", "man", dir)
	if r.code != 0 {
		t.Fatalf("man = %d (%s)", r.code, r.err)
	}
	for _, name := range []string{"fetch.1", "fetch-get.1", "fetch-lint.1", "fetch-parse.1", "fetch-resolve.1", "fetch-extract.1"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !strings.Contains(string(b), ".SH NAME") {
			t.Errorf("%s: %v %q", name, err, b)
		}
	}
	b, _ := os.ReadFile(filepath.Join(dir, "fetch-get.1"))
	if !strings.Contains(string(b), "--deny-private") || !strings.Contains(string(b), ".SH EXAMPLES") {
		t.Errorf("fetch-get.1 lacks its flags or examples:\n%s", b)
	}
	b, _ = os.ReadFile(filepath.Join(dir, "fetch.1"))
	if !strings.Contains(string(b), ".SH EXIT STATUS") {
		t.Errorf("fetch.1 lacks the exit status")
	}
}

func response(raw string, kind proto.Kind, entries []proto.Entry, info map[string]any, body string) *fetch.Response {
	return &fetch.Response{
		Response: proto.Response{Kind: kind, Entries: entries, Info: info, Size: -1,
			Body: io.NopCloser(strings.NewReader(body))},
		URL: uri.MustParse(raw),
	}
}

func TestRenderMenu(t *testing.T) {
	entries := []proto.Entry{
		{Name: "Welcome\x1b[31m", Type: proto.EntryInfo, ItemType: "i"},
		{Name: "About", Type: proto.EntryFile, ItemType: "0", URL: "gopher://h/0about"},
		{Name: "Sub", Type: proto.EntryDir, ItemType: "1", URL: "gopher://h/1sub"},
	}
	var b strings.Builder
	if err := renderListing(&b, response("gopher://h/1", proto.KindDirectory, entries, nil, ""), false); err != nil {
		t.Fatal(err)
	}
	want := "     Welcome?[31m\n0    About  gopher://h/0about\n1    Sub  gopher://h/1sub\n"
	if b.String() != want {
		t.Errorf("menu = %q, want %q", b.String(), want)
	}
}

func TestRenderNews(t *testing.T) {
	when := time.Date(2024, 1, 2, 3, 4, 0, 0, time.UTC)
	entries := []proto.Entry{
		{Name: "comp.lang", Type: proto.EntryDir, URL: "news:comp.lang", Extra: map[string]string{"low": "1", "high": "9", "description": "Languages"}},
		{Name: "Re: hi", Type: proto.EntryFile, ModTime: when, URL: "nntp://h/g/7", Extra: map[string]string{"number": "7", "from": "a@b"}},
	}
	var b strings.Builder
	renderListing(&b, response("news:*", proto.KindDirectory, entries, nil, ""), false)
	want := "comp.lang 1-9 Languages  news:comp.lang\n     7 2024-01-02 03:04 a@b: Re: hi  nntp://h/g/7\n"
	if b.String() != want {
		t.Errorf("news = %q, want %q", b.String(), want)
	}
}

func TestRenderAdvisory(t *testing.T) {
	resp := response("telnet://u@h/", proto.KindAdvisory, nil, map[string]any{"service": "telnet", "user": "u"}, "")
	var b strings.Builder
	if err := renderAdvisory(&b, resp, false); err != nil || b.String() != "service: telnet\nuser: u\n" {
		t.Errorf("advisory = %q, %v", b.String(), err)
	}
	b.Reset()
	renderAdvisory(&b, resp, true)
	var doc map[string]any
	if json.Unmarshal([]byte(b.String()), &doc) != nil || doc["kind"] != "advisory" || doc["url"] != "telnet://u@h/" {
		t.Errorf("advisory --json = %q", b.String())
	}
}

func TestValidName(t *testing.T) {
	for _, name := range []string{"", ".", "..", "a/b", "a\\b", "a\x00b", "a\nb"} {
		if validName(name) == nil {
			t.Errorf("validName(%q) = nil", name)
		}
	}
	for _, name := range []string{"a", "a b.txt", "..a", "-x"} {
		if err := validName(name); err != nil {
			t.Errorf("validName(%q) = %v", name, err)
		}
	}
	for raw, want := range map[string]string{
		"ftp://h/pub/a%20b;type=i": "a b", "http://h/x/y.tgz?q": "y.tgz", "http://h/x/": "", "gopher://h/9/f.zip": "f.zip",
	} {
		if got := urlName(uri.MustParse(raw)); got != want {
			t.Errorf("urlName(%q) = %q, want %q", raw, got, want)
		}
	}
}

func TestRedactor(t *testing.T) {
	r := newRedactor([]string{"ftp://u:s%65cret@h/", "http://v:ab@h/", "not a url %"})
	if got := r.redact("PASS secret s%65cret ab"); got != "PASS **** **** ab" {
		t.Errorf("redact = %q", got)
	}
	var b strings.Builder
	w := r.writer(&b)
	w.Write([]byte("> PASS sec"))
	w.Write([]byte("ret\n> x"))
	if b.String() != "> PASS ****\n" {
		t.Errorf("redacting writer = %q", b.String())
	}
}

// DESIGN.md telnet: advice only, exit 0, never the password; a session
// needs a terminal.
func TestTelnetAdvice(t *testing.T) {
	n := &netlog{}
	r := runArgs(t, n, "", "get", "telnet://guest:hunter2pw@127.0.0.1:2323/")
	if r.code != 0 || !strings.Contains(r.out, "guest") || strings.Contains(r.out+r.err, "hunter2pw") || n.dials.Load() != 0 {
		t.Errorf("get telnet: = %d %q %q, %d dials", r.code, r.out, r.err, n.dials.Load())
	}
	r = runArgs(t, n, "", "get", "--interactive", "telnet://127.0.0.1:2323/")
	if r.code != fetch.ExitUsage || n.dials.Load() != 0 {
		t.Errorf("get --interactive without a terminal = %d (%s)", r.code, r.err)
	}
	r = runArgs(t, n, "", "get", "--interactive", "telnet://127.0.0.1:25/")
	if r.code != fetch.ExitRefused {
		t.Errorf("get --interactive to port 25 = %d (%s)", r.code, r.err)
	}
}

// TestExitCodeMessageClean: the message of the error that ends a command
// (it may quote a server's reply or a remote name) is written through
// clean, so that a bidirectional override in it cannot reorder stderr.
func TestExitCodeMessageClean(t *testing.T) {
	var stderr strings.Builder
	e := &env{err: &stderr}
	exitCode(errors.New("mirror: list x\u202egpj.exe: \x1b[2J"), e, nil)
	if got, want := stderr.String(), "fetch: mirror: list x\\u202egpj.exe: ?[2J\n"; got != want {
		t.Errorf("stderr = %q, want %q", got, want)
	}
}
