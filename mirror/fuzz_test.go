package mirror

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// checkListing fails when a walker put into l a path that could leave the
// target or a URL on another server or outside the starting point.
func checkListing(t *testing.T, start *uri.URL, l *listing) {
	t.Helper()
	check := func(rel string, u *uri.URL) {
		if err := checkRel(rel); err != nil {
			t.Fatalf("walker produced the path %q: %v", rel, err)
		}
		if !sameServer(start, u) {
			t.Fatalf("walker produced %s, on another server than %s", u.Redacted(), start.Redacted())
		}
	}
	for _, d := range l.dirs {
		check(d.rel, d.url)
	}
	for _, f := range l.files {
		check(f.rel, f.url())
	}
}

// listingFetcher answers every URL with one directory listing.
type listingFetcher struct{ entries []proto.Entry }

func (l listingFetcher) Fetch(ctx context.Context, u *uri.URL, req *proto.Request) (*proto.Response, error) {
	return &proto.Response{Kind: proto.KindDirectory, Body: io.NopCloser(strings.NewReader("")), Entries: l.entries, Size: -1}, nil
}

// FuzzFTPListing feeds the FTP walker one listed entry of any name, type
// and link target (RFC 959 leaves names to the server: they may hold any
// octet but CR LF): whatever it accepts stays inside the target.
func FuzzFTPListing(f *testing.F) {
	for _, s := range []struct {
		name, target string
		typ          int
	}{
		{"ok.txt", "", 0}, {"../escape", "", 0}, {"/etc/passwd", "", 0}, {"a/../../b", "", 1},
		{"cr\rname", "", 0}, {".fetch", "", 1}, {"etc", "/etc", 2}, {"up", "../../x", 2},
		{"in", "ok.txt", 2}, {"..", "", 1}, {"sub", "", 1}, {"nul\x00", "", 0}, {`back\slash`, "", 0},
	} {
		f.Add(s.name, s.target, s.typ, int64(3))
	}
	start := uri.MustParse("ftp://127.0.0.1:2121/pub/")
	f.Fuzz(func(t *testing.T, name, target string, typ int, size int64) {
		types := []proto.EntryType{proto.EntryFile, proto.EntryDir, proto.EntryLink, proto.EntryOther}
		e := proto.Entry{Name: name, Type: types[uint(typ)%uint(len(types))], Target: target, Size: size, ModTime: time.Unix(1e9, 0)}
		w, err := newFTPWalker(start)
		if err != nil {
			t.Fatal(err)
		}
		for _, rel := range []string{"", "sub"} {
			d := dirJob{rel: rel, url: withPath(start, start.Path+rel+"/")}
			if rel == "" {
				d.url = start
			}
			l, err := w.list(context.Background(), listingFetcher{[]proto.Entry{e}}, &proto.Request{}, d)
			if err != nil {
				t.Fatal(err)
			}
			checkListing(t, start, l)
		}
	})
}

// FuzzHTTPLinks feeds the HTTP walker an index page holding one link:
// every link it follows is on the starting server, below the starting
// path, with a checked local path.
func FuzzHTTPLinks(f *testing.F) {
	for _, s := range []string{"a.txt", "sub/", "../up/", "/etc/passwd", "http://other/x", "%2e%2e/x", "a%2Fb",
		"%00", "?C=N;O=D", "//127.0.0.1:8080/dir/x", "dir/%2e%2e/%2e%2e/x", "x%0d%0ay", ".fetch/m"} {
		f.Add(s)
	}
	start := uri.MustParse("http://127.0.0.1:8080/dir/")
	f.Fuzz(func(t *testing.T, href string) {
		w, _ := newHTTPWalker(start)
		page := []byte(`<html><body><a href="` + strings.ReplaceAll(href, `"`, "&quot;") + `">x</a></body></html>`)
		l, err := w.list(context.Background(), pageFetcher(page), &proto.Request{}, dirJob{url: start})
		if err != nil {
			t.Fatal(err)
		}
		checkListing(t, start, l)
		for _, u := range urlsOf(l) {
			if !strings.HasPrefix(u.Path, start.Path) {
				t.Fatalf("followed %s, not below %s", u.Redacted(), start.Path)
			}
		}
	})
}

type pageFetcher []byte

func (p pageFetcher) Fetch(ctx context.Context, u *uri.URL, req *proto.Request) (*proto.Response, error) {
	return &proto.Response{Kind: proto.KindData, Body: io.NopCloser(strings.NewReader(string(p))), Size: int64(len(p))}, nil
}

func urlsOf(l *listing) []*uri.URL {
	var out []*uri.URL
	for _, d := range l.dirs {
		out = append(out, d.url)
	}
	for _, f := range l.files {
		out = append(out, f.url())
	}
	return out
}

