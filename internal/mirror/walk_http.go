package mirror

import (
	"bytes"
	"context"
	"strings"

	"golang.org/x/net/html"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// httpWalker follows an HTTP index page (an autoindex listing or any page
// of links): links below the starting path on the same host and port are
// walked (when they end in "/") or fetched.
type httpWalker struct {
	start *uri.URL
}

func newHTTPWalker(u *uri.URL) (*httpWalker, error) {
	p := u.Path
	if p == "" {
		p = "/"
	}
	if !strings.HasSuffix(p, "/") {
		p = p[:strings.LastIndexByte(p, '/')+1]
	}
	return &httpWalker{start: withPath(u, p)}, nil
}

func (w *httpWalker) startURL() *uri.URL { return w.start }

func (w *httpWalker) fileOptions(remoteFile) map[string]string { return nil }

func (w *httpWalker) list(ctx context.Context, f Fetcher, req *proto.Request, d dirJob) (*listing, error) {
	_, body, err := fetchListing(ctx, f, req, d.url)
	if err != nil {
		return nil, err
	}
	l := &listing{}
	for _, href := range links(body) {
		w.addLink(l, d.url, href)
	}
	return l, nil
}

func (w *httpWalker) addLink(l *listing, page *uri.URL, href string) {
	ref, err := uri.Parse(href)
	if err != nil {
		return
	}
	u, err := uri.Resolve(page, ref, uri.RFC3986)
	if err != nil || u.RawQuery != "" || u.ForceQuery || !sameServer(w.start, u) {
		return
	}
	rest, ok := strings.CutPrefix(u.Path, w.start.Path)
	if !ok || rest == "" {
		return
	}
	isDir := strings.HasSuffix(rest, "/")
	var parts []string
	for _, seg := range strings.Split(strings.TrimSuffix(rest, "/"), "/") {
		d, err := uri.Unescape(seg)
		if err != nil {
			l.skipped = append(l.skipped, skip(quoteName(rest), u, err))
			return
		}
		parts = append(parts, d)
	}
	rel := strings.Join(parts, "/")
	if err := checkRel(rel); err != nil {
		l.skipped = append(l.skipped, skip(quoteName(rel), u, err))
		return
	}
	u = withPath(u, u.Path)
	if isDir {
		l.dirs = append(l.dirs, dirJob{rel: rel, url: u})
		return
	}
	l.files = append(l.files, remoteFile{rel: rel, url: u, size: -1})
}

// links returns the href of every <a> element of an HTML page, entities
// decoded, in document order.
func links(page []byte) []string {
	var out []string
	z := html.NewTokenizer(bytes.NewReader(page))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return out
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			if string(name) != "a" {
				continue
			}
			for hasAttr {
				var k, v []byte
				k, v, hasAttr = z.TagAttr()
				if string(k) == "href" {
					out = append(out, strings.TrimSpace(string(v)))
				}
			}
		}
	}
}
