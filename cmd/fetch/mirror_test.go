package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/afero"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
	"github.com/rfc1738/fetch/internal/testrig/localserver"
	"github.com/rfc1738/fetch/proto/ftp"
)

// mirrorCLI runs the command line with buffers and a registry that has the
// ftp driver; it returns the exit code, stdout and stderr.
func mirrorCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	reg := fetch.NewRegistry()
	reg.Register("ftp", &ftp.Driver{})
	e := &env{in: strings.NewReader(""), out: &out, err: &errb, getenv: func(string) string { return "" }, registry: reg}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	code := execute(ctx, args, e)
	return code, out.String(), errb.String()
}

func TestMirrorCommand(t *testing.T) {
	mem := afero.NewMemMapFs()
	afero.WriteFile(mem, "/pub/a.txt", []byte("a\n"), 0o644)
	afero.WriteFile(mem, "/pub/sub/b.bin", []byte{0, 1}, 0o644)
	afero.WriteFile(mem, "/pub/skip.iso", []byte("big"), 0o644)
	srv, err := fetchtest.StartFTP(mem, fetchtest.FTPOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	src := "ftp://" + srv.Addr() + "/pub/"
	dir := filepath.Join(t.TempDir(), "m")

	code, out, stderr := mirrorCLI(t, "mirror", "--dry-run", src, dir)
	if code != fetch.ExitOK || !strings.Contains(out, "new 3,") || !strings.Contains(out, "dry run") {
		t.Fatalf("dry run: exit %d\n%s%s", code, out, stderr)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Fatalf("dry run created %s", dir)
	}

	code, out, stderr = mirrorCLI(t, "mirror", "-j", "2", "--exclude", "*.iso", src, dir)
	if code != fetch.ExitOK || !strings.Contains(out, "new 2,") {
		t.Fatalf("mirror: exit %d\n%s%s", code, out, stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "sub", "b.bin")); !bytes.Equal(b, []byte{0, 1}) {
		t.Errorf("sub/b.bin = %q", b)
	}

	code, out, _ = mirrorCLI(t, "mirror", "--json", "--exclude", "*.iso", src, dir)
	var rep struct {
		New, Unchanged int
		Entries        []struct{ Path, Status string }
	}
	if code != fetch.ExitOK || json.Unmarshal([]byte(out), &rep) != nil || rep.New != 0 || rep.Unchanged != 2 {
		t.Fatalf("re-run --json: exit %d, %+v\n%s", code, rep, out)
	}
}

func TestMirrorCommandErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"mirror", "ftp://127.0.0.1:1/"}, fetch.ExitUsage},
		{[]string{"mirror", "-j", "0", "ftp://127.0.0.1:1/", "d"}, fetch.ExitUsage},
		{[]string{"mirror", "--exclude", "[", "ftp://127.0.0.1:1/", "d"}, fetch.ExitUsage},
		{[]string{"mirror", "ftp://a b/", "d"}, fetch.ExitMalformed},
		{[]string{"mirror", "gopher://127.0.0.1:25/1", t.TempDir()}, fetch.ExitRefused},
		{[]string{"mirror", "mailto:a@b", t.TempDir()}, fetch.ExitNoAccess},
	} {
		code, out, stderr := mirrorCLI(t, tc.args...)
		if code != tc.code {
			t.Errorf("%q: exit %d, want %d\n%s%s", tc.args, code, tc.code, out, stderr)
		}
	}
}

// TestMirrorCommandHostileServer checks that the report names every entry of
// a hostile listing that was skipped, in the JSON report and in the lines
// for people, and that the run still succeeds (exit 0: skipping a hostile
// entry is not a failure).
func TestMirrorCommandHostileServer(t *testing.T) {
	srv := localserver.HostileFTP()
	startRaw(t, srv)
	src := "ftp://" + srv.Addr() + "/"
	want := []string{`"../escape"`, `"/etc/passwd"`, `"a/../../b"`, `"cr\rinside"`, `"trailing-cr\r"`,
		`"nul\x00inside"`, "etc", "up", `"../updir"`, `sub/"../../escape2"`, "sub/back"}
	// ".fetch" is a real entry whose name the mirror keeps for its own
	// state: failed, not skipped.
	status := func(p string) string {
		if p == ".fetch" {
			return "failed"
		}
		return "skipped"
	}
	want = append(want, ".fetch")

	parent := t.TempDir()
	code, out, stderr := mirrorCLI(t, "mirror", "--json", src, filepath.Join(parent, "j"))
	var rep struct {
		New, Skipped, Failed, Unparsed int
		Entries                        []struct{ Path, Status, Reason string }
	}
	// "lf\ninjected" leaves the line "injected", which fits no layout:
	// exit 8, and the report and stderr say so.
	if code != fetch.ExitPartial || json.Unmarshal([]byte(out), &rep) != nil || rep.Unparsed != 1 {
		t.Fatalf("--json: exit %d\n%s%s", code, out, stderr)
	}
	if !strings.Contains(stderr, "listing line fits no known layout: \"injected\"") {
		t.Errorf("stderr does not quote the line: %q", stderr)
	}
	skipped := map[string]bool{}
	for _, e := range rep.Entries {
		if e.Status == status(e.Path) && e.Reason != "" {
			skipped[e.Path] = true
		}
	}
	for _, w := range want {
		if !skipped[w] {
			t.Errorf("--json report does not name %s as %s: %v", w, status(w), skipped)
		}
	}
	if rep.Skipped != len(want)-1 || rep.New != 5 || rep.Failed != 1 {
		t.Errorf("--json: new %d skipped %d failed %d, want 5, %d, 1", rep.New, rep.Skipped, rep.Failed, len(want)-1)
	}

	code, out, stderr = mirrorCLI(t, "mirror", "-s", src, filepath.Join(parent, "h"))
	if code != fetch.ExitPartial || !strings.Contains(out, ", unparsed 1;") {
		t.Fatalf("mirror: exit %d\n%s%s", code, out, stderr)
	}
	lines := strings.Split(out, "\n")
	for _, w := range want {
		found := false
		for _, l := range lines {
			if strings.HasPrefix(l, fmt.Sprintf("%-9s %s: ", status(w), w)) {
				found = true
			}
		}
		if !found {
			t.Errorf("human report has no line for %s:\n%s", w, out)
		}
	}
	if strings.ContainsAny(out, "\r\x00") {
		t.Errorf("human report holds a raw control character: %q", out)
	}
	if ents, _ := os.ReadDir(parent); len(ents) != 2 {
		t.Errorf("something was written beside the targets: %v", ents)
	}
}

