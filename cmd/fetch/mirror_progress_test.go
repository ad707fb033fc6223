package main

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mattn/go-runewidth"
	"github.com/spf13/afero"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
	"github.com/rfc1738/fetch/proto/ftp"
)

// On a terminal, "fetch mirror" draws an overall bar, full at the end,
// and one bar per file in flight, named by its path, on stderr; with -s,
// or when stderr is not a terminal, nothing.
func TestMirrorProgressBars(t *testing.T) {
	mem := afero.NewMemMapFs()
	for i := 0; i < 40; i++ {
		afero.WriteFile(mem, fmt.Sprintf("/pub/f%02d.bin", i), bytes.Repeat([]byte{byte(i)}, 64<<10), 0o644)
	}
	srv, err := fetchtest.StartFTP(mem, fetchtest.FTPOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	for _, tc := range []struct {
		tty   bool
		flags []string
		bars  bool
	}{
		{tty: true, bars: true},
		{tty: true, flags: []string{"-s"}, bars: false},
		{tty: false, bars: false},
	} {
		var out, stderr bytes.Buffer
		errb := &lockedBuffer{b: &stderr}
		reg := fetch.NewRegistry()
		reg.Register("ftp", &ftp.Driver{})
		e := &env{in: strings.NewReader(""), out: &out, err: errb, stderrTTY: tc.tty,
			getenv: func(string) string { return "" }, registry: reg}
		args := append([]string{"mirror", "-j", "2"}, tc.flags...)
		args = append(args, "ftp://"+srv.Addr()+"/pub/", filepath.Join(t.TempDir(), "m"))
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		code := execute(ctx, args, e)
		cancel()
		if code != fetch.ExitOK {
			t.Fatalf("%v: exit %d\n%s", args, code, stderr.String())
		}
		got := stderr.String() // the command has returned: no writer is left
		drawn := strings.Contains(got, "f00.bin") && strings.Contains(got, "f39.bin") && strings.Contains(got, "all files")
		if drawn && !strings.Contains(lastFrame(got), "40 files  2.5 MiB  100 %") {
			t.Errorf("the overall bar does not end full: %q", lastFrame(got))
		}
		if drawn != tc.bars {
			t.Errorf("tty=%v %v: bars drawn = %v, want %v; stderr:\n%q", tc.tty, tc.flags, drawn, tc.bars, got)
		}
		if !strings.Contains(out.String(), "new 40,") {
			t.Errorf("tty=%v %v: summary %q", tc.tty, tc.flags, out.String())
		}
	}
}

// lastFrame is what the bars drew last: the text after the last cursor
// movement.
func lastFrame(s string) string {
	if i := strings.LastIndex(s, "\x1b[J"); i >= 0 {
		return s[i:]
	}
	return s
}

// The mirror's bars on a fake terminal 100 columns wide: a long path is
// cut in its middle to fit, sizes are in KiB, each file's bar reaches
// 100 %, and the overall bar ends full with the files and bytes.
func TestMirrorBarsRender(t *testing.T) {
	var buf bytes.Buffer
	out := &lockedBuffer{b: &buf}
	b := startMirrorBars(t.Context(), out, 100)
	long := "pub/" + strings.Repeat("deep/", 12) + "last-file.tar.gz"
	b.event(fetch.MirrorEvent{Worker: 0, Path: long, Size: 8 << 10, Bytes: 0})
	b.event(fetch.MirrorEvent{Worker: 1, Path: "pub/a.txt", Size: -1, Bytes: 1000})
	b.event(fetch.MirrorEvent{Worker: 0, Path: long, Size: 8 << 10, Bytes: 8 << 10, Done: true, Status: "new"})
	b.event(fetch.MirrorEvent{Worker: 1, Path: "pub/a.txt", Size: -1, Bytes: 2000, Done: true, Status: "new"})
	b.wait()
	got := buf.String()
	for _, want := range []string{"pub/deep/", "…", "last-file.tar.gz", "8.0 KiB / 8.0 KiB  100 %", "pub/a.txt", "2 files  10.0 KiB  100 %"} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in the bars:\n%q", want, got)
		}
	}
	if strings.Contains(got, " b ") || strings.Contains(got, "worker") {
		t.Errorf("old units or labels in the bars:\n%q", got)
	}
	for _, line := range strings.Split(got, "\n") {
		if i := strings.LastIndex(line, "\x1b[J"); i >= 0 {
			line = line[i+3:]
		}
		if w := runewidth.StringWidth(line); w > 100 {
			t.Errorf("a line of %d columns on a terminal of 100: %q", w, line)
		}
	}
}
