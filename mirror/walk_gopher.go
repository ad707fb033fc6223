package mirror

import (
	"cmp"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"maps"
	"path"
	"slices"
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
	for _, part := range strings.Split(rest, "/") {
		if sameName(part, menuName) {
			// The name of the file each directory keeps its menu in
			// (saveMenu): later runs trust it to tell a cut menu.
			return "", errNameMenu
		}
	}
	return rest, nil
}

// gopherFileTypes are the item types that name documents (RFC 1436
// section 3.8 and common extensions: h, I, s, d, p, ;).
const gopherFileTypes = "04569gIsdhp;PcMx"

func (w *gopherWalker) list(ctx context.Context, f Fetcher, req *proto.Request, d dirJob) (*listing, error) {
	resp, raw, err := fetchListing(ctx, f, req, d.url, true)
	if errors.Is(err, gopher.ErrEmptyMenu) && d.rel != "" {
		// Nothing, and no "." line: pygopherd's empty directory, or a
		// menu cut before its first line. It is judged as a menu that
		// ended at the close (checkMenuEnd, judgeMenus): empty from a
		// server never seen to send the line, failed from one that does.
		// The starting menu has no such benefit: a mirror of nothing is
		// a failure.
		return &listing{menu: []byte{}, menuEnd: gopher.MenuEndClose}, nil
	}
	if err != nil {
		return nil, err
	}
	if resp.Kind != proto.KindDirectory {
		return nil, fmt.Errorf("mirror: %s is not a gopher menu", d.url.Redacted())
	}
	l := &listing{menu: raw}
	l.menuEnd, _ = resp.Info[gopher.InfoMenuEnd].(string)
	// Lines that are no menu line (a NUL byte, a port that is no number):
	// counted and named in the report, as an FTP listing's lines of no
	// known layout are, and nothing below the menu is deleted.
	l.unparsed, _ = resp.Info[gopher.InfoUnparsed].([]string)
	plus := false
	for _, e := range resp.Entries {
		l.addItem(w, e)
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
// the files without a time, and every run fetches them again.
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
	attrs, _ := gopher.AttributesOf(resp)
	times := make(map[string]time.Time, len(attrs))
	for _, a := range attrs {
		if a.Info != nil && !a.ModTime.IsZero() {
			times[a.Info.Type+"\t"+a.Info.Selector] = a.ModTime
		}
	}
	for i, rf := range l.files {
		v, err := rf.url().Gopher()
		if err != nil || v.Plus == nil {
			continue // a plain gopher item: the server may not know it
		}
		if t, ok := times[v.Type+"\t"+v.Selector]; ok {
			l.files[i].mtime = t
		}
	}
}

func (l *listing) addItem(w *gopherWalker, e proto.Entry) {
	t := e.ItemType
	if t == "i" || t == "3" {
		return
	}
	if e.URL == "" {
		// A host no URL can hold ("[::1]", "a b", "h/x"): not the
		// starting server, and named, as an item elsewhere is.
		l.skip(quoteName(e.Name), "", nil, errOtherServer)
		return
	}
	u, perr := uri.Parse(e.URL)
	var v *uri.GopherPath
	var err error
	if perr == nil {
		v, err = u.Gopher()
	}
	if perr != nil || errors.Is(err, uri.ErrOtherScheme) {
		l.skip(quoteName(e.Name), "", nil, fmt.Errorf("item type %s is not a gopher document", t))
		return
	}
	if !sameServer(w.start, u) {
		l.skip(quoteName(e.Name), "", u, errOtherServer)
		return
	}
	if err != nil {
		l.skip(quoteName(e.Name), "", u, err)
		return
	}
	rel, err := w.relOf(v.Selector)
	if err != nil {
		l.skip(quoteName(v.Selector), "", u, err)
		return
	}
	switch {
	case t == "1":
		l.dirs = append(l.dirs, dirJob{rel: rel, url: u})
	case t == "h" && strings.HasPrefix(v.Selector, "URL:"):
		l.skip(rel, "", u, fmt.Errorf("item type h points at another URL"))
	case strings.Contains(gopherFileTypes, t) && len(t) == 1:
		// A text (type 0) is read as RFC 1436 section 3.8 has it: the
		// "." line that ends it is not part of the document, nor are the
		// dots the server doubled (gopher.NewTextReader tells a server
		// that does so from one that sends files as they are). Other
		// documents are the bytes until the close.
		rf := remoteFile{rel: rel, full: u, size: -1, raw: t != "0"}
		if e.Extra["plus"] == "+" {
			// A Gopher+ item: the "+" view starts with a length header, so
			// the bytes are exact whatever the server does with "." lines.
			plus := *u
			plus.Path = u.Path + "%09%09+"
			rf.full, rf.raw = &plus, false
		}
		l.files = append(l.files, rf)
	default:
		l.skip(rel, "", u, fmt.Errorf("item type %s is not a document", t))
	}
}

// A gopher menu ends with a "." line (RFC 1436) or, from servers that
// never send it (pygopherd), at the close, which is also how a menu cut
// between two lines ends. What a cut menu lacks would go unmirrored, or be
// deleted with Delete, so the run learns which kind of server it walks:
// once it has seen the "." line (in this run or in a kept gophermap), a
// menu ending at the close is cut and fails (judgeMenus for those read
// before); from a server never seen to send it, such a menu is whole, but
// read again before Delete removes anything below it (confirmMenus). See
// docs/gopher.md, "Menus and texts in a mirror".

// menuRead is what the run keeps of each gopher menu it read, and, for
// Delete, of each HTTP index page and FTP listing (listing.listSum).
type menuRead struct {
	url  *uri.URL
	end  string   // gopher.InfoMenuEnd
	sum  [32]byte // SHA-256 of its bytes; of an FTP listing, its likeSum
	what string   // "menu", or the listing's listWhat
}

// menu reports whether m is a gopher menu (not a listing's listSum).
func (m menuRead) menu() bool { return m.what == "menu" }

// errMenuCut: a menu ended at the close from a server that ends its menus
// with a "." line.
var errMenuCut = fmt.Errorf(`mirror: the gopher menu ended without the "." line this server ends its menus with: it was cut: %w`, io.ErrUnexpectedEOF)

// errMenuCutSince: a menu ended at the close, where the gophermap an
// earlier run kept of it ends with the "." line. It says what to do when
// it is no cut but another server (one that never sends the line).
var errMenuCutSince = fmt.Errorf(`mirror: the gopher menu ended without the "." line that ended it in an earlier run (the gophermap kept of it): it was cut (if another server answers there now, one that never ends its menus with the line, remove the gophermap files of that run): %w`, io.ErrUnexpectedEOF)

// errMenuDiffers: a menu that ended at the close was not the same when
// read again.
var errMenuDiffers = errors.New(`mirror: the gopher menu ended at the close without a "." line, and a second reading gave other bytes: it may have been cut`)

// checkMenuEnd judges how the gopher menu l of d ended, by the rules above
// menuRead, and keeps it; it returns errMenuCut for a menu that is cut.
// An HTTP index page or an FTP listing is kept for Delete only: nothing
// tells how a server ends them.
func (r *run) checkMenuEnd(d dirJob, l *listing) error {
	m := menuRead{url: d.url, end: l.menuEnd, what: cmp.Or(l.listWhat, "menu")}
	switch {
	case l.listSum != nil && !r.opts.Delete, l.menuEnd == "":
		return nil
	case l.listSum != nil:
		m.sum = *l.listSum
	case l.menuEnd == gopher.MenuEndClose && r.menuDot.Load():
		return errMenuCut
	case l.menuEnd == gopher.MenuEndClose && r.keptWithDot(d.rel):
		r.menuDotKept.Store(true)
		return errMenuCutSince
	case l.menuEnd == gopher.MenuEndDot:
		r.menuDot.Store(true)
	}
	if l.listSum == nil {
		m.sum = sha256.Sum256(l.menu)
	}
	r.mu.Lock()
	r.menus[d.rel] = m
	r.mu.Unlock()
	return nil
}

// keptWithDot reports whether the gophermap an earlier run kept of the
// directory rel ends with a "." line: the server ended the menu so then.
func (r *run) keptWithDot(rel string) bool {
	f, err := r.root.Open(joinRel(rel, menuName))
	if err != nil {
		return false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return false
	}
	n := min(st.Size(), 4)
	b := make([]byte, n)
	if _, err := f.ReadAt(b, st.Size()-n); err != nil {
		return false
	}
	s := "\n" + string(b) // a file that is the "." line alone
	return strings.HasSuffix(s, "\n.\r\n") || strings.HasSuffix(s, "\n.\n")
}

// judgeMenus, when the walk has ended, fails the menus that ended at the
// close before the run learnt that the server ends its menus with a "."
// line: nothing below them is deleted.
func (r *run) judgeMenus() {
	why := errMenuCut
	switch {
	case r.menuDot.Load():
	case r.menuDotKept.Load():
		why = errMenuCutSince // known from an earlier run only
	default:
		return
	}
	for _, rel := range slices.Sorted(maps.Keys(r.menus)) {
		if m := r.menus[rel]; m.end == gopher.MenuEndClose {
			r.menuFailed(rel, m, why)
		}
	}
}

// confirmMenus reads again, before anything is deleted, each menu that
// ended at the close and is the nearest menu above a path of stale (the
// rules above menuRead). A menu that cannot be read again, or not as the same bytes,
// is a failed entry, and nothing below it is deleted.
func (r *run) confirmMenus(ctx context.Context, stale []string) {
	need := map[string]bool{}
	for _, p := range stale {
		if rel, ok := r.menuAbove(p); ok && r.menus[rel].end == gopher.MenuEndClose {
			need[rel] = true
		}
	}
	for _, rel := range slices.Sorted(maps.Keys(need)) { // a menu before those below it
		if r.belowUnlistable(rel) {
			continue // below a menu that failed: nothing is deleted there
		}
		m := r.menus[rel]
		if err := r.readAgain(ctx, rel, m); err != nil {
			r.menuFailed(rel, m, err)
		}
	}
}

// menuAbove returns the directory of the nearest menu read in this run
// above p.
func (r *run) menuAbove(p string) (string, bool) {
	for d := path.Dir(p); ; d = path.Dir(d) {
		if d == "." {
			d = ""
		}
		if _, ok := r.menus[d]; ok {
			return d, true
		}
		if d == "" {
			return "", false
		}
	}
}

// readAgain reads the menu, index page or listing m of the directory rel
// again, on a connection slot, and reports whether it is the same.
func (r *run) readAgain(ctx context.Context, rel string, m menuRead) error {
	if err := r.acquire(ctx); err != nil {
		return err
	}
	defer r.releaseSlot()
	sum, err := r.sumAgain(ctx, rel, m)
	switch {
	case err != nil:
		return err
	case sum == m.sum:
		return nil
	case m.menu():
		return errMenuDiffers
	}
	return fmt.Errorf("mirror: the %s came with no length, and a second reading gave another: the first may have been cut", m.what)
}

// sumAgain reads m again and returns its sum: a menu's bytes, or the
// listSum of the walker's listing.
func (r *run) sumAgain(ctx context.Context, rel string, m menuRead) ([32]byte, error) {
	if !m.menu() {
		l, err := r.w.list(ctx, r.f, r.request(proto.Options{}), dirJob{rel: rel, url: m.url})
		if err != nil {
			return [32]byte{}, err
		}
		return *l.listSum, nil
	}
	_, raw, err := fetchListing(ctx, r.f, r.request(proto.Options{}), m.url, true)
	if errors.Is(err, gopher.ErrEmptyMenu) {
		raw, err = nil, nil // nothing again: compared as no bytes (see list)
	}
	return sha256.Sum256(raw), err
}

// menuFailed reports the menu of the directory rel failed with err and
// keeps Delete out of the directory.
func (r *run) menuFailed(rel string, m menuRead, err error) {
	r.keepOut(rel)
	p := cmp.Or(rel, ".")
	if m.menu() {
		p = joinRel(rel, menuName)
	}
	r.sum.add(EntryReport{Path: p, URL: m.url.Redacted(), Status: StatusFailed,
		Reason: "nothing below this " + m.what + " is deleted: " + err.Error()})
}