// FuzzGopherItem feeds the gopher walker one menu item of any type,
// selector, host and port (RFC 1436 section 3.8: a selector is any octets
// but TAB, CR and LF, and servers send worse): what it follows is on the
// starting server, below the starting selector, at a checked path.
func FuzzGopherItem(f *testing.F) {
	for _, s := range []struct{ typ, sel, host string }{
		{"0", "/hole/a.txt", "127.0.0.1:7070"}, {"1", "/hole/sub", "127.0.0.1:7070"}, {"0", "/hole/../etc/passwd", "127.0.0.1:7070"},
		{"0", "/other/x", "127.0.0.1:7070"}, {"9", "/hole/x.bin", "other:70"}, {"1", "/hole", "127.0.0.1:7070"},
		{"0", "/hole/gophermap", "127.0.0.1:7070"}, {"0", "/hole/.fetch/manifest.json", "127.0.0.1:7070"},
		{"h", "URL:http://x/", "127.0.0.1:7070"}, {"0", "/holex/y", "127.0.0.1:7070"}, {"0", "/hole//x", "127.0.0.1:7070"},
	} {
		f.Add(s.typ, s.sel, s.host, true)
	}
	start := uri.MustParse("gopher://127.0.0.1:7070/1/hole")
	f.Fuzz(func(t *testing.T, typ, sel, host string, plus bool) {
		if len(typ) != 1 {
			return
		}
		u, err := uri.Parse("gopher://" + host + "/" + uri.Escape(typ, "") + uri.Escape(sel, "/"))
		if err != nil {
			return
		}
		e := proto.Entry{Name: "item", ItemType: typ, URL: u.String()}
		if plus {
			e.Extra = map[string]string{"plus": "+"}
		}
		w, err := newGopherWalker(start)
		if err != nil {
			t.Fatal(err)
		}
		l := &listing{}
		l.addItem(w, e)
		checkListing(t, start, l)
		for _, d := range l.dirs {
			if v, err := d.url.Gopher(); err != nil || !strings.HasPrefix(v.Selector, "/hole/") {
				t.Fatalf("walks the menu %s, not below /hole", d.url.Redacted())
			}
		}
	})
}

// FuzzIndexPage feeds the HTTP walker whole index pages (seeded with the
// captured pages of testdata/httpindex) for the directory sub/ below
// http://127.0.0.1:8080/pub/. Whatever the page holds: no panic; every
// entry has a non-empty path of checked local names, once, whose URL's
// decoded path is the starting path and those names, with no query; every
// other link that is reported is reported as skipped with a reason; and a
// page parses the same way twice.
func FuzzIndexPage(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "httpindex", "*.html"))
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{
		`<a href="%2e%2e/x">`, `<a href="a%2Fb">`, `<a href="100%.txt">`, `<base href="/"><a href="x">`,
		`<a href="/pub/sub/../../etc/passwd">`, `<a href="x%00y">`, `<A HREF="/pub/.fetch/x">`,
		`<a href="?C=N;O=D">`, `<a href="http://127.0.0.1:8080/pub/sub/full/">`, `<a href="a&amp;b&#x2F;c">`,
	} {
		f.Add([]byte(s))
	}
	const root = "http://127.0.0.1:8080/pub/"
	start := uri.MustParse(root)
	rootSegs, _ := pathSegments(start.Path)
	f.Fuzz(func(t *testing.T, page []byte) {
		l := parseIndex(t, root, "sub", page)
		checkListing(t, start, l)
		// Each entry once; a file and a directory of one name are two,
		// which the mirror settles when it claims the path.
		seen := map[string]bool{}
		check := func(rel string, u *uri.URL, kind string) {
			if rel == "" || seen[rel+kind] {
				t.Fatalf("entry %q empty or listed twice", rel+kind)
			}
			seen[rel+kind] = true
			names := strings.Split(rel, "/")
			for _, n := range names {
				if err := checkName(n); err != nil {
					t.Fatalf("entry %q: name %q: %v", rel, n, err)
				}
			}
			segs, ok := pathSegments(u.Path)
			if !ok || !slices.Equal(segs, append(slices.Clone(rootSegs), names...)) {
				t.Fatalf("entry %q has the URL %s, whose path is %q", rel, u.Redacted(), segs)
			}
			if u.RawQuery != "" || u.ForceQuery || u.HasFragment {
				t.Fatalf("entry %q has the URL %s, with a query or fragment", rel, u.Redacted())
			}
		}
		for _, d := range l.dirs {
			check(d.rel, d.url, "/")
		}
		for _, rf := range l.files {
			check(rf.rel, rf.url(), "")
		}
		for _, s := range l.skipped {
			if s.Status != StatusSkipped && s.Status != StatusFailed || s.Reason == "" || s.Path == "" {
				t.Fatalf("skipped entry without a reason: %+v", s)
			}
		}
		again := parseIndex(t, root, "sub", page)
		if a, b := entryNames(l), entryNames(again); !slices.Equal(a, b) {
			t.Fatalf("two parses differ: %q and %q", a, b)
		}
		for i, u := range urlsOf(again) {
			if u.String() != urlsOf(l)[i].String() {
				t.Fatalf("two parses differ: %s and %s", urlsOf(l)[i], u)
			}
		}
	})
}
