package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/afero"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
	"github.com/rfc1738/fetch/internal/testrig/localserver"
	"github.com/rfc1738/fetch/uri"
)

// RFC 1738 section 3.2.2: in ftp://h//etc/motd the empty first segment is
// a CWD with a null argument. The server here refuses it; the driver goes
// on and reports the refusal in Info["warnings"], which "fetch get" prints
// on stderr unless -s.
func TestGetFTPWarnings(t *testing.T) {
	srv := &localserver.RawFTP{
		Listings: map[string]string{"/etc": ""}, // "/" is not a directory: the null CWD is refused
		Files:    map[string][]byte{"/etc/motd": []byte("welcome\n")},
	}
	startRaw(t, srv)
	raw := "ftp://" + srv.Addr() + "//etc/motd"
	want := "fetch: warning: " + raw + ": CWD (null argument) refused: 550 no such directory\n"

	r := runArgs(t, nil, "", "get", raw)
	if r.code != 0 || r.out != "welcome\n" {
		t.Fatalf("get %s = %d %q, stderr %q", raw, r.code, r.out, r.err)
	}
	if !strings.Contains(r.err, want) || strings.Count(r.err, "warning:") != 1 {
		t.Errorf("stderr = %q, want the line %q", r.err, want)
	}
	r = runArgs(t, nil, "", "get", "-s", raw)
	if r.code != 0 || r.out != "welcome\n" || r.err != "" {
		t.Errorf("get -s %s = %d %q, stderr %q; want no warning", raw, r.code, r.out, r.err)
	}
}

// A driver's warning is server text: it is printed on one line, without
// control characters, with the command line's passwords hidden.
func TestWarnResponse(t *testing.T) {
	u := uri.MustParse("ftp://user:hunter2pw@127.0.0.1/x")
	red := newRedactor([]string{u.String()})
	for _, tt := range []struct {
		name     string
		warnings any
		want     string
	}{
		{"list", []string{"one", "two"}, "fetch: warning: ftp://user:xxxxx@127.0.0.1/x: one\nfetch: warning: ftp://user:xxxxx@127.0.0.1/x: two\n"},
		{"string", "alone", "fetch: warning: ftp://user:xxxxx@127.0.0.1/x: alone\n"},
		{"control", []string{"550 \x1b[2Jgone\r\nDELE x\x00\x7f\u009b"}, "fetch: warning: ftp://user:xxxxx@127.0.0.1/x: 550 [2JgoneDELE x\n"},
		{"password", []string{"echo hunter2pw and hun\x1bter2pw"}, "fetch: warning: ftp://user:xxxxx@127.0.0.1/x: echo **** and ****\n"},
		{"none", nil, ""},
		{"not text", 42, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var errb bytes.Buffer
			e := &env{err: &errb}
			resp := &fetch.Response{URL: u}
			resp.Info = map[string]any{"warnings": tt.warnings}
			(&getOptions{}).warnResponse(e, red, resp)
			if errb.String() != tt.want {
				t.Errorf("warnResponse(%q) printed %q, want %q", tt.warnings, errb.String(), tt.want)
			}
			errb.Reset()
			(&getOptions{silent: true}).warnResponse(e, red, resp)
			if errb.Len() != 0 {
				t.Errorf("warnResponse with -s printed %q", errb.String())
			}
		})
	}
}

// startFTP serves files from memory on the in-process FTP server.
func startFTP(t *testing.T, files map[string][]byte, mtime time.Time) string {
	t.Helper()
	mem := afero.NewMemMapFs()
	for name, b := range files {
		if err := afero.WriteFile(mem, name, b, 0o644); err != nil {
			t.Fatal(err)
		}
		mem.Chtimes(name, mtime, mtime)
	}
	srv, err := fetchtest.StartFTP(mem, fetchtest.FTPOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv.Addr()
}

// Without -R nothing keeps the modification time, so "fetch get" asks the
// driver for SIZE alone (Options.FTP.Stat = proto.StatSize): one MDTM fewer
// per file. With -R the driver sends MDTM too and the file gets the time.
func TestGetFTPStat(t *testing.T) {
	mt := time.Date(2003, 4, 5, 6, 7, 8, 0, time.UTC)
	addr := startFTP(t, map[string][]byte{"/pub/a.bin": []byte("12345")}, mt)
	raw := "ftp://" + addr + "/pub/a.bin"

	r := runArgs(t, nil, "", "get", "-v", raw)
	if r.code != 0 || r.out != "12345" {
		t.Fatalf("get -v = %d %q, stderr %q", r.code, r.out, r.err)
	}
	if !strings.Contains(r.err, "> SIZE a.bin\n") || strings.Contains(r.err, "> MDTM") {
		t.Errorf("get without -R: want SIZE and no MDTM in the trace:\n%s", r.err)
	}

	out := filepath.Join(t.TempDir(), "a.bin")
	r = runArgs(t, nil, "", "get", "-v", "-R", "-o", out, raw)
	if r.code != 0 {
		t.Fatalf("get -v -R = %d, stderr %q", r.code, r.err)
	}
	if !strings.Contains(r.err, "> SIZE a.bin\n") || !strings.Contains(r.err, "> MDTM a.bin\n") {
		t.Errorf("get -R: want SIZE and MDTM in the trace:\n%s", r.err)
	}
	if fi, err := os.Stat(out); err != nil || !fi.ModTime().Equal(mt) {
		t.Errorf("get -R: file time %v (%v), want %v", fi.ModTime(), err, mt)
	}
}

// The progress bar follows an FTP transfer copied through the body's
// WriteTo: it counts what is written.
func TestGetProgressFTP(t *testing.T) {
	addr := startFTP(t, map[string][]byte{"/big.bin": bigBody}, time.Now())
	e, out, errb := newEnv("", &netlog{})
	e.stderrTTY = true
	dst := filepath.Join(t.TempDir(), "big")
	if code := runIn(t, e, "get", "-o", dst, "ftp://"+addr+"/big.bin"); code != 0 || out.Len() != 0 {
		t.Fatalf("get = %d, stderr %q", code, errb.String())
	}
	if b, _ := os.ReadFile(dst); sum(b) != sum(bigBody) {
		t.Errorf("got %d bytes, want %d", len(b), len(bigBody))
	}
	if !strings.Contains(errb.String(), "big.bin") || !strings.Contains(errb.String(), "1.0 MiB / 1.0 MiB  100 %") {
		t.Errorf("the bar is not named big.bin, or does not reach 1.0 MiB / 1.0 MiB  100 %%: %q", errb.String())
	}
}
