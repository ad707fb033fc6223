package mirror

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// fakeGopher serves menus (by selector) and documents; it records the URLs
// of documents fetched.
type fakeGopher struct {
	mu      sync.Mutex
	menus   map[string][]proto.Entry
	docs    map[string]string
	fetched []string
	raw     []bool
}

func gitem(t, display, sel, host string) proto.Entry {
	return proto.Entry{Name: display, ItemType: t, URL: "gopher://" + host + "/" + t + uri.Escape(sel, "/"), Extra: map[string]string{"selector": sel}}
}

func (g *fakeGopher) Fetch(ctx context.Context, u *uri.URL, req *proto.Request) (*proto.Response, error) {
	v, err := u.Gopher()
	if err != nil {
		return nil, err
	}
	if v.Type == "1" {
		es, ok := g.menus[v.Selector]
		if !ok {
			return nil, proto.ErrNotFound
		}
		return &proto.Response{Kind: proto.KindDirectory, Body: io.NopCloser(strings.NewReader("menu " + v.Selector + "\r\n")), Entries: es, Size: -1}, nil
	}
	d, ok := g.docs[v.Selector]
	if !ok {
		return nil, proto.ErrNotFound
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.fetched = append(g.fetched, v.Selector)
	g.raw = append(g.raw, req.Raw)
	return &proto.Response{Kind: proto.KindData, Body: io.NopCloser(strings.NewReader(d)), Size: -1}, nil
}

func TestMirrorGopherHole(t *testing.T) {
	const h = "127.0.0.1:7070"
	g := &fakeGopher{
		menus: map[string][]proto.Entry{
			"/hole": {
				{Name: "Welcome", ItemType: "i"},
				gitem("0", "About", "/hole/about.txt", h),
				gitem("1", "Sub", "/hole/sub", h),
				gitem("9", "Binary", "/hole/sub/../../etc/passwd", h),
				gitem("0", "Elsewhere", "/hole/x.txt", "other.example:70"),
				gitem("0", "Above", "/outside.txt", h),
				gitem("0", "Sibling", "/holes/x.txt", h),
				gitem("7", "Search", "/hole/search", h),
			},
			"/hole/sub": {
				gitem("9", "Data", "/hole/sub/data.bin", h),
				gitem("1", "Back up", "/hole", h),
			},
		},
		docs: map[string]string{"/hole/about.txt": "about\r\n", "/hole/sub/data.bin": "\x00\x01\x02"},
	}
	dir := t.TempDir()
	s := mustRun(t, g, "gopher://"+h+"/1/hole", dir, Options{Jobs: 2})
	if s.New != 2 || s.Failed != 0 {
		t.Fatalf("summary = %+v", s)
	}
	for rel, want := range map[string]string{"about.txt": "about\r\n", "sub/data.bin": "\x00\x01\x02", "gophermap": "menu /hole\r\n", "sub/gophermap": "menu /hole/sub\r\n"} {
		got, err := os.ReadFile(filepath.Join(dir, rel))
		if err != nil || string(got) != want {
			t.Errorf("%s = %q, %v; want %q", rel, got, err, want)
		}
	}
	// A text is read as RFC 1436 text (its "." line and doubled dots
	// are not the document's: gopher.NewTextReader); a binary as the
	// bytes until the close.
	for i, sel := range g.fetched {
		if want := !strings.HasSuffix(sel, ".txt"); g.raw[i] != want {
			t.Errorf("%s fetched with Raw %v, want %v", sel, g.raw[i], want)
		}
	}
	var skipped int
	for _, e := range s.Entries {
		if e.Status == StatusSkipped {
			skipped++
		}
	}
	// traversal, other server, above, sibling prefix, search, and the menu
	// that points back up (not below the start).
	if skipped != 6 {
		t.Errorf("skipped %d entries, want 6: %+v", skipped, s.Entries)
	}
}

// fakeHTTP serves an autoindex-like tree.
type fakeHTTP struct {
	mu    sync.Mutex
	pages map[string]string
	reqs  []string
}

func (f *fakeHTTP) Fetch(ctx context.Context, u *uri.URL, req *proto.Request) (*proto.Response, error) {
	f.mu.Lock()
	f.reqs = append(f.reqs, u.Path)
	f.mu.Unlock()
	p, ok := f.pages[u.Path]
	if !ok {
		return nil, proto.ErrNotFound
	}
	return &proto.Response{Kind: proto.KindData, Body: io.NopCloser(strings.NewReader(p)), Size: int64(len(p)), ModTime: t0}, nil
}

func TestMirrorHTTPIndex(t *testing.T) {
	f := &fakeHTTP{pages: map[string]string{
		"/pub/": `<html><body><a href="../">../</a><a href="a.txt">a.txt</a>
<a href="with%20space.txt">with space</a><a href="sub/">sub/</a>
<a href="?C=N;O=D">sort</a><a href="http://other.example/x">x</a>
<a href="/elsewhere/y">y</a><a href="sub/%2e%2e/%2e%2e/z">z</a></body></html>`,
		"/pub/a.txt":            "A",
		"/pub/with%20space.txt": "S",
		"/pub/sub/":             `<a href="b.bin">b</a><a href="/pub/a.txt">again</a>`,
		"/pub/sub/b.bin":        "B",
	}}
	dir := t.TempDir()
	s := mustRun(t, f, "http://127.0.0.1:8080/pub/", dir, Options{Jobs: 1})
	if s.New != 3 {
		t.Fatalf("summary = %+v, want 3 new", s)
	}
	for rel, want := range map[string]string{"a.txt": "A", "with space.txt": "S", "sub/b.bin": "B"} {
		if got, err := os.ReadFile(filepath.Join(dir, rel)); err != nil || string(got) != want {
			t.Errorf("%s = %q, %v", rel, got, err)
		}
	}
	// A re-run compares size and Last-Modified and writes nothing.
	s = mustRun(t, f, "http://127.0.0.1:8080/pub/", dir, Options{Jobs: 1})
	if s.Unchanged != 3 {
		t.Errorf("re-run: %+v, want 3 unchanged", s)
	}
}

func TestLinks(t *testing.T) {
	got, base := links([]byte(`<a href="x">1</a><A HREF='y&amp;z'>2 <b>&amp;</b> 3</A><a name=n>3</a><link href="css"><a href=" w "><base href="b/"><base href="c/">` +
		`<a href="v">no end<a href="u">u</a> after<a href="t"/>not t's`))
	want := []link{{"x", "1", ""}, {"y&z", "2 & 3", ""}, {" w ", "", ""}, {"v", "no end", ""}, {"u", "u", "  after"}, {"t", "", ""}}
	if !slices.Equal(got, want) || base != "b/" {
		t.Errorf("links = %q, base %q; want %q, base b/", got, base, want)
	}
}
