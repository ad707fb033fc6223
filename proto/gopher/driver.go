package gopher

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/rfc1738/fetch/internal/termtext"
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// Driver fetches gopher and Gopher+ URLs. The zero value is ready to use;
// the limits below bound what a hostile server can make it hold in memory.
// A Driver is safe for concurrent use: it keeps no connections (gopher
// closes each one after its response).
type Driver struct {
	// MaxLine is the longest line accepted in a menu or an attribute
	// response, in bytes. Zero means DefaultMaxLine (64 KiB).
	MaxLine int
	// MaxMenuBytes bounds a menu or attribute response, which is read
	// into memory to be parsed, where the request's Options.ListingCap
	// does not. Zero means DefaultMaxMenuBytes.
	MaxMenuBytes int64
	// MaxItems bounds the items of one menu and the attribute blocks of
	// one response. Zero means DefaultMaxItems.
	MaxItems int
}

var (
	_ proto.Driver = (*Driver)(nil)
	_ proto.Lister = (*Driver)(nil)
)

// InfoMenuEnd is the key of Response.Info that says, for a parsed menu,
// how its data ended: MenuEndDot, MenuEndLength or MenuEndClose. RFC 1436
// servers (Gophernicus, UMN gopherd) end every menu with a "." line;
// pygopherd never does, and its menus end when it closes the connection,
// as a menu cut between two lines does too. A client that mirrors can
// learn from it which kind of server it reads.
const InfoMenuEnd = "gopher_menu_end"

// InfoUnparsed is the key of Response.Info that holds, for a parsed menu,
// the lines that are no menu line ([]string; see ParseMenuLines), when
// there are any.
const InfoUnparsed = "gopher_unparsed"

// The values of Response.Info[InfoMenuEnd].
const (
	// MenuEndDot: the menu ended with its "." line (RFC 1436), or, for
	// Gopher+ data announced "+-1", with the "." line that ends it.
	MenuEndDot = "dot"
	// MenuEndLength: a Gopher+ "+<n>" header gave the length, and all of
	// it came.
	MenuEndLength = "length"
	// MenuEndClose: the server closed the connection with no "." line
	// (or with "+-2"): whole for a server that never sends one, cut for
	// one that does.
	MenuEndClose = "close"
)

func (d *Driver) limits() limits {
	return limits{maxLine: d.MaxLine, maxBytes: d.MaxMenuBytes, maxItems: d.MaxItems}
}

// target is a gopher URL taken apart.
type target struct {
	*uri.GopherPath
	host string // as dialed, without brackets
	port int
	addr string
	name string // for messages: the URL, redacted
}

func parseTarget(u *uri.URL) (*target, error) {
	g, err := u.Gopher()
	if err != nil {
		return nil, err
	}
	if u.Hostname() == "" {
		return nil, &uri.Error{Offset: len(u.Scheme) + 3, Component: "host", Err: uri.Reason("gopher URL without a host")}
	}
	port := u.PortNumber()
	return &target{
		GopherPath: g,
		host:       u.Hostname(),
		port:       port,
		addr:       net.JoinHostPort(u.Hostname(), strconv.Itoa(port)),
		name:       u.Redacted(),
	}, nil
}

