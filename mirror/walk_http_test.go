package mirror

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// parseIndex lists one index page with the HTTP walker started at root;
// the page is the directory rel below it.
func parseIndex(t testing.TB, root, rel string, page []byte) *listing {
	t.Helper()
	start := uri.MustParse(root)
	w, err := newHTTPWalker(start)
	if err != nil {
		t.Fatal(err)
	}
	d := dirJob{rel: rel, url: w.startURL()}
	if rel != "" {
		d.url = withPath(start, strings.TrimSuffix(start.Path, "/")+"/"+uri.Escape(rel, "/")+"/")
	}
	l, err := w.list(context.Background(), pageFetcher(page), &proto.Request{}, d)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// entryNames renders a listing as its relative paths, directories with a
// final "/", and skipped entries as "skip:" and the quoted path, in
// document order.
func entryNames(l *listing) []string {
	var out []string
	for _, d := range l.dirs {
		out = append(out, d.rel+"/")
	}
	for _, f := range l.files {
		out = append(out, f.rel)
	}
	for _, s := range l.skipped {
		out = append(out, "skip:"+s.Path)
	}
	return out
}

// tricky is what every captured root page lists (testdata/httpindex/README.md).
var tricky = []string{
	"100%.txt", "<lt>.txt", "a&b.txt", "a:b.txt", "café.txt", "dir with space/",
	"hash#sign.txt", "it's.txt", "plus+sign.txt", `quo"te.txt`, "semi;colon.txt",
	"sub/", "with space.txt", "x?y.txt",
}

// slashless is tricky as a page that links directories without a final
// "/" lists it.
var slashless = replaceNames(tricky, map[string]string{"dir with space/": "dir with space", "sub/": "sub"})

// yaws is tricky as Yaws 2.1.1 lists it.
var yaws = append(replaceNames(tricky, map[string]string{"café.txt": "caf\xe9.txt"}), "all.zip")

func replaceNames(names []string, repl map[string]string) []string {
	out := slices.Clone(names)
	for i, n := range out {
		if r, ok := repl[n]; ok {
			out[i] = r
		}
	}
	return out
}

// TestIndexPages reads the index pages of real servers
// (testdata/httpindex/README.md says which and how they were made): every
// name of the tree, decoded, with its type from the trailing "/" of the
// link, and nothing else (no parent, sort or icon link, no entry twice).
func TestIndexPages(t *testing.T) {
	for _, c := range []struct {
		file, root, rel string
		want            []string
	}{
		{"apache-2.4.71-fancy.html", "http://127.0.0.1:8080/fancy/", "", tricky},
		{"apache-2.4.71-fancy-sub.html", "http://127.0.0.1:8080/fancy/", "sub", []string{"sub/inner.txt"}},
		{"apache-2.4.71-table.html", "http://127.0.0.1:8080/table/", "", tricky},
		{"apache-2.4.71-table-sub.html", "http://127.0.0.1:8080/table/", "sub", []string{"sub/inner.txt"}},
		{"apache-2.4.71-plain.html", "http://127.0.0.1:8080/plain/", "", tricky},
		{"apache-2.4.71-plain-sub.html", "http://127.0.0.1:8080/plain/", "sub", []string{"sub/inner.txt"}},
		{"lighttpd-1.4.69.html", "http://127.0.0.1:8080/pub/", "", tricky},
		{"lighttpd-1.4.69-sub.html", "http://127.0.0.1:8080/pub/", "sub", []string{"sub/inner.txt"}},
		{"nginx-1.22.1.html", "http://127.0.0.1:8080/pub/", "", tricky},
		{"nginx-1.22.1-sub.html", "http://127.0.0.1:8080/pub/", "sub", []string{"sub/inner.txt"}},
		{"python-3.11.2-http.server.html", "http://127.0.0.1:8080/pub/", "", tricky},
		{"python-3.11.2-http.server-sub.html", "http://127.0.0.1:8080/pub/", "sub", []string{"sub/inner.txt"}},
		{"iis-style.html", "http://127.0.0.1:8080/pub/", "", tricky},
		{"iis-style-sub.html", "http://127.0.0.1:8080/pub/", "sub", []string{"sub/inner.txt"}},
		// webfs writes "a:b.txt" as the href, unescaped: a URL of the
		// scheme "a" to a browser, the file a:b.txt to the page.
		{"webfs-1.21.html", "http://127.0.0.1:8080/pub/", "", tricky},
		{"webfs-1.21-sub.html", "http://127.0.0.1:8080/pub/", "sub", []string{"sub/inner.txt"}},
		// mini_httpd and micro_httpd link a directory without its
		// final "/": the page alone makes it a file, the server's
		// redirect a directory (TestHTTPRedirected).
		{"mini_httpd-1.30.html", "http://127.0.0.1:8080/pub/", "", slashless},
		{"mini_httpd-1.30-sub.html", "http://127.0.0.1:8080/pub/", "sub", []string{"sub/inner.txt"}},
		{"micro_httpd-20140814.html", "http://127.0.0.1:8080/pub/", "", slashless},
		{"micro_httpd-20140814-sub.html", "http://127.0.0.1:8080/pub/", "sub", []string{"sub/inner.txt"}},
		{"merecat-2.32-rc4.html", "http://127.0.0.1:8080/pub/", "", tricky},
		{"merecat-2.32-rc4-sub.html", "http://127.0.0.1:8080/pub/", "sub", []string{"sub/inner.txt"}},
		// Yaws links a zip of the directory it makes on request, and
		// the UTF-8 name café.txt in Latin-1 (caf%E9.txt; it serves the
		// file at that address).
		{"yaws-2.1.1.html", "http://127.0.0.1:8080/pub/", "", yaws},
		{"yaws-2.1.1-sub.html", "http://127.0.0.1:8080/pub/", "sub", []string{"sub/all.zip", "sub/inner.txt"}},
		// The same pages mirrored from one level up: the root page's
		// links are then one directory down.
		{"nginx-1.22.1-sub.html", "http://127.0.0.1:8080/", "pub/sub", []string{"pub/sub/inner.txt"}},
		{"iis-style-sub.html", "http://127.0.0.1:8080/", "pub/sub", []string{"pub/sub/inner.txt"}},
	} {
		t.Run(c.file+"@"+c.root+c.rel, func(t *testing.T) {
			page, err := os.ReadFile(filepath.Join("testdata", "httpindex", c.file))
			if err != nil {
				t.Fatal(err)
			}
			l := parseIndex(t, c.root, c.rel, page)
			got := entryNames(l)
			slices.Sort(got)
			want := asLocal(c.want)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("entries:\n got %q\nwant %q", got, want)
			}
			start := uri.MustParse(c.root)
			for _, u := range urlsOf(l) {
				if !sameServer(start, u) || !strings.HasPrefix(u.Path, start.Path) || u.RawQuery != "" {
					t.Errorf("entry URL %s is not below %s", u, start)
				}
			}
		})
	}
}

