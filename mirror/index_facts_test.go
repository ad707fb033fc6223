package mirror

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rfc1738/fetch/proto"
	fetchhttp "github.com/rfc1738/fetch/proto/http"
	"github.com/rfc1738/fetch/uri"
)

// A row is trusted only when it is as exact as the manifest's record of
// Last-Modified and Content-Length: seconds (RFC 9110 section 8.8.2,
// HTTP-date of section 5.6.7) and bytes (section 8.6).
func TestRowFacts(t *testing.T) {
	at := time.Date(2026, 11, 29, 6, 50, 52, 0, time.UTC)
	for _, c := range []struct {
		tail string
		size int64
		ok   bool
	}{
		{"   29-Nov-2026 06:50:52        1234\n", 1234, true}, // nginx's layout, to the second
		{"  2026-11-29 06:50:52  0 ", 0, true},                // ISO date
		{" 2026-Nov-29 06:50:52 1234 text/plain", 1234, true}, // lighttpd's layout, a size in bytes
		{"   29-Nov-2026 06:50        1234\n", -1, false},     // nginx default: minutes (RFC 9110 8.8.2 gives seconds)
		{"  2026-11-29 06:50  1.2K  ", -1, false},             // Apache fancy: minutes, rounded size
		{" 2026-Nov-29 06:50:52 1.2K", -1, false},             // lighttpd: seconds, rounded size
		{" 29-Nov-2026 06:50:52 -", -1, false},                // a directory's row
		{" 29-Nov-2026 06:50:52 4,096", -1, false},            // digit groups
		{" 29-Nov-2026 06:50:52", -1, false},                  // no size
		{" 29-Nov-2026 24:50:52 1", -1, false},                // no such hour
		{" 31-Feb-2026 06:50:52 1", -1, false},                // no such day
		{" 29-Nov-1969 06:50:52 1", -1, false},                // before any HTTP-date a server sends
		{" 29-Nov-2026 06:50:52.5 1", -1, false},              // fractions: not a row layout
		{" 1234 29-Nov-2026 06:50:52", -1, false},             // size first: no layout known
		{" 29-Nov-2026 06:50:52 1234567890123456789", -1, false},
		{"", -1, false},
	} {
		size, mtime, ok := rowFacts(c.tail)
		if ok != c.ok || size != c.size || ok && !mtime.Equal(at) {
			t.Errorf("rowFacts(%q) = %d, %v, %v; want %d, %v, %v", c.tail, size, mtime, ok, c.size, at, c.ok)
		}
	}
}

// No captured page of a real server shows both seconds and bytes: none
// of their files gets a size or time from the page, so each is asked for
// on condition.
func TestRowFactsCapturedPages(t *testing.T) {
	pages, err := filepath.Glob("testdata/httpindex/*.html")
	if err != nil || len(pages) == 0 {
		t.Fatal("no captured pages", err)
	}
	for _, p := range pages {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		l := parseIndex(t, "http://127.0.0.1/", "", b)
		for _, f := range l.files {
			if f.size >= 0 || !f.mtime.IsZero() {
				t.Errorf("%s: %s has size %d, time %v from a page coarser than the manifest", p, f.rel, f.size, f.mtime)
			}
		}
	}
}

// nginx's JSON index (autoindex_format json): times are HTTP-dates (RFC
// 9110 section 5.6.7), sizes in bytes; names are data, escaped into the
// links (RFC 3986 section 2.1), one with ":" made relative (section 4.2).
func TestParseJSONIndex(t *testing.T) {
	page := `[
{ "name":"sub", "type":"directory", "mtime":"Sun, 29 Nov 2026 06:50:52 GMT" },
{ "name":"a b.txt", "type":"file", "mtime":"Sun, 29 Nov 2026 06:50:52 GMT", "size":12 },
{ "name":"x:y", "type":"file", "mtime":"Sun, 29 Nov 2026 06:50:52 GMT", "size":0 },
{ "name":"nodate", "type":"file", "size":3 },
{ "name":"dev", "type":"other", "mtime":"Sun, 29 Nov 2026 06:50:52 GMT" },
{ "name":"", "type":"file" }
]`
	ls, ok := parseJSONIndex([]byte(page))
	want := []link{
		{"sub/", "sub", ""},
		{"a%20b.txt", "a b.txt", "2026-11-29 06:50:52 12"},
		{"./x:y", "x:y", "2026-11-29 06:50:52 0"},
		{"nodate", "nodate", ""},
	}
	if !ok || !slices.Equal(ls, want) {
		t.Errorf("parseJSONIndex = %q, %v; want %q", ls, ok, want)
	}
	if _, ok := parseJSONIndex([]byte("<html>")); ok {
		t.Error("an HTML page read as a JSON index")
	}
}