// Fetch retrieves the item u names (RFC 1738 section 3.4, RFC 1436,
// gopherplus.txt) on a new connection, after checking every field (errors
// wrap proto.ErrUnsafeArgument, and nothing is dialled). By item type and
// gopher+_string:
//
//   - types 1 and 7 (a search's results are a menu): KindDirectory, Entries
//     parsed (ParseMenu, Item.Entry), Body the menu as sent,
//     Info[InfoMenuEnd] how it ended;
//   - type 0: text read by NewTextReader, streamed; other types: the bytes
//     as sent, streamed;
//   - "!..." or "$...": the attribute blocks, in Info["attributes"]
//     ([]Attributes) and as text in Body;
//   - "?": the item's +ASK form, fetched with "!", answered (see Question)
//     and sent in the form RFC 1738 section 3.4.9 gives;
//   - "+", "+<view> <language>" and filled forms are sent as is. The Gopher+
//     header is parsed, never returned as data; "+<n>" becomes Size, and
//     data cut before its length or "." line fails reading with an error
//     wrapping io.ErrUnexpectedEOF.
//
// Type 7 without a search string takes req.Search, else asks req.Prompt,
// else fails with proto.ErrNeedInput. Types 8 and T, and "h" items whose
// selector is "URL:<url>", give a *proto.Redirect without connecting. A
// server's error is a *ServerError or a *proto.Redirect (see the package
// documentation); a peer that breaks the limits, a *proto.ProtocolError.
// With req.Raw only the Gopher+ header is parsed: Body holds the data as
// sent (KindData). The returned body must be closed.
func (d *Driver) Fetch(ctx context.Context, u *uri.URL, req *proto.Request) (*proto.Response, error) {
	if req == nil {
		req = &proto.Request{}
	}
	t, err := parseTarget(u)
	if err != nil {
		return nil, err
	}
	if r := serviceRedirect(t); r != nil {
		return nil, r
	}
	search, plus := t.Search, t.Plus
	if plus != nil && *plus == "?" {
		form, err := d.fillForm(ctx, t, req)
		if err != nil {
			return nil, err
		}
		plus = &form
		search = cmp.Or(search, new(string)) // a form is sent after a search field, empty if need be
	}
	if t.Type == "7" && search == nil && plus == nil {
		s, err := searchString(ctx, t, req)
		if err != nil {
			return nil, err
		}
		search = &s
	}
	return d.do(ctx, t, req, wireRequest{Selector: t.Selector, Search: search, Plus: plus})
}

// List returns the entries of the menu u names (type 1, or a type 7
// search with its search string). It implements proto.Lister.
func (d *Driver) List(ctx context.Context, u *uri.URL, req *proto.Request, fn func(proto.Entry) error) (*proto.Listing, error) {
	var r proto.Request
	if req != nil {
		r = *req
	}
	r.Raw = false
	resp, err := d.Fetch(ctx, u, &r)
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	if resp.Kind != proto.KindDirectory {
		return nil, fmt.Errorf("gopher: %s is not a menu (item type %q)", u.Redacted(), resp.ItemType)
	}
	return proto.ListEntries(resp, fn)
}

// serviceReasons are the item types that serviceRedirect redirects, and
// the Reason it gives.
var serviceReasons = map[string]string{"8": "gopher telnet item", "T": "gopher tn3270 item", "h": "gopher URL: link"}

// serviceRedirect returns the URL that types 8, T and "h" with a URL:
// selector point to, or nil.
func serviceRedirect(t *target) *proto.Redirect {
	reason, ok := serviceReasons[t.Type]
	if !ok {
		return nil
	}
	it := Item{Type: t.Type, Selector: t.Selector, Host: t.host, Port: t.port}
	if t.Type == "h" && it.EntryType() != proto.EntryLink {
		return nil
	}
	if u := it.URL(); u != "" {
		return &proto.Redirect{URL: u, Reason: reason}
	}
	return nil
}

// searchString finds the search string of a type 7 URL that has none.
func searchString(ctx context.Context, t *target, req *proto.Request) (string, error) {
	if req.Search != "" {
		return req.Search, nil
	}
	if req.Prompt == nil {
		return "", fmt.Errorf("gopher: %s is a search and no search string was given: %w", t.name, proto.ErrNeedInput)
	}
	s, err := req.Prompt.Ask(ctx, "Search "+termtext.Mask(t.name)+": ", true)
	if err != nil {
		return "", fmt.Errorf("gopher: search prompt: %w", err)
	}
	return s, nil
}

// fillForm fetches the item's +ASK block (with "!"), asks its questions
// and returns the filled form as a gopher+_string.
func (d *Driver) fillForm(ctx context.Context, t *target, req *proto.Request) (string, error) {
	bang := "!"
	attrs, err := d.attributes(ctx, t, req, wireRequest{Selector: t.Selector, Search: cmp.Or(t.Search, new(string)), Plus: &bang})
	if err != nil {
		return "", err
	}
	for _, a := range attrs {
		if len(a.Ask) > 0 {
			lines, err := answerForm(ctx, a.Ask, req)
			if err != nil {
				return "", err
			}
			return encodeForm(lines)
		}
	}
	return "", protoErr("item flagged \"?\" has no +ASK block")
}