// TestIndexPageURLs: an entry is fetched at the URL the page names, with
// the server's own escapes, so that the server finds the file.
func TestIndexPageURLs(t *testing.T) {
	page, err := os.ReadFile(filepath.Join("testdata", "httpindex", "apache-2.4.71-fancy.html"))
	if err != nil {
		t.Fatal(err)
	}
	l := parseIndex(t, "http://127.0.0.1:8080/fancy/", "", page)
	want := map[string]string{
		"café.txt": "/fancy/caf%c3%a9.txt",
		"x?y.txt":  "/fancy/x%3fy.txt",
		"100%.txt": "/fancy/100%25.txt",
		"a&b.txt":  "/fancy/a&b.txt",
		"a:b.txt":  "/fancy/a:b.txt",
	}
	for _, f := range l.files {
		if p, ok := want[f.rel]; ok {
			if f.url().Path != p || f.url().Host != "127.0.0.1" || f.url().Port != "8080" {
				t.Errorf("%s: URL %s, want path %s on 127.0.0.1:8080", f.rel, f.url(), p)
			}
			delete(want, f.rel)
		}
	}
	// Names that cannot be local names are reported with the URL.
	for _, s := range l.skipped {
		rel, err := strconv.Unquote(s.Path)
		if p, ok := want[rel]; ok && err == nil {
			if s.URL != "http://127.0.0.1:8080"+p {
				t.Errorf("%s: URL %s, want path %s on 127.0.0.1:8080", rel, s.URL, p)
			}
			delete(want, rel)
		}
	}
	if len(want) != 0 {
		t.Errorf("not listed: %v", want)
	}
}

