package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/afero"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/internal/localserver"
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
	srv, err := localserver.StartFTP(mem, localserver.FTPOptions{})
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