// attributes sends w (a "!" or "$" request) and parses the answer.
func (d *Driver) attributes(ctx context.Context, t *target, req *proto.Request, w wireRequest) ([]Attributes, error) {
	r := *req
	r.Raw = false
	resp, err := d.do(ctx, t, &r, w)
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	a, _ := resp.Info["attributes"].([]Attributes)
	return a, nil
}

// do sends one request and reads its response.
func (d *Driver) do(ctx context.Context, t *target, req *proto.Request, w wireRequest) (*proto.Response, error) {
	line, err := w.encode()
	if err != nil {
		return nil, err
	}
	lim := d.limits()
	if req.Options.ListingCap > 0 {
		lim.maxBytes = req.Options.ListingCap
	}
	c, err := open(ctx, req, t.addr, line, max(lim.line(), 4096))
	if err != nil {
		return nil, err
	}
	resp, err := d.read(c, t, req, w, lim)
	var cut *cutMenuError
	if errors.As(err, &cut) && !w.again {
		// A menu whose data ended in the middle of a line: the
		// connection may have been cut on the way (a menu ends when the
		// server closes, with or without its "." line), and its last
		// line may even parse. Asked again: the same bytes twice are
		// the menu, a second answer that ends with its line end
		// replaces the first.
		c.c.Close()
		c.tracef("(the menu ended in the middle of a line after %d bytes: asking again)", len(cut.raw))
		w.again = true
		resp, err = d.do(ctx, t, req, w)
		var cut2 *cutMenuError
		switch {
		case errors.As(err, &cut2) && bytes.Equal(cut2.raw, cut.raw):
			return d.menuResponse(t, cut.resp, cut.raw, MenuEndClose, lim)
		case errors.As(err, &cut2):
			return nil, fmt.Errorf("gopher: menu cut short: its data ended in the middle of a line twice, after %d and %d bytes: %w", len(cut.raw), len(cut2.raw), io.ErrUnexpectedEOF)
		}
		return resp, err
	}
	if err != nil {
		c.c.Close()
		if errors.Is(err, errNotAttributes) && w.Plus != nil {
			if bare := bareAttrRequest(*w.Plus); bare != "" {
				return d.retryBare(ctx, t, req, w, bare)
			}
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("gopher: %w", errors.Join(ctx.Err(), err))
		}
		return nil, err
	}
	return resp, nil
}

// bareAttrRequest returns "!" or "$" when plus asks for named attribute
// blocks ("!+ABSTRACT +SMELL"), "" otherwise.
func bareAttrRequest(plus string) string {
	if len(plus) > 1 && (plus[0] == '!' || plus[0] == '$') {
		return plus[:1]
	}
	return ""
}

// retryBare asks again with the bare "!" or "$" and keeps the blocks the
// first request named (gopherplus.txt section 2.7: the names are "only
// suggestions to the server").
func (d *Driver) retryBare(ctx context.Context, t *target, req *proto.Request, w wireRequest, bare string) (*proto.Response, error) {
	names := attrNames((*w.Plus)[1:])
	w.Plus = &bare
	resp, err := d.do(ctx, t, req, w)
	if err != nil {
		return nil, err
	}
	return filterAttrs(resp, names), nil
}

// read reads the response to w on c.
func (d *Driver) read(c *conn, t *target, req *proto.Request, w wireRequest, lim limits) (*proto.Response, error) {
	h, hasHeader, plus := Header{OK: true, Length: LengthClose}, false, ""
	if w.Plus != nil {
		plus = *w.Plus
		got, ok, err := c.readHeader()
		switch {
		case err != nil:
			return nil, err
		case ok && !got.OK:
			return nil, c.serverError(got)
		case ok:
			h, hasHeader = got, true
		}
	}
	resp := &proto.Response{
		Kind:      proto.KindData,
		Size:      -1,
		ItemType:  t.Type,
		MediaType: mediaType(t.Type, plus),
		Name:      itemName(t.Type, t.Selector),
	}
	if h.Length >= 0 {
		resp.Size = h.Length
	}
	if !hasHeader {
		if err := sniffError(c, lim); err != nil {
			return nil, err
		}
	}
	switch {
	case strings.HasPrefix(plus, "!") || strings.HasPrefix(plus, "$"):
		return d.readAttributes(c, h, resp, req, lim)
	case (t.Type == "1" || t.Type == "7") && isMenuView(plus):
		return d.readMenu(c, t, h, resp, req, lim)
	case t.Type == "0" && !hasHeader && !req.Raw:
		resp.Body = &body{Reader: NewTextReader(c.br), c: c.c}
	default:
		resp.Body = &body{Reader: c.data(h, t.Type == "0" && !req.Raw), c: c.c}
	}
	return resp, nil
}

