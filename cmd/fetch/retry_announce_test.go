package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/rfc1738/fetch/fetch"
)

// refuseDial fails every connection as a port where nothing listens does
// (ECONNREFUSED), without touching the network.
func refuseDial(ctx context.Context, network, addr string) (net.Conn, error) {
	return nil, &net.OpError{Op: "dial", Net: network, Err: &os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED}}
}

// Each retry is announced on stderr, -s silences it, and the final error
// says how many attempts it took, the URL said once: for a mirror whose
// start cannot be listed, and for get.
func TestRetryAnnounced(t *testing.T) {
	const port = "2121"
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string // stderr, as a regular expression
	}{
		{[]string{"mirror", "--retry", "1", "ftp://127.0.0.1:" + port + "/pub/", dir},
			`^fetch: retrying in [0-9.]+ s \(1/1\): ftp://127\.0\.0\.1:` + port + `/pub/: connection refused\n` +
				`fetch: ftp://127\.0\.0\.1:` + port + `/pub/: connection refused \(2 attempts\)\n$`},
		{[]string{"mirror", "-s", "--retry", "1", "ftp://127.0.0.1:" + port + "/pub/", dir},
			`^fetch: ftp://127\.0\.0\.1:` + port + `/pub/: connection refused \(2 attempts\)\n$`},
		{[]string{"get", "--retry", "1", "ftp://127.0.0.1:" + port + "/pub/a"},
			`^fetch: retrying in [0-9.]+ s \(1/1\): ftp://127\.0\.0\.1:` + port + `/pub/a: connection refused\n` +
				`fetch: ftp://127\.0\.0\.1:` + port + `/pub/a: connection refused \(2 attempts\)\n$`},
	} {
		e, _, errb := newEnv("", &netlog{})
		e.dial = refuseDial
		code := runIn(t, e, tc.args...)
		if code != fetch.ExitNetwork || !regexp.MustCompile(tc.want).MatchString(errb.String()) {
			t.Errorf("fetch %q = %d, stderr\n%s\nwant 5 and\n%s", tc.args, code, errb, tc.want)
		}
	}
}

// A file error names the user's own path, not the temporary file beside
// it; a gateway that fails is named as the gateway, not as a redirect.
func TestErrorsNameWhatTheUserGave(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	os.WriteFile(src, []byte("x"), 0o644)
	out := filepath.Join(dir, "missing", "f")
	r := runArgs(t, nil, "", "-o", out, "file://"+src)
	if want := "fetch: create " + out + ": no such file or directory\n"; r.code != fetch.ExitError || r.err != want {
		t.Errorf("-o %s = %d, stderr %q; want 1, %q", out, r.code, r.err, want)
	}

	e, _, errb := newEnv("", &netlog{})
	e.dial = refuseDial
	code := runIn(t, e, "--gateway", "wais=http://127.0.0.1:8080/{database}", "wais://127.0.0.1/db")
	if want := "fetch: gateway http://127.0.0.1:8080/db: connection refused\n"; code != fetch.ExitNetwork || errb.String() != want {
		t.Errorf("gateway = %d, stderr %q; want 5, %q", code, errb, want)
	}
}

// While the mirror's bars are drawn, a retry line goes above them
// through the bars' own writer (a line written beside them would be
// drawn over); once they are done, straight to stderr.
func TestRetryLinesAboveBars(t *testing.T) {
	var drawn, direct bytes.Buffer
	b := startMirrorBars(t.Context(), &drawn, 80)
	w := above(b.p, &direct)
	fmt.Fprintln(w, "fetch: retrying in 1.0 s (1/3): x")
	b.wait()
	fmt.Fprintln(w, "fetch: after")
	if !strings.Contains(drawn.String(), "fetch: retrying in 1.0 s (1/3): x\n") || direct.String() != "fetch: after\n" {
		t.Errorf("above the bars %q, on stderr %q", drawn.String(), direct.String())
	}
	if w := above((&mirrorBars{}).p, &direct); w != &direct {
		t.Errorf("without bars the lines go to %T", w)
	}
}