// asLocal is the entryNames of a listing whose entries are names: each
// one that cannot be a local name (checkLocal: a colon, a question mark)
// is reported, quoted.
func asLocal(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = n
		if strings.HasPrefix(n, "skip:") {
			continue
		}
		rel := strings.TrimSuffix(n, "/")
		for _, part := range strings.Split(rel, "/") {
			if checkLocal(part) != nil {
				out[i] = "skip:" + quoteName(rel)
			}
		}
	}
	return out
}

// asLocalLine is asLocal of the one entry of a listing ("" for none).
func asLocalLine(name string) string {
	if name == "" {
		return ""
	}
	return asLocal([]string{name})[0]
}

// TestIndexLinks: the rules for one link of a page at
// http://127.0.0.1:8080/pub/dir/ mirrored from /pub/. Sources: RFC 3986
// section 5 (resolution), section 2.1 (percent-encoding); HTML Living
// Standard 13.1.4 (character references in attribute values) and 4.2.3
// (the base element); WHATWG URL Standard, basic URL parser (tabs and
// newlines removed, leading and trailing C0 controls and spaces trimmed, a
// "%" without two hex digits kept as a percent sign).
func TestIndexLinks(t *testing.T) {
	const root = "http://127.0.0.1:8080/pub/"
	for _, c := range []struct {
		href string // the attribute as written in the page
		want string // entryNames of the listing, "" for nothing
	}{
		{`a.txt`, "dir/a.txt"},
		{`sub/`, "dir/sub/"},
		{`sub`, "dir/sub"}, // no "/": a file (RFC 3986 gives no other clue)
		{`a%26b.txt`, "dir/a&b.txt"},
		{`a&amp;b.txt`, "dir/a&b.txt"},
		{`a&#38;b.txt`, "dir/a&b.txt"},
		{`a&#x26;b.txt`, "dir/a&b.txt"},
		{`caf%C3%A9.txt`, "dir/café.txt"},
		// Names in another charset than UTF-8 (nginx and Apache escape
		// the bytes of a Latin-1 name so): the bytes, as lftp and wget
		// keep them.
		{`caf%E9.txt`, "dir/caf\xe9.txt"},
		{`%83e%83X%83g.txt`, "dir/\x83e\x83X\x83g.txt"},
		{`na%EFve%FF/`, "dir/na\xefve\xff/"},
		{"caf\xe9-raw.txt", "dir/caf\xe9-raw.txt"}, // a Latin-1 page that does not escape it
		{`caf%c3%a9.txt`, "dir/café.txt"},
		{`café.txt`, "dir/café.txt"},
		{`x%3Fy.txt`, "dir/x?y.txt"},
		{`100%25.txt`, "dir/100%.txt"},
		{`100%.txt`, "dir/100%.txt"}, // a bare "%" is a percent sign
		{`50%2.txt`, "dir/50%2.txt"}, // so is one with a single hex digit
		{`with space.txt`, "dir/with space.txt"},
		{`with%20space.txt`, "dir/with space.txt"},
		{`hash%23sign.txt`, "dir/hash#sign.txt"},
		{`./a:b.txt`, "dir/a:b.txt"},
		{`a%3Ab.txt`, "dir/a:b.txt"},
		{` a.txt `, "dir/a.txt"},
		{"a\n.t\txt", "dir/a.txt"},
		{`/pub/dir/abs.txt`, "dir/abs.txt"},
		{`/pub/other/x.txt`, "other/x.txt"}, // below the root, in another directory
		{`/p%75b/dir/enc.txt`, "dir/enc.txt"},
		{`/pub/dir/deep/er/`, "dir/deep/er/"},
		{`http://127.0.0.1:8080/pub/dir/full.txt`, "dir/full.txt"},
		{`HTTP://127.0.0.1:8080/pub/dir/full.txt`, "dir/full.txt"},
		{`//127.0.0.1:8080/pub/dir/net.txt`, "dir/net.txt"},
		{`a.txt#frag`, "dir/a.txt"},
		// Not entries.
		{``, ""},
		{`./`, ""},
		{`.`, ""},
		{`../`, ""},
		{`..`, ""},
		{`/pub/`, ""},
		{`/pub/dir/`, ""},
		{`/`, ""},
		{`/elsewhere/x.txt`, ""},
		{`/pubx/x.txt`, ""},
		{`../../x.txt`, ""},
		{`?C=N;O=D`, ""},
		{`?C=M;O=A`, ""},
		{`a.php?file=x`, ""},
		{`a.txt?`, ""},
		{`#top`, ""},
		{`mailto:root@127.0.0.1`, ""},
		{`javascript:void(0)`, ""},
		{`ftp://127.0.0.1:8080/pub/dir/x`, ""},
		{`https://127.0.0.1:8080/pub/dir/x`, ""},
		{`http://127.0.0.1:8081/pub/dir/x`, ""},
		{`http://other.example/pub/dir/x`, ""},
		{`http://[::1`, ""},
		// Entries whose name cannot be a local name: reported.
		{`%2e%2e/x`, `skip:"dir/../x"`},
		{`a%2Fb`, `skip:"dir/a/b"`},
		{`a%5Cb`, `skip:"dir/a\\b"`},
		{`a%00b`, `skip:"dir/a\x00b"`},
		{`a%01b`, `skip:"dir/a\x01b"`},
		{"a\x01b", `skip:"dir/a\x01b"`},
		{`x//y`, `skip:"dir/x//y"`},
		{`/pub/.fetch/manifest.json`, `skip:".fetch/manifest.json"`},
	} {
		page := `<html><body><a href="` + strings.ReplaceAll(c.href, `"`, "&quot;") + `">x</a></body></html>`
		got := strings.Join(entryNames(parseIndex(t, root, "dir", []byte(page))), " ")
		if c.want = asLocalLine(c.want); got != c.want {
			t.Errorf("href %q: entries %q, want %q", c.href, got, c.want)
		}
	}
}