// isMenuView reports whether plus asks for a menu's default
// representation (no gopher+_string, "+", a gopher menu view, or a form).
func isMenuView(plus string) bool {
	if plus == "" || plus == "+" {
		return true
	}
	if _, ok := checkForm(plus); ok {
		return true
	}
	v := strings.ToLower(strings.TrimPrefix(plus, "+"))
	return strings.HasPrefix(v, "application/gopher")
}

// readMenu reads and parses a menu response.
func (d *Driver) readMenu(c *conn, t *target, h Header, resp *proto.Response, req *proto.Request, lim limits) (*proto.Response, error) {
	resp.MediaType = "application/gopher-menu"
	resp.Name = ""
	raw, dot, done, err := readWhole(c, h, resp, req, lim)
	if err != nil {
		return nil, err
	}
	if done {
		return resp, nil
	}
	if len(raw) > 0 && raw[len(raw)-1] != '\n' {
		return nil, &cutMenuError{resp: resp, raw: raw}
	}
	end := MenuEndClose
	switch {
	case dot || h.Length == LengthDot: // newDotReader ended at its "." line
		end = MenuEndDot
	case h.Length >= 0:
		end = MenuEndLength
	}
	resp, err = d.menuResponse(t, resp, raw, end, lim)
	if err == nil {
		c.tracef("(menu: %d items, %d bytes)", len(resp.Entries), len(raw))
	}
	return resp, err
}

// cutMenuError is a menu whose data ended in the middle of a line, for
// Driver.do to ask again: resp as read so far, raw the menu's bytes.
type cutMenuError struct {
	resp *proto.Response
	raw  []byte
}

func (e *cutMenuError) Error() string {
	return fmt.Sprintf("gopher: menu ended in the middle of a line after %d bytes", len(e.raw))
}

func (e *cutMenuError) Unwrap() error { return io.ErrUnexpectedEOF }

// menuResponse parses the menu raw into resp's entries; end is how its
// data ended (Info[InfoMenuEnd]).
func (d *Driver) menuResponse(t *target, resp *proto.Response, raw []byte, end string, lim limits) (*proto.Response, error) {
	items, unparsed, err := parseMenu(raw, lim)
	if err != nil {
		return nil, err
	}
	if err := allErrors(items); err != nil {
		return nil, err
	}
	if err := noItems(items, unparsed, end, t.Type == "7"); err != nil {
		return nil, err
	}
	entries := make([]proto.Entry, len(items))
	for i, it := range items {
		if !it.IsInfo() && it.Host == "" {
			it.Host, it.Port = t.host, t.port
		}
		entries[i] = it.Entry()
	}
	resp.Kind = proto.KindDirectory
	resp.Entries = entries
	resp.Info = map[string]any{InfoMenuEnd: end}
	if len(unparsed) > 0 {
		resp.Info[InfoUnparsed] = unparsed
	}
	resp.Size = int64(len(raw))
	resp.Body = &body{Reader: bytes.NewReader(raw)}
	return resp, nil
}

// ErrEmptyMenu is the error of a menu whose data held no line at all (or
// only empty lines), and ended at the close without the "." line that
// ends a menu (RFC 1436, appendix: Menu ::= {DirEntity} Lastline): nothing
// tells it from a server that failed to answer. It is a
// *proto.ProtocolError. pygopherd, which never sends the "." line, answers
// so for an empty directory: a caller that knows it reads such a server
// (as the mirror learns) may take it for an empty menu.
var ErrEmptyMenu = &proto.ProtocolError{Proto: "gopher", Msg: `the server sent no menu: no item, and no "." line`}

