package main

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/afero"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
	"github.com/rfc1738/fetch/proto/ftp"
)

// On a terminal, "fetch mirror" draws an overall bar and one bar per
// worker on stderr; with -s, or when stderr is not a terminal, nothing.
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
		drawn := strings.Contains(got, "worker 1") && strings.Contains(got, "worker 2") && strings.Contains(got, "files")
		if drawn != tc.bars {
			t.Errorf("tty=%v %v: bars drawn = %v, want %v; stderr:\n%q", tc.tty, tc.flags, drawn, tc.bars, got)
		}
		if !strings.Contains(out.String(), "new 40,") {
			t.Errorf("tty=%v %v: summary %q", tc.tty, tc.flags, out.String())
		}
	}
}
