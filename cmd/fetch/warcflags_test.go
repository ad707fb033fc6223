package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/warc"
)

func TestParseSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		err  bool
	}{
		{"", 0, false},
		{"1000", 1000, false},
		{"4K", 4 << 10, false},
		{"1m", 1 << 20, false},
		{"2G", 2 << 30, false},
		{"0", 0, true},
		{"-1", 0, true},
		{"K", 0, true},
		{"1.5G", 0, true},
		{"1T", 0, true},
		{"99999999999G", 0, true},
	} {
		got, err := parseSize(tc.in)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("parseSize(%q) = %d, %v", tc.in, got, err)
		}
	}
}

func TestWARCFlagsNeedFile(t *testing.T) {
	for _, args := range [][]string{
		{"get", "--warc-cdx", "ftp://127.0.0.1/x"},
		{"get", "--warc-max-size", "1M", "ftp://127.0.0.1/x"},
		{"mirror", "--warc-dedup", "x.cdxj", "ftp://127.0.0.1/x/", t.TempDir()},
	} {
		r := runArgs(t, nil, "", args...)
		if r.code != 2 || !strings.Contains(r.err, "need --warc-file") {
			t.Errorf("%q = %d (%s)", args, r.code, r.err)
		}
	}
	r := runArgs(t, nil, "", "get", "--warc-file", t.TempDir()+"/w", "--warc-max-size", "lots", "ftp://127.0.0.1/x")
	if r.code != 2 || !strings.Contains(r.err, "--warc-max-size") {
		t.Errorf("bad size = %d (%s)", r.code, r.err)
	}
	r = runArgs(t, nil, "", "get", "--warc-file", t.TempDir()+"/none/w", "ftp://127.0.0.1/x")
	if r.code == 0 || !strings.Contains(r.err, "not a directory") {
		t.Errorf("missing directory = %d (%s)", r.code, r.err)
	}
}

func TestCommandLineRedacted(t *testing.T) {
	red := newRedactor([]string{"ftp://u:hunter22@h/"})
	got := commandLine([]string{"get", "ftp://u:hunter22@h/", "--netrc-file=hunter22"}, red)
	if strings.Contains(got, "hunter22") || !strings.Contains(got, "ftp://u:xxxxx@h/") {
		t.Errorf("commandLine = %q", got)
	}
}

// A WARC file left open by a run that did not finish is named in a
// warning, even with -s, and left alone: new records go to another file.
func TestWARCUnfinishedWarned(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src.txt")
	os.WriteFile(src, []byte("hello\n"), 0o644)
	left := filepath.Join(dir, "w.warc.gz.open")
	os.WriteFile(left, []byte("records of a killed run"), 0o644)
	r := runArgs(t, nil, "", "get", "-s", "--warc-file", filepath.Join(dir, "w"), "-o", filepath.Join(dir, "out"), "file://"+src)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.err)
	}
	if !strings.Contains(r.err, left+" was left open by a run that did not finish") {
		t.Errorf("no warning naming %s: %q", left, r.err)
	}
	if b, _ := os.ReadFile(left); string(b) != "records of a killed run" {
		t.Errorf("the unfinished file was changed: %q", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "w-00001.warc.gz")); err != nil {
		t.Errorf("new records not in w-00001.warc.gz: %v", err)
	}
}

// A capture begun and dropped (its body not read to its end) is named in
// a warning when the WARC file is closed, and makes the run partial (exit
// 8): the archive lacks a transfer the run made.
func TestCloseWARCDropped(t *testing.T) {
	w, err := warc.Create(warc.Options{Name: filepath.Join(t.TempDir(), "d")})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{"ftp://127.0.0.1/kept", "ftp://127.0.0.1/dropped"} {
		r, err := w.Begin(warc.Capture{URI: u})
		if err != nil {
			t.Fatal(err)
		}
		r.Write([]byte("data"))
		if strings.HasSuffix(u, "dropped") {
			r.Abort()
			r.Abort() // once only
		} else if err := r.Commit(); err != nil {
			t.Fatal(err)
		}
		r.Abort() // after Commit: no effect
	}
	e, _, errb := newEnv("", &netlog{})
	var runErr error
	closeWARC(&fetch.Client{WARC: w}, e, &runErr)
	var ee *exitError
	if !errors.As(runErr, &ee) || ee.code != fetch.ExitPartial {
		t.Errorf("run error %v, want exit %d", runErr, fetch.ExitPartial)
	}
	if got := errb.String(); !strings.Contains(got, "1 transfer(s) not archived") || !strings.Contains(got, "ftp://127.0.0.1/dropped") || strings.Contains(got, "/kept") {
		t.Errorf("warning %q", got)
	}
}