// TestMirrorCommandPartial: entries the server refuses (a file RETR answers
// 550 for, a directory CWD answers 550 for) are failed entries of the
// report, the rest is mirrored, and the exit code is 8 (partial).
func TestMirrorCommandPartial(t *testing.T) {
	listing := func(lines ...string) string { return strings.Join(lines, "\r\n") + "\r\n" }
	srv := &localserver.RawFTP{
		Listings: map[string]string{
			"/": listing(
				"-rw-r--r--    1 0        0    3 Feb 03  2001 ok.txt",
				"-rw-------    1 0        0    3 Feb 03  2001 noread.txt",
				"drwx------    2 0        0    4096 Feb 03  2001 noaccess"),
		},
		Files: map[string][]byte{"/ok.txt": []byte("ok\n")},
	}
	startRaw(t, srv)
	dir := filepath.Join(t.TempDir(), "m")
	code, out, stderr := mirrorCLI(t, "mirror", "-s", "ftp://"+srv.Addr()+"/", dir)
	if code != fetch.ExitPartial {
		t.Fatalf("exit %d, want %d (partial)\n%s%s", code, fetch.ExitPartial, out, stderr)
	}
	for _, want := range []string{"failed    noread.txt: ", "failed    noaccess: ", "new 1, updated 0, unchanged 0, skipped 0, failed 2,"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(stderr, "2 entries failed") {
		t.Errorf("stderr = %q", stderr)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "ok.txt")); err != nil || string(b) != "ok\n" {
		t.Errorf("ok.txt = %q, %v", b, err)
	}
	// A refusal is not asked again within the run.
	n := map[string]int{}
	for _, c := range srv.Commands() {
		n[c]++
	}
	if n["RETR noread.txt"] != 1 || n["CWD noaccess"] != 1 {
		t.Errorf("sent RETR noread.txt %d times, CWD noaccess %d times; want once each", n["RETR noread.txt"], n["CWD noaccess"])
	}
}

// TestMirrorReportBidi: a name holding a bidirectional override is
// mirrored under its own bytes, and shown escaped in both reports: the
// human one (-v lists every entry) and the JSON one, which decodes to
// the name as it is.
func TestMirrorReportBidi(t *testing.T) {
	const name = "x\u202egpj.exe"
	mem := afero.NewMemMapFs()
	afero.WriteFile(mem, "/pub/"+name, []byte("a\n"), 0o644)
	srv, err := fetchtest.StartFTP(mem, fetchtest.FTPOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	src := "ftp://" + srv.Addr() + "/pub/"

	code, out, stderr := mirrorCLI(t, "mirror", "-v", "-s", src, filepath.Join(t.TempDir(), "h"))
	if code != fetch.ExitOK || strings.Contains(out, "\u202e") || !strings.Contains(out, `x\u202egpj.exe`) {
		t.Errorf("human report: exit %d, want the name escaped\n%s%s", code, out, stderr)
	}
	code, out, stderr = mirrorCLI(t, "mirror", "--json", src, filepath.Join(t.TempDir(), "j"))
	var rep struct{ Entries []struct{ Path string } }
	if code != fetch.ExitOK || strings.Contains(out, "\u202e") || json.Unmarshal([]byte(out), &rep) != nil ||
		len(rep.Entries) != 1 || rep.Entries[0].Path != name {
		t.Errorf("JSON report: exit %d, %+v, want the name escaped\n%s%s", code, rep, out, stderr)
	}
}
