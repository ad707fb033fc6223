package mirror

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"strings"

	"golang.org/x/net/html"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/proto/gopher"
	"github.com/rfc1738/fetch/uri"
)

// httpWalker follows an HTTP index page (an autoindex listing or any page
// of links): links below the starting path on the same host and port are
// walked (when they end in "/") or fetched.
type httpWalker struct {
	start *uri.URL
	root  []string // the starting path's segments, decoded
}

var _ dirLinker = (*httpWalker)(nil)

func newHTTPWalker(u *uri.URL) (*httpWalker, error) {
	if _, err := u.HTTP(); errors.Is(err, uri.ErrOtherScheme) {
		return nil, err
	}
	p := cmp.Or(u.Path, "/")
	if !strings.HasSuffix(p, "/") {
		p = p[:strings.LastIndexByte(p, '/')+1]
	}
	root, ok := pathSegments(p)
	if !ok {
		return nil, fmt.Errorf("mirror: the path %q has a bad escape", p)
	}
	return &httpWalker{start: withPath(u, p), root: root}, nil
}

func (w *httpWalker) startURL() *uri.URL { return w.start }

func (w *httpWalker) fileOptions(remoteFile) proto.Options { return proto.Options{} }

// redirected: a link that the server redirects to the same path with a
// final "/" is a directory (mini_httpd and micro_httpd link directories
// without it; RFC 9110 gives no other clue). A redirect to another
// directory (a "latest" that leads to "v1.2/") is skipped, with the
// target named: its index page is no file, and a tree below the start is
// walked from its own link. A redirect to anything else is a file, kept
// under the name of the link.
func (w *httpWalker) redirected(rf remoteFile, loc *uri.URL) (dirJob, bool, error) {
	if !strings.HasSuffix(loc.Path, "/") || loc.Opaque != "" {
		return dirJob{}, false, nil
	}
	got, ok := pathSegments(loc.Path)
	asked, _ := pathSegments(rf.url().Path)
	if ok && sameServer(w.start, loc) && loc.RawQuery == "" && !loc.ForceQuery && slices.Equal(got, asked) {
		return dirJob{rel: rf.rel, url: withPath(rf.url(), rf.url().Path+"/")}, true, nil
	}
	return dirJob{}, false, fmt.Errorf("the server redirects it to the directory %s", loc.Redacted())
}

func (w *httpWalker) list(ctx context.Context, f Fetcher, req *proto.Request, d dirJob) (*listing, error) {
	resp, body, err := fetchListing(ctx, f, req, d.url, true)
	if err != nil {
		return nil, err
	}
	l := w.page(d, resp.MediaType, body)
	// A page that came without a length may have ended at the close of
	// the connection, as a page cut there ends: Delete reads it again
	// before it removes anything below it (confirmMenus).
	sum := sha256.Sum256(body)
	l.menuEnd, l.listSum, l.listWhat = gopher.MenuEndLength, &sum, "index page"
	if resp.Size < 0 {
		l.menuEnd = gopher.MenuEndClose
	}
	return l, nil
}

// page returns the entries of d's index page body: nginx's JSON index,
// or the links of a page.
func (w *httpWalker) page(d dirJob, mediaType string, body []byte) *listing {
	if mediaType == "application/json" {
		if ls, ok := parseJSONIndex(body); ok {
			return w.linked(d, d.url, ls)
		}
	}
	return w.parsePage(d, body)
}