func FuzzRowFacts(f *testing.F) {
	for _, s := range []string{"29-Nov-2026 06:50:52 1234", "2026-11-29 06:50 1.2K", "2026-Nov-29 06:50:52 0", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, tail string) {
		size, mtime, ok := rowFacts(tail)
		if ok && (size < 0 || mtime.IsZero() || mtime.Nanosecond() != 0 || mtime.Location() != time.UTC) {
			t.Fatalf("rowFacts(%q) = %d, %v", tail, size, mtime)
		}
		if !ok && size != -1 {
			t.Fatalf("rowFacts(%q) failed with size %d", tail, size)
		}
		// What it read, written as an index row of its own, reads back.
		if ok {
			back := mtime.Format("2006-01-02 15:04:05") + " " + strconv.FormatInt(size, 10)
			if s2, m2, ok2 := rowFacts(back); !ok2 || s2 != size || !m2.Equal(mtime) {
				t.Fatalf("rowFacts(%q) = %d, %v; written back as %q: %d, %v, %v", tail, size, mtime, back, s2, m2, ok2)
			}
		}
	})
}

func FuzzParseJSONIndex(f *testing.F) {
	f.Add([]byte(`[{"name":"a","type":"file","mtime":"Sun, 29 Nov 2026 06:50:52 GMT","size":1},{"name":"d","type":"directory"}]`))
	f.Add([]byte(`[{"name":"../x","type":"file"}]`))
	f.Add([]byte(`[{"name":"./a:b/","type":"directory"}]`))
	f.Fuzz(func(t *testing.T, page []byte) {
		ls, _ := parseJSONIndex(page)
		for _, l := range ls {
			if l.tail != "" {
				if _, _, ok := rowFacts(l.tail); !ok {
					t.Fatalf("tail %q of %q does not read back", l.tail, l.href)
				}
			}
			ref, err := uri.Parse(l.href)
			if err != nil || ref.Scheme != "" || ref.Host != "" {
				t.Fatalf("href %q is not a relative path (%v)", l.href, err)
			}
			// One segment, which decodes to the entry's name.
			seg := strings.TrimSuffix(l.href, "/")
			if strings.Contains(l.text, ":") {
				seg = strings.TrimPrefix(seg, "./")
			}
			if name, err := uri.Unescape(seg); err != nil || name != l.text || strings.Contains(seg, "/") {
				t.Fatalf("href %q is not one segment naming %q (%v)", l.href, l.text, err)
			}
		}
	})
}

// indexServer serves files under "/" with an index page at "/" in one of
// the layouts (nginx's HTML rows with the given time layout, or nginx's
// JSON), and counts the requests for each path.
type indexServer struct {
	mu     sync.Mutex
	files  map[string][]byte
	mtime  map[string]time.Time
	layout string // time layout of the rows; "json" for the JSON index
	hits   map[string]int
	// closeEach: every response closes its connection (a server that
	// does not pipeline).
	closeEach bool
}

func (s *indexServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hits[r.URL.Path]++
	if s.closeEach {
		w.Header().Set("Connection", "close")
	}
	if r.URL.Path == "/" {
		s.index(w)
		return
	}
	b, ok := s.files[strings.TrimPrefix(r.URL.Path, "/")]
	if !ok {
		http.NotFound(w, r)
		return
	}
	http.ServeContent(w, r, r.URL.Path, s.mtime[strings.TrimPrefix(r.URL.Path, "/")], strings.NewReader(string(b)))
}

