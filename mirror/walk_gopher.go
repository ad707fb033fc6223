package mirror

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/proto/gopher"
	"github.com/rfc1738/fetch/uri"
)

// gopherWalker follows a gopher hole: type 1 items on the same host and
// port whose selector is below the starting selector are menus to walk;
// document items there are files. The local path of an item is its
// selector with the starting selector taken off, split at "/".
type gopherWalker struct {
	start    *uri.URL
	startSel string
}

func newGopherWalker(u *uri.URL) (*gopherWalker, error) {
	v, err := u.Gopher()
	if err != nil {
		return nil, err
	}
	if v.Type != "1" {
		return nil, fmt.Errorf("mirror: gopher item type %q is not a menu (type 1)", v.Type)
	}
	c := *u
	c.RawQuery, c.ForceQuery, c.Fragment, c.HasFragment = "", false, "", false
	return &gopherWalker{start: &c, startSel: v.Selector}, nil
}

func (w *gopherWalker) startURL() *uri.URL { return w.start }

func (w *gopherWalker) fileOptions(remoteFile) proto.Options { return proto.Options{} }

// relOf maps a selector below the starting selector to a relative path.
func (w *gopherWalker) relOf(sel string) (string, error) {
	rest, ok := strings.CutPrefix(sel, w.startSel)
	if !ok || (w.startSel != "" && !strings.HasSuffix(w.startSel, "/") && rest != "" && rest[0] != '/') {
		return "", errNotBelow
	}
	rest = strings.Trim(rest, "/")
	if rest == "" {
		return "", errNotBelow
	}
	if err := checkRel(rest); err != nil {
		return "", err
	}
	return rest, nil
}

// gopherFileTypes are the item types that name documents (RFC 1436
// section 3.8 and common extensions: h, I, s, d, p, ;).
const gopherFileTypes = "04569gIsdhp;PcMx"

func (w *gopherWalker) list(ctx context.Context, f Fetcher, req *proto.Request, d dirJob) (*listing, error) {
	resp, raw, err := fetchListing(ctx, f, req, d.url)
	if err != nil {
		return nil, err
	}
	if resp.Kind != proto.KindDirectory {
		return nil, fmt.Errorf("mirror: %s is not a gopher menu", d.url.Redacted())
	}
	l := &listing{menu: raw}
	menuRel := joinRel(d.rel, menuName)
	plus := false
	for _, e := range resp.Entries {
		l.addItem(w, e, menuRel)
		plus = plus || e.Extra["plus"] == "+"
	}
	if plus {
		w.addModTimes(ctx, f, req, d.url, l)
	}
	return l, nil
}

// addModTimes asks a Gopher+ server for the attributes of every item of
// the menu at u in one "$" request (gopherplus.txt section 2.7) and gives
// each file of l the Mod-Date of its +ADMIN block (section 2.5). A menu
// lists no size or time, so without them a run would fetch every file
// again to learn that it had not changed. The sizes of +VIEWS are rounded
// to kilobytes and are not used. A server that gives no attributes leaves
// the files without a time, and they are fetched as before.
func (w *gopherWalker) addModTimes(ctx context.Context, f Fetcher, req *proto.Request, u *uri.URL, l *listing) {
	if len(l.files) == 0 {
		return
	}
	if v, err := u.Gopher(); err != nil || v.Search != nil || v.Plus != nil {
		return
	}
	au := *u
	au.Path += "%09%09$"
	resp, err := f.Fetch(ctx, &au, req)
	if err != nil {
		return
	}
	// The driver has parsed the blocks already (Info). The body is read
	// to its end all the same, since that is what makes a capture of it:
	// with a WARC writer the blocks are a metadata record of the menu,
	// and a body closed early is a transfer not archived (exit 8). What
	// the writer makes of it, it reports itself.
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	attrs, _ := resp.Info["attributes"].([]gopher.Attributes)
	times := make(map[string]time.Time, len(attrs))
	for _, a := range attrs {
		if a.Info != nil && !a.ModTime.IsZero() {
			times[a.Info.Type+"\t"+a.Info.Selector] = a.ModTime
		}
	}
	for i, rf := range l.files {
		v, err := rf.url.Gopher()
		if err != nil || v.Plus == nil {
			continue // a plain gopher item: the server may not know it
		}
		if t, ok := times[v.Type+"\t"+v.Selector]; ok {
			l.files[i].mtime = t
		}
	}
}

func (l *listing) addItem(w *gopherWalker, e proto.Entry, menuRel string) {
	t := e.ItemType
	if t == "i" || t == "3" || e.URL == "" {
		return
	}
	u, err := uri.Parse(e.URL)
	if err != nil || u.Scheme != "gopher" {
		l.skipped = append(l.skipped, skip(quoteName(e.Name), nil, fmt.Errorf("item type %s is not a gopher document", t)))
		return
	}
	if !sameServer(w.start, u) {
		l.skipped = append(l.skipped, skip(quoteName(e.Name), u, errOtherServer))
		return
	}
	v, err := u.Gopher()
	if err != nil {
		l.skipped = append(l.skipped, skip(quoteName(e.Name), u, err))
		return
	}
	rel, err := w.relOf(v.Selector)
	if err != nil {
		l.skipped = append(l.skipped, skip(quoteName(v.Selector), u, err))
		return
	}
	switch {
	case t == "1":
		l.dirs = append(l.dirs, dirJob{rel: rel, url: u})
	case t == "h" && strings.HasPrefix(v.Selector, "URL:"):
		l.skipped = append(l.skipped, skip(rel, u, fmt.Errorf("item type h points at another URL")))
	case strings.Contains(gopherFileTypes, t) && len(t) == 1:
		if rel == menuRel {
			l.skipped = append(l.skipped, skip(rel, u, fmt.Errorf("name is reserved for the saved menu")))
			return
		}
		// A text (type 0) is read as RFC 1436 section 3.8 has it: the
		// "." line that ends it is not part of the document, nor are the
		// dots the server doubled (gopher.NewTextReader tells a server
		// that does so from one that sends files as they are). Other
		// documents are the bytes until the close.
		rf := remoteFile{rel: rel, url: u, size: -1, raw: t != "0"}
		if e.Extra["plus"] == "+" {
			// A Gopher+ item: the "+" view starts with a length header, so
			// the bytes are exact whatever the server does with "." lines.
			plus := *u
			plus.Path = u.Path + "%09%09+"
			rf.url, rf.raw = &plus, false
		}
		l.files = append(l.files, rf)
	default:
		l.skipped = append(l.skipped, skip(rel, u, fmt.Errorf("item type %s is not a document", t)))
	}
}
