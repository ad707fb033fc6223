package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rfc1738/fetch/fetch"
)

// TestMirrorCommandHostileHTTP: the exit code and the report of a mirror
// whose index page holds hostile links. A link whose name is no name is
// skipped and named, and the run still succeeds (exit 0); a redirect to
// file: or to another protocol's port is a failed entry naming its rule
// and target (exit 8, and stderr says how many failed); a starting page
// sent elsewhere ends the run refused (exit 4). Nothing is dialled but the
// server.
func TestMirrorCommandHostileHTTP(t *testing.T) {
	for _, tt := range []struct {
		name  string
		links string
		code  int
		lines []string // parts of the report (-s still prints it) and of stderr
	}{
		{"names", `<a href="ok.txt">ok</a> <a href="%2e%2e%2fx">x</a> <a href="cr%0d%0alf">y</a> <a href="http://[::1]:25/x">z</a>`,
			fetch.ExitOK, []string{`skipped   "../x": name contains "/" or "\"`, `skipped   "cr\r\nlf": name contains a control character or NUL`}},
		{"redirects", `<a href="ok.txt">ok</a> <a href="to-smtp">s</a> <a href="to-file">f</a>`,
			fetch.ExitPartial, []string{"failed    to-smtp: ", "to http://127.0.0.1:25/x: redirect-off-mirror\n",
				"failed    to-file: ", "to file:///etc/passwd: redirect-to-file\n", "fetch: mirror: 2 entries failed"}},
		// The starting page itself sent elsewhere: refused, nothing
		// sent there, the run ends with the policy's exit code.
		{"start", "", fetch.ExitRefused, []string{"redirect-off-mirror: redirect to http://[::1]:1/pub/\n"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				switch r.URL.Path {
				case "/pub/":
					if tt.links == "" {
						http.Redirect(w, r, "http://[::1]:1/pub/", http.StatusFound)
						return
					}
					io.WriteString(w, tt.links)
				case "/pub/ok.txt":
					io.WriteString(w, "ok\n")
				case "/pub/to-smtp":
					http.Redirect(w, r, "http://127.0.0.1:25/x", http.StatusFound)
				case "/pub/to-file":
					http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
				default:
					http.NotFound(w, r)
				}
			}))
			defer srv.Close()
			parent := t.TempDir()
			n := &netlog{}
			e, out, errb := newEnv("", n)
			var mu sync.Mutex
			var dialled []string
			e.dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
				mu.Lock()
				dialled = append(dialled, addr)
				mu.Unlock()
				return n.dial(ctx, network, addr)
			}
			code := runIn(t, e, "mirror", "-s", srv.URL+"/pub/", filepath.Join(parent, "m"))
			if code != tt.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, tt.code, out, errb)
			}
			for _, l := range tt.lines {
				if !strings.Contains(out.String(), l) && !strings.Contains(errb.String(), l) {
					t.Errorf("report lacks %q:\n%s%s", l, out, errb)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			for _, a := range dialled {
				if a != srv.Listener.Addr().String() {
					t.Errorf("dialled %s", a)
				}
			}
			if ents, _ := os.ReadDir(parent); len(ents) > 1 {
				t.Errorf("something was written beside the target: %v", ents)
			}
		})
	}
}