// parsePage turns the links of the index page of directory d into its
// entries, in document order, each once (a file and a directory of one
// name are two). An entry is a link on the
// starting server whose path lies below the starting path: a directory
// when the link's path ends in "/", a file otherwise. Links that are not
// entries are dropped without a word: the page's own directory and the
// ones above it (parent links, "[To Parent Directory]"), links with a
// query (the sort links "?C=N;O=D" of Apache) or only a fragment, other
// schemes (mailto:), other servers, and paths outside the starting path.
// A link below the starting path whose decoded name cannot be a local
// name ("..", "/", NUL, control characters, not UTF-8) is reported as
// skipped. A link that reads as a URL of a scheme no page links to, and
// whose text is its href (webfs writes the name a:b.txt so), is the name
// (see nameHref).
func (w *httpWalker) parsePage(d dirJob, page []byte) *listing {
	ls, baseRef := links(page)
	base := d.url
	if baseRef != "" {
		if ref, err := uri.Parse(repairHref(baseRef)); err == nil {
			if b, err := uri.Resolve(d.url, ref, uri.RFC3986); err == nil {
				base = b
			}
		}
	}
	return w.linked(d, base, ls)
}

// linked turns the links ls of directory d's index page, relative to
// base, into its entries (parsePage).
func (w *httpWalker) linked(d dirJob, base *uri.URL, ls []link) *listing {
	l := &listing{}
	seen := map[string]bool{}
	for _, a := range ls {
		href := a.href
		if nameHref(href, a.text) {
			href = "./" + href
		}
		e, ok := w.entry(base, href)
		key := e.rel // "a" and "a/" are two entries: the mirror decides (claim)
		if e.isDir {
			key += "/"
		}
		if !ok || seen[key] || e.rel == d.rel || strings.HasPrefix(d.rel, e.rel+"/") {
			continue
		}
		seen[key] = true
		switch {
		case e.err != nil:
			l.skip(quoteName(e.rel), e.rel, e.url, e.err)
		case e.isDir:
			l.dirs = append(l.dirs, dirJob{rel: e.rel, url: e.url})
		default:
			rf := remoteFile{rel: e.rel, full: e.url, size: -1}
			if size, mtime, ok := rowFacts(a.tail); ok {
				rf.size, rf.mtime = size, mtime
			}
			l.files = append(l.files, rf)
		}
	}
	return l
}

// indexEntry is one link of an index page that names something below the
// starting path. rel is the decoded path relative to the starting path;
// err, when set, says why rel cannot be a local path.
type indexEntry struct {
	rel   string
	url   *uri.URL
	isDir bool
	err   error
}

// entry resolves href against the page's base URL; ok is false when the
// link is not an entry of the tree at all.
func (w *httpWalker) entry(base *uri.URL, href string) (indexEntry, bool) {
	href = repairHref(href)
	if href == "" || href[0] == '#' {
		return indexEntry{}, false
	}
	ref, err := uri.Parse(href)
	if err != nil {
		return indexEntry{}, false
	}
	u, err := uri.Resolve(base, ref, uri.RFC3986)
	if err != nil || u.Opaque != "" || u.RawQuery != "" || u.ForceQuery || !sameServer(w.start, u) {
		return indexEntry{}, false
	}
	segs, ok := pathSegments(u.Path)
	if !ok || len(segs) <= len(w.root) || !slices.Equal(segs[:len(w.root)], w.root) {
		return indexEntry{}, false
	}
	names := segs[len(w.root):]
	e := indexEntry{
		rel:   strings.Join(names, "/"),
		url:   withPath(w.start, u.Path), // the start's user info, not the page's
		isDir: strings.HasSuffix(u.Path, "/"),
	}
	// Each decoded segment is one name: "a%2Fb" is not a directory a.
	for _, n := range names {
		if e.err = checkName(n); e.err != nil {
			return e, true
		}
	}
	e.err = checkRel(e.rel)
	return e, true
}

