package mirror

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/proto"
	fetchhttp "github.com/rfc1738/fetch/proto/http"
	"github.com/rfc1738/fetch/uri"
)

// replies counts the HTTP status lines with code in a trace.
func (t *trace) replies(code string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	for _, l := range strings.Split(t.buf.String(), "\n") {
		if strings.HasPrefix(l, "< HTTP/") && strings.Contains(l, " "+code+" ") {
			n++
		}
	}
	return n
}

// An HTTP index tree (net/http's file server: Last-Modified from the
// files, If-Modified-Since honoured). The first run fetches every file; a
// second asks for each with If-Modified-Since the recorded Last-Modified
// and gets 304, so no file crosses the wire again; a file changed since
// comes back whole.
func TestMirrorHTTPEndToEnd(t *testing.T) {
	src := t.TempDir()
	want := map[string][]byte{
		"a.txt":         []byte("alpha\n"),
		"sub/b.bin":     bytes.Repeat([]byte{0, 1, 2}, 40000),
		"sub/deep/c.md": []byte("# c\n"),
	}
	old := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	for p, b := range want {
		full := filepath.Join(src, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, b, 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(full, old, old)
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(src)))
	defer srv.Close()
	tr := &trace{}
	opts := Options{Jobs: 2, Request: proto.Request{Trace: tr, IdleTimeout: 10 * time.Second}}
	f := drivers{"http": &fetchhttp.Driver{}}
	start := uri.MustParse(srv.URL + "/")
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()

	s, err := Run(ctx, f, start, dir, opts)
	if err != nil || s.New != len(want) {
		t.Fatalf("first run: %v, %+v", err, s)
	}
	for p, b := range want {
		if got, err := os.ReadFile(filepath.Join(dir, p)); err != nil || !bytes.Equal(got, b) {
			t.Errorf("%s differs from the source (%v)", p, err)
		}
	}

	tr.reset()
	s, err = Run(ctx, f, start, dir, opts)
	if err != nil || s.Unchanged != len(want) || s.New+s.Updated != 0 {
		t.Fatalf("second run: %v, %+v", err, s)
	}
	if n := tr.replies("304"); n != len(want) {
		t.Errorf("second run: %d replies 304, want %d (one per file)\n%s", n, len(want), tr.buf.String())
	}
	if n := tr.commands("If-Modified-Since:"); n != len(want) {
		t.Errorf("second run: %d requests with If-Modified-Since, want %d", n, len(want))
	}

	changed := []byte("alpha, changed\n")
	os.WriteFile(filepath.Join(src, "a.txt"), changed, 0o644)
	os.Chtimes(filepath.Join(src, "a.txt"), old.Add(time.Hour), old.Add(time.Hour))
	tr.reset()
	s, err = Run(ctx, f, start, dir, opts)
	if err != nil || s.Updated != 1 || s.Unchanged != len(want)-1 {
		t.Fatalf("after a change: %v, %+v", err, s)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "a.txt")); !bytes.Equal(got, changed) {
		t.Errorf("a.txt = %q, want %q", got, changed)
	}
	if n := tr.replies("304"); n != len(want)-1 {
		t.Errorf("after a change: %d replies 304, want %d", n, len(want)-1)
	}
}

// An HTTP server that follows a link back up the tree (Apache's
// FollowSymLinks with loops/self -> .) serves loops/self/, loops/self/self/
// and so on without end, each the same index page. The walk went down it
// until a name grew too long for the file system, copying b.txt at each
// level. loops/self/ lists what loops/ lists: it is taken for a link back
// up, not walked, and reported failed (exit 8).
func TestMirrorHTTPLinkLoop(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		switch {
		case p == "/":
			w.Write([]byte(`<a href="a.txt">a.txt</a> <a href="loops/">loops/</a>`))
		case p == "/a.txt" || strings.HasPrefix(p, "/loops/") && strings.HasSuffix(p, "/b.txt"):
			w.Write([]byte("data\n"))
		case strings.HasPrefix(p, "/loops/") && strings.Trim(strings.ReplaceAll(p[len("/loops/"):], "self/", ""), "/") == "":
			w.Write([]byte(`<a href="../">Parent</a> <a href="b.txt">b.txt</a> <a href="self/">self/</a>`))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	sum, err := Run(ctx, drivers{"http": &fetchhttp.Driver{}}, uri.MustParse(srv.URL+"/"), dir, Options{Jobs: 2})
	if got, want := failed(sum), []string{"loops/self"}; !errors.Is(err, ErrPartial) || !slices.Equal(got, want) || sum.New != 2 {
		t.Fatalf("Run = %v, failed %q, %d new; want ErrPartial, %q, 2 new", err, got, sum.New, want)
	}
	if _, err := os.Lstat(filepath.Join(dir, "loops", "self")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("loops/self: %v, want not found", err)
	}
}