// noItems returns the error of a menu that gave no item: ErrEmptyMenu for
// one that held nothing and ended at the close, a *proto.ProtocolError
// for one whose every line is no menu line (binary garbage). A menu that
// is its "." line alone, or whose Gopher+ length was given, is empty and
// whole; so is the result of a search (type 7) that held nothing: no hits
// is the common answer, and a server that never sends the "." line sends
// nothing for it.
func noItems(items []Item, unparsed []string, end string, search bool) error {
	switch {
	case len(items) > 0:
		return nil
	case len(unparsed) > 0:
		return protoErr("no line of the menu is a menu line (%d lines, the first %s)", len(unparsed), strconv.Quote(sanitizeShort(unparsed[0])))
	case end == MenuEndClose && !search:
		return ErrEmptyMenu
	}
	return nil
}

// sanitizeShort cuts s to 60 bytes for a message.
func sanitizeShort(s string) string {
	if len(s) > 60 {
		return s[:60] + "..."
	}
	return s
}

// readWhole reads a response that is parsed before it is handed on (a
// menu, attribute blocks), bounded by lim, and closes the connection; dot
// reports that it ended with a "." line that readLines saw (see
// readLines). With Request.Raw the bytes stream instead: resp gets the
// body and done is true.
func readWhole(c *conn, h Header, resp *proto.Response, req *proto.Request, lim limits) (raw []byte, dot, done bool, err error) {
	if req.Raw {
		resp.Body = &body{Reader: c.data(h, false), c: c.c}
		return nil, false, true, nil
	}
	raw, dot, err = readLines(c.data(h, false), lim)
	c.c.Close()
	return raw, dot, false, err
}

// allErrors returns a *ServerError when a menu holds error lines ("3")
// and nothing else but info lines: the way a plain gopher server says
// "not found".
func allErrors(items []Item) error {
	var first *Item
	for i := range items {
		switch items[i].Type {
		case "3":
			if first == nil {
				first = &items[i]
			}
		case "i":
		default:
			return nil
		}
	}
	if first == nil {
		return nil
	}
	return &ServerError{Msg: first.Display}
}

// maxSniff bounds how much of a plain gopher response is looked at for an
// error line.
const maxSniff = 4096

// sniffError recognizes the plain gopher error response: a short response
// made of type "3" lines (RFC 1436 section 3.8), which servers send in
// place of any item they cannot serve. Only a response whose first line is
// a complete type "3" item line is looked at further.
//
// Gophernicus answers a selector it cannot serve with a line of text
// instead ("Error: File or directory not found! (null)"), for menus and
// documents alike: a whole response that is one such line, in one of its
// phrases (textErrors), is that error too, or a mirror would store the
// line as the document.
func sniffError(c *conn, lim limits) error {
	p, err := peekLine(c.br, maxSniff)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil
	}
	if e := textError(c, p); e != nil {
		return e
	}
	if len(p) == 0 || p[0] != '3' {
		return nil
	}
	if strings.Count(string(p), "\t") < 3 {
		return nil
	}
	all, err := c.br.Peek(maxSniff)
	if !errors.Is(err, io.EOF) {
		return nil
	}
	items, _, perr := parseMenu(all, lim)
	if perr != nil {
		return nil
	}
	return allErrors(items)
}

// textErrors are the phrases Gophernicus begins its error lines with
// (not found, and a file or directory it may not serve).
var textErrors = []string{"Error: File or directory not found!", "Error: Access denied!"}

// textError returns the error that the response is when it is nothing but
// first, one of Gophernicus's error lines, then the end of the data; else
// nil.
func textError(c *conn, first []byte) error {
	line := strings.TrimRight(string(first), "\r\n")
	if len(line) == len(first) || !slices.ContainsFunc(textErrors, func(e string) bool { return strings.HasPrefix(line, e) }) {
		return nil // no line end, or not one of the phrases
	}
	if all, err := c.br.Peek(len(first) + 1); len(all) != len(first) || !errors.Is(err, io.EOF) {
		return nil // more follows: a document that happens to begin so
	}
	return &ServerError{Msg: line}
}

