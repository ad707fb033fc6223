package mirror

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
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

// closePage serves an index page as a server does that gives no length:
// no Content-Length, not chunked, the end of the page at the close of the
// connection (RFC 9112 section 6.3, rule 8). pages() is what each request
// gets, one after the other (the last one again once they run out).
func closePage(pages func(n int) string) http.HandlerFunc {
	var mu sync.Mutex
	n := 0
	return func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		page := pages(n)
		n++
		mu.Unlock()
		c, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		defer c.Close()
		buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nConnection: close\r\n\r\n" + page)
		buf.Flush()
	}
}

// An index page that ends at the close, with no length to tell it whole,
// was cut (the connection lost on the way): a mirror with Delete deleted
// every local file past the cut, and said nothing. Before it deletes
// anything below such a page it reads it again, as it does a gopher menu
// that ended at the close: another page fails the directory (nothing
// below it deleted, ErrPartial); the same page deletes what it no longer
// lists.
func TestMirrorHTTPDeleteBelowPageOfNoLength(t *testing.T) {
	page := func(names ...string) string {
		var b strings.Builder
		b.WriteString("<html><body>\n")
		for _, n := range names {
			b.WriteString(`<a href="` + n + `">` + n + "</a>\n")
		}
		return b.String() + "</body></html>\n"
	}
	whole := page("a.txt", "b.txt", "c.txt", "d.txt")
	for _, tc := range []struct {
		name    string
		second  []string // the page of the second run, read after read
		deleted int
		kept    []string
	}{
		{"cut, then whole", []string{whole[:len(whole)/2], whole}, 0, []string{"a.txt", "b.txt", "c.txt", "d.txt"}},
		{"the same twice", []string{page("a.txt", "b.txt")}, 2, []string{"a.txt", "b.txt"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var second atomic.Bool
			mux := http.NewServeMux()
			mux.HandleFunc("/pub/", closePage(func(n int) string {
				if !second.Load() {
					return whole
				}
				return tc.second[min(n-1, len(tc.second)-1)]
			}))
			mux.HandleFunc("/pub/{name}", func(w http.ResponseWriter, r *http.Request) {
				io.WriteString(w, r.PathValue("name")+"\n")
			})
			srv := httptest.NewServer(mux)
			defer srv.Close()
			dir := t.TempDir()
			f := drivers{"http": &fetchhttp.Driver{}}
			start := uri.MustParse(srv.URL + "/pub/")
			opts := Options{Delete: true, Request: proto.Request{IdleTimeout: 10 * time.Second}}
			if s, err := Run(t.Context(), f, start, dir, opts); err != nil || s.New != 4 {
				t.Fatalf("first run: %d new, %v", s.New, err)
			}
			second.Store(true)
			s, err := Run(t.Context(), f, start, dir, opts)
			if cut := tc.deleted == 0; cut != errors.Is(err, ErrPartial) || s.Deleted != tc.deleted {
				t.Errorf("second run: %d deleted, %v; want %d deleted, partial %v", s.Deleted, err, tc.deleted, cut)
			}
			ents, _ := os.ReadDir(dir)
			var got []string
			for _, e := range ents {
				if e.Name() != stateDir {
					got = append(got, e.Name())
				}
			}
			if !slices.Equal(got, tc.kept) {
				t.Errorf("files after the second run %v, want %v", got, tc.kept)
			}
		})
	}
}