// TestIndexReasons: a skipped link says why, with the name check's error.
func TestIndexReasons(t *testing.T) {
	for href, want := range map[string]error{
		"%2e%2e/x": errNameDot,
		"a%2Fb":    errNameSlash,
		"a%00b":    errNameControl,
		"x//y":     errNameEmpty,
	} {
		l := parseIndex(t, "http://127.0.0.1:8080/", "", []byte(`<a href="`+href+`">x</a>`))
		if len(l.skipped) != 1 || len(l.files)+len(l.dirs) != 0 {
			t.Errorf("%q: %q, want one skipped entry", href, entryNames(l))
			continue
		}
		if r := l.skipped[0].Reason; r != want.Error() || l.skipped[0].Status != StatusSkipped {
			t.Errorf("%q: reason %q, want %q", href, r, want)
		}
	}
}

// TestIndexOnce: a page that links an entry twice (Apache's IconsAreLinks,
// or two spellings of one name) lists it once, at its first link.
func TestIndexOnce(t *testing.T) {
	page := `<a href="a%26b.txt">i</a><a href="a&amp;b.txt">n</a><a href="/d/a%26b.txt">abs</a>
<a href="s/">i</a><a href="s/">n</a><a href="./s/">again</a><a href="%2e%2e">bad</a><a href="..%2F">bad</a><a href="%2E%2E">bad</a>`
	l := parseIndex(t, "http://127.0.0.1:8080/d/", "", []byte(page))
	got := strings.Join(entryNames(l), " ")
	if want := `s/ a&b.txt skip:".." skip:"../"`; got != want {
		t.Errorf("entries %q, want %q", got, want)
	}
	if len(l.files) == 1 && l.files[0].url().Path != "/d/a%26b.txt" {
		t.Errorf("a&b.txt at %s, want the first link's /d/a%%26b.txt", l.files[0].url())
	}
}

// TestIndexBase: links are relative to the page's <base href> when it has
// one (HTML Living Standard 4.2.3: the first base element with an href).
func TestIndexBase(t *testing.T) {
	page := `<head><base href="/pub/other/"><base href="/nowhere/"></head><a href="x.txt">x</a><a href="/pub/dir/y.txt">y</a>`
	got := strings.Join(entryNames(parseIndex(t, "http://127.0.0.1:8080/pub/", "dir", []byte(page))), " ")
	if want := "other/x.txt dir/y.txt"; got != want {
		t.Errorf("entries %q, want %q", got, want)
	}
}