// readAttributes reads and parses a "!" or "$" response.
func (d *Driver) readAttributes(c *conn, h Header, resp *proto.Response, req *proto.Request, lim limits) (*proto.Response, error) {
	resp.MediaType = "text/plain"
	resp.Name = ""
	resp.Size = -1
	raw, _, done, err := readWhole(c, h, resp, req, lim)
	if err != nil {
		return nil, err
	}
	if done {
		return resp, nil
	}
	attrs, err := parseAttributes(raw, lim)
	if err != nil {
		return nil, err
	}
	c.tracef("(attributes of %d items, %d bytes)", len(attrs), len(raw))
	resp.Info = map[string]any{"attributes": attrs}
	resp.Body = &body{Reader: bytes.NewReader(formatAttributes(attrs))}
	return resp, nil
}

// attrNames splits "+ABSTRACT +SMELL" (or "+VIEWS+ABSTRACT",
// gopherplus.txt section 2.7) into block names without "+".
func attrNames(s string) []string {
	var names []string
	for _, f := range strings.Fields(s) {
		for n := range strings.SplitSeq(f, "+") {
			if n != "" {
				names = append(names, n)
			}
		}
	}
	return names
}

// filterAttrs keeps, in each item's attributes, +INFO and the named
// blocks.
func filterAttrs(resp *proto.Response, names []string) *proto.Response {
	attrs, ok := resp.Info["attributes"].([]Attributes)
	if !ok || len(names) == 0 {
		return resp
	}
	keep := map[string]bool{"INFO": true}
	for _, n := range names {
		keep[n] = true
	}
	out := make([]Attributes, len(attrs))
	for i, a := range attrs {
		var blocks []Block
		for _, b := range a.Blocks {
			if keep[b.Name] {
				blocks = append(blocks, b)
			}
		}
		out[i] = Attributes{Blocks: blocks}
		out[i].interpret()
	}
	resp.Body.Close()
	resp.Info["attributes"] = out
	resp.Body = &body{Reader: bytes.NewReader(formatAttributes(out))}
	return resp
}

// formatAttributes writes attribute blocks back as text, the way a server
// sends them (one "+NAME: value" line, then lines starting with a space),
// with LF line ends.
func formatAttributes(attrs []Attributes) []byte {
	var b bytes.Buffer
	for _, a := range attrs {
		for _, blk := range a.Blocks {
			b.WriteString("+" + blk.Name + ":")
			if blk.Value != "" {
				b.WriteString(" " + blk.Value)
			}
			b.WriteByte('\n')
			for _, l := range blk.Lines {
				b.WriteString(" " + l + "\n")
			}
		}
	}
	return b.Bytes()
}

// mediaTypes are the MIME types of the item types that have one.
var mediaTypes = map[string]string{
	"0": "text/plain",
	"1": "application/gopher-menu",
	"7": "application/gopher-menu",
	"4": "application/mac-binhex40",
	"5": "application/octet-stream",
	"6": "text/x-uuencode",
	"9": "application/octet-stream",
	"g": "image/gif",
	"h": "text/html",
	"p": "image/png",
	"P": "application/pdf",
	"d": "application/octet-stream",
	"c": "text/calendar",
	"M": "message/rfc822",
	"X": "application/xml",
	"r": "application/rtf",
}

// mediaType returns the MIME type of an item type, or the view's content
// type when plus asks for an alternate view ("+application/postscript
// Es_ES").
func mediaType(itemType, plus string) string {
	if len(plus) > 1 && plus[0] == '+' && plus[1] != '\t' {
		f := strings.Fields(plus[1:])
		if len(f) > 0 && strings.Contains(f[0], "/") {
			return strings.ToLower(f[0])
		}
	}
	return mediaTypes[itemType]
}

// itemName suggests a local file name for -O: the last element of the
// selector; "" for menus, and when there is none or it is not a plain
// name ("..", control characters, a backslash).
func itemName(itemType, selector string) string {
	if itemType == "1" || itemType == "7" {
		return ""
	}
	n := path.Base(strings.TrimRight(selector, "/"))
	if n == "." || n == ".." || n == "/" || n == "" || strings.ContainsRune(n, '\\') || termtext.Mask(n) != n {
		return ""
	}
	return n
}