func (s *indexServer) index(w http.ResponseWriter) {
	names := make([]string, 0, len(s.files))
	for n := range s.files {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	if s.layout == "json" {
		w.Header().Set("Content-Type", "application/json")
		b.WriteString("[")
		for i, n := range names {
			if i > 0 {
				b.WriteString(",\n")
			}
			fmt.Fprintf(&b, `{ "name":%q, "type":"file", "mtime":%q, "size":%d }`, n, s.mtime[n].Format(http.TimeFormat), len(s.files[n]))
		}
		b.WriteString("]\n")
		w.Write([]byte(b.String()))
		return
	}
	w.Header().Set("Content-Type", "text/html")
	b.WriteString("<html><body><pre><a href=\"../\">../</a>\n")
	for _, n := range names {
		fmt.Fprintf(&b, "<a href=\"%s\">%s</a>%30s %19d\n", n, n, s.mtime[n].Format(s.layout), len(s.files[n]))
	}
	b.WriteString("</pre></body></html>\n")
	w.Write([]byte(b.String()))
}

// fileHits is the number of requests for files (not the index).
func (s *indexServer) fileHits() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for p, c := range s.hits {
		if p != "/" {
			n += c
		}
	}
	clear(s.hits)
	return n
}

// A re-run of an unchanged tree whose index shows each file's size in
// bytes and time to the second asks for no file; one whose index shows
// minutes asks for every file on condition; a file whose listed size
// differs is fetched.
func TestMirrorHTTPExactIndex(t *testing.T) {
	for _, c := range []struct {
		layout    string
		unchanged int // file requests of a re-run of the unchanged tree
	}{
		{"02-Jan-2006 15:04:05", 0},
		{"json", 0},
		{"02-Jan-2006 15:04", 3}, // minutes: each file on condition
	} {
		t.Run(c.layout, func(t *testing.T) {
			at := time.Date(2026, 11, 29, 6, 50, 52, 0, time.UTC)
			s := &indexServer{layout: c.layout, hits: map[string]int{},
				files: map[string][]byte{"a.txt": []byte("alpha\n"), "b.txt": []byte("beta\n"), "c.txt": []byte("gamma\n")},
				mtime: map[string]time.Time{"a.txt": at, "b.txt": at, "c.txt": at}}
			srv := httptest.NewServer(s)
			defer srv.Close()
			f := drivers{"http": &fetchhttp.Driver{}}
			start := uri.MustParse(srv.URL + "/")
			dir := t.TempDir()
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			opts := Options{Jobs: 2, Request: proto.Request{IdleTimeout: 10 * time.Second}}
			if sum, err := Run(ctx, f, start, dir, opts); err != nil || sum.New != 3 {
				t.Fatalf("first run: %v, %+v", err, sum)
			}
			if n := s.fileHits(); n != 3 {
				t.Fatalf("first run: %d file requests, want 3", n)
			}
			if sum, err := Run(ctx, f, start, dir, opts); err != nil || sum.Unchanged != 3 {
				t.Fatalf("re-run: %v, %+v", err, sum)
			}
			if n := s.fileHits(); n != c.unchanged {
				t.Errorf("re-run of an unchanged tree: %d file requests, want %d", n, c.unchanged)
			}

			if c.unchanged > 0 {
				return // a conditional request cannot tell a size changed within the second
			}
			// The same second, another size: fetched.
			s.mu.Lock()
			s.files["b.txt"] = []byte("beta, longer\n")
			s.mu.Unlock()
			if sum, err := Run(ctx, f, start, dir, opts); err != nil || sum.Updated != 1 {
				t.Fatalf("after a change of size: %v, %+v", err, sum)
			}
			if got, _ := os.ReadFile(filepath.Join(dir, "b.txt")); string(got) != "beta, longer\n" {
				t.Errorf("b.txt = %q", got)
			}
		})
	}
}