// TestIndexNotLinks: only the href of <a> elements names entries: not
// scripts, comments, other elements or other attributes.
func TestIndexNotLinks(t *testing.T) {
	page := `<script>var s = '<a href="js.txt">';</script><!-- <a href="comment.txt"> -->
<img src="img.txt"><link href="style.css"><a name="n.txt"><area href="area.txt"><A HREF="yes.txt" href="no.txt">`
	got := strings.Join(entryNames(parseIndex(t, "http://127.0.0.1:8080/", "", []byte(page))), " ")
	if got != "yes.txt" {
		t.Errorf("entries %q, want only yes.txt", got)
	}
}

// TestIndexUserinfo: an entry is fetched with the starting URL's user
// information, never with one a page puts in a link.
func TestIndexUserinfo(t *testing.T) {
	page := `<a href="http://evil:pw@127.0.0.1:8080/pub/u.txt">u</a><a href="v.txt">v</a>`
	for _, root := range []string{"http://127.0.0.1:8080/pub/", "http://me:secret@127.0.0.1:8080/pub/"} {
		want := uri.MustParse(root).User
		l := parseIndex(t, root, "", []byte(page))
		if got := strings.Join(entryNames(l), " "); got != "u.txt v.txt" {
			t.Fatalf("%s: entries %q", root, got)
		}
		for _, f := range l.files {
			if (f.url().User == nil) != (want == nil) {
				t.Errorf("%s: %s fetched with user info %v, want %v", uri.MustParse(root).Redacted(), f.rel, f.url().User != nil, want != nil)
				continue
			}
			if want != nil && f.url().User != want && f.url().User.Username() != want.Username() {
				t.Errorf("%s: %s fetched as user %q", uri.MustParse(root).Redacted(), f.rel, f.url().User.Username())
			}
		}
	}
}

// TestHTTPWalkerRoot: the starting path's escapes are decoded before links
// are compared with it, so that /caf%C3%A9/ and /caf%c3%a9/ are one root.
func TestHTTPWalkerRoot(t *testing.T) {
	l := parseIndex(t, "http://127.0.0.1:8080/caf%C3%A9/", "", []byte(`<a href="/caf%c3%a9/x.txt">x</a><a href="/café/y.txt">y</a>`))
	if got := strings.Join(entryNames(l), " "); got != "x.txt y.txt" {
		t.Errorf("entries %q, want x.txt y.txt", got)
	}
	if _, err := newHTTPWalker(&uri.URL{Scheme: "http", Host: "127.0.0.1", Path: "/bad%zz/"}); err == nil {
		t.Error("newHTTPWalker accepted a path with a bad escape")
	}
}

