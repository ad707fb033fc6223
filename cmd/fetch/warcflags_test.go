package main

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/warc"
)

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