// nameHref reports whether href, which RFC 3986 reads as a URL of some
// scheme ("a:b.txt"), is the name of an entry written as it is: the
// link's text is the href (as written or decoded), the scheme is none a
// page links to (uri.LinkScheme), and there is no authority ("//") or query. Index pages
// show each name as its link's text; webfs 1.21 writes a name that holds
// ":" unescaped into the href.
func nameHref(href, text string) bool {
	href = repairHref(href)
	i := strings.IndexByte(href, ':')
	if i <= 0 || strings.ContainsAny(href, "?#") || strings.HasPrefix(href[i+1:], "//") {
		return false
	}
	ref, err := uri.Parse(href)
	if err != nil || ref.Scheme == "" || uri.LinkScheme(ref.Scheme) {
		return false
	}
	text = strings.TrimFunc(text, func(r rune) bool { return r <= ' ' })
	if text == href {
		return true
	}
	dec, err := uri.Unescape(href)
	return err == nil && text == dec
}

// pathSegments splits an escaped absolute path into its decoded segments,
// without the empty one after a final "/". ok is false on a bad escape.
func pathSegments(p string) ([]string, bool) {
	p = strings.TrimPrefix(p, "/")
	p = strings.TrimSuffix(p, "/")
	if p == "" {
		return nil, true
	}
	parts := strings.Split(p, "/")
	for i, s := range parts {
		d, err := uri.Unescape(s)
		if err != nil {
			return nil, false
		}
		parts[i] = d
	}
	return parts, true
}

// repairHref reads an href the way browsers and wget do (WHATWG URL
// Standard, "basic URL parser"): leading and trailing spaces and controls
// go, and so do tabs and newlines inside; a "%" that does not start an
// escape is a literal percent sign ("100%.txt" names the file 100%.txt),
// so it is written "%25". Other control characters are escaped, so that
// a name holding one is reported by the name check, not dropped unseen.
func repairHref(href string) string {
	href = strings.TrimFunc(href, func(r rune) bool { return r <= ' ' })
	var b strings.Builder
	for i := 0; i < len(href); i++ {
		c := href[i]
		switch {
		case c == '\t' || c == '\n' || c == '\r':
		case c == '%' && (i+2 >= len(href) || !isHexDigit(href[i+1]) || !isHexDigit(href[i+2])):
			b.WriteString("%25")
		case c < 0x20 || c == 0x7f:
			b.WriteByte('%')
			b.WriteByte("0123456789ABCDEF"[c>>4])
			b.WriteByte("0123456789ABCDEF"[c&15])
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func isHexDigit(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// link is one <a> element of a page: its href, its text and the text
// that follows it up to the next link (an index page's row: the time and
// size, see rowFacts), entities decoded.
type link struct {
	href, text, tail string
}

// tailMax bounds the text kept after a link: an index row's facts are
// within a few dozen bytes of its link.
const tailMax = 256

// addText adds text to the text of link in, or else to the tail of link
// after (up to tailMax); -1 is no link.
func addText(ls []link, in, after int, text []byte) {
	switch {
	case in >= 0:
		ls[in].text += string(text)
	case after >= 0 && len(ls[after].tail) < tailMax:
		ls[after].tail += " " + string(text)
	}
}

// links returns the <a> elements of an HTML page that have an href, in
// document order, and the href of the first <base> element ("" when
// there is none), which the links are relative to. A link's text ends at
// its </a> or at the next <a>.
func links(page []byte) (ls []link, base string) {
	z := html.NewTokenizer(bytes.NewReader(page))
	haveBase := false
	in := -1    // the link whose text is being read
	after := -1 // the link whose tail is being read
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			return ls, base
		case html.TextToken:
			addText(ls, in, after, z.Text())
		case html.EndTagToken:
			if name, _ := z.TagName(); string(name) == "a" {
				after, in = in, -1
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			isBase := string(name) == "base"
			if string(name) == "a" {
				in, after = -1, -1
			} else if !isBase || haveBase {
				continue
			}
			for hasAttr {
				var k, v []byte
				k, v, hasAttr = z.TagAttr()
				if string(k) != "href" {
					continue
				}
				if isBase {
					base, haveBase = string(v), true
				} else {
					ls = append(ls, link{href: string(v)})
					if tt == html.StartTagToken {
						in = len(ls) - 1
					}
				}
				break
			}
		}
	}
}