// TestRepairHref checks the href clean-up on its own.
func TestRepairHref(t *testing.T) {
	for in, want := range map[string]string{
		"a.txt":        "a.txt",
		"  a.txt\n":    "a.txt",
		"a\tb\r\nc":    "abc",
		"100%.txt":     "100%25.txt",
		"100%25.txt":   "100%25.txt",
		"%":            "%25",
		"%4":           "%254",
		"%4g":          "%254g",
		"a\x00b":       "a%00b",
		"a\x7fb":       "a%7Fb",
		"caf\u00e9":    "caf\u00e9",
		"\x01lead":     "lead",
		"%e2%82%ac%ZZ": "%e2%82%ac%25ZZ",
	} {
		if got := repairHref(in); got != want {
			t.Errorf("repairHref(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestHTTPRedirected: what a file link of an index page is when fetching
// it was redirected (mini_httpd 1.30 and micro_httpd link a directory as
// <a href="sub">, then answer 302 Location: /pub/sub/).
func TestHTTPRedirected(t *testing.T) {
	w, err := newHTTPWalker(uri.MustParse("http://127.0.0.1:8080/pub/"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		link, loc string
		want      string // "dir URL", "file" or "skip"
	}{
		{"/pub/sub", "http://127.0.0.1:8080/pub/sub/", "dir http://127.0.0.1:8080/pub/sub/"},
		{"/pub/sub", "/pub/sub/", "dir http://127.0.0.1:8080/pub/sub/"},
		{"/pub/dir%20with%20space", "http://127.0.0.1:8080/pub/dir with space/", "dir http://127.0.0.1:8080/pub/dir%20with%20space/"},
		{"/pub/caf%c3%a9", "http://127.0.0.1:8080/pub/caf%C3%A9/", "dir http://127.0.0.1:8080/pub/caf%c3%a9/"},
		{"/pub/a/b", "http://127.0.0.1:8080/pub/a/b/", "dir http://127.0.0.1:8080/pub/a/b/"},
		// A file elsewhere: the link's name, the target's bytes.
		{"/pub/latest.tar", "http://127.0.0.1:8080/pub/v1.2.tar", "file"},
		{"/pub/sub", "http://127.0.0.1:8080/pub/sub.html", "file"},
		// Another directory, another server, a query: not this entry.
		{"/pub/latest", "http://127.0.0.1:8080/pub/v1.2/", "skip"},
		{"/pub/sub", "http://127.0.0.1:8080/pub/", "skip"},
		{"/pub/sub", "http://127.0.0.1:8081/pub/sub/", "skip"},
		{"/pub/sub", "https://127.0.0.1:8080/pub/sub/", "skip"},
		{"/pub/sub", "http://127.0.0.1:8080/pub/sub/?C=N", "skip"},
		{"/pub/sub", "http://127.0.0.1:8080/pub/sub//", "skip"},
	} {
		rf := remoteFile{rel: "x", full: uri.MustParse("http://127.0.0.1:8080" + c.link), size: -1}
		start := uri.MustParse("http://127.0.0.1:8080/pub/")
		loc, err := uri.Resolve(start, uri.MustParse(c.loc), uri.RFC3986)
		if err != nil {
			t.Fatal(err)
		}
		d, isDir, why := w.redirected(rf, loc)
		got := "file"
		switch {
		case isDir && why == nil:
			got = "dir " + d.url.String()
			if d.rel != rf.rel {
				got += " rel " + d.rel
			}
		case why != nil && !isDir:
			got = "skip"
		case isDir:
			got = "dir and skip"
		}
		if got != c.want {
			t.Errorf("link %s redirected to %s: %s, want %s", c.link, c.loc, got, c.want)
		}
	}
}

// TestIndexSchemeNames: webfs 1.21 writes a name holding ":" into the
// href as it is (<a href="a:b.txt">a:b.txt</a>), which RFC 3986 section
// 4.2 reads as a URL of the scheme "a" (Apache writes "./a:b.txt" for
// that reason). A link whose text is its href, and whose scheme is none
// that a page links to, names the file; before, the file was left out
// without a word (wget and lftp leave it out too).
func TestIndexSchemeNames(t *testing.T) {
	for _, c := range []struct {
		href, text string
		want       string // entryNames of the listing
	}{
		{`a:b.txt`, `a:b.txt`, "dir/a:b.txt"},
		{`a:b.txt`, `  a:b.txt  `, "dir/a:b.txt"},
		{`a:b%20c.txt`, `a:b c.txt`, "dir/a:b c.txt"},
		{`a:b%20c.txt`, `a:b%20c.txt`, "dir/a:b c.txt"},
		{`c:dir/`, `c:dir/`, "dir/c:dir/"},
		{`x-y.z:1`, `x-y.z:1`, "dir/x-y.z:1"},
		// The text differs (a description, a name cut short): a URL.
		{`a:b.txt`, `a:b`, ""},
		{`a:b.txt`, `a:b.tx..&gt;`, ""},
		{`tel:+123`, `call us`, ""},
		// Schemes that pages link to, whatever the text.
		{`mailto:root@x`, `mailto:root@x`, ""},
		{`http:x.txt`, `http:x.txt`, ""},
		{`javascript:void(0)`, `javascript:void(0)`, ""},
		{`news:comp.lang.c`, `news:comp.lang.c`, ""},
		{`data:,x`, `data:,x`, ""},
		// An authority or a query is a URL's, not a name's.
		{`irc://127.0.0.1/c`, `irc://127.0.0.1/c`, ""},
		{`a:b?c`, `a:b?c`, ""},
	} {
		page := `<html><body><a href="` + strings.ReplaceAll(c.href, `"`, "&quot;") + `">` + c.text + `</a></body></html>`
		got := strings.Join(entryNames(parseIndex(t, "http://127.0.0.1:8080/pub/", "dir", []byte(page))), " ")
		if c.want = asLocalLine(c.want); got != c.want {
			t.Errorf("<a href=%q>%s</a>: entries %q, want %q", c.href, c.text, got, c.want)
		}
	}
}
