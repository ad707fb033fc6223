package fetchtest

import (
	"bufio"
	"fmt"
	"io"
	"io/fs"
	"net"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rfc1738/fetch/internal/lineproto"
)

// Gopher is an in-process gopher server (RFC 1436) over an fs.FS. A
// directory is a menu (type 1) listing its entries; a file is sent as is.
// Selectors are slash-separated paths from the root ("" or "/" is the
// root). With a Gopher+ "+" request (selector TAB "+", or selector TAB TAB
// "+") the data is preceded by a "+<length>" header line; menus mark every
// item as Gopher+ with a trailing "+" field ("?" for an item with an +ASK
// form). A "!" request is answered with the item's attribute blocks
// (gopherplus.txt section 2.5): +INFO, then those of GopherOptions.Items.
type Gopher struct {
	fsys fs.FS
	opts GopherOptions
	ln   net.Listener
	host string
	port int
	wg   sync.WaitGroup
}

// GopherOptions change how a Gopher serves.
type GopherOptions struct {
	// RFC1436 serves as a server that follows RFC 1436 to the letter
	// (UMN gopherd): no Gopher+ (menus without the "+" field, a "+"
	// request served as a plain one), and a text (type 0) sent as
	// section 3.8 has it: every line that begins with "." has it doubled,
	// and a "." line ends it.
	RFC1436 bool
	// Port is the port to listen on at 127.0.0.1; 0 picks a free one.
	Port int
	// Items describe selectors beyond the files ("/search"), or add
	// Gopher+ attributes to a file's selector ("/about.txt").
	Items map[string]GopherItem
}

// GopherItem is a selector served by a function or given more Gopher+
// attributes. An item whose selector names no file is listed, after the
// files, in the menu of its directory.
type GopherItem struct {
	// Type is the item type in menus: "7" for a search, "0" for a text,
	// ...; "" guesses it from the name.
	Type string
	// Title is the display string in menus; "" is the selector's last
	// element.
	Title string
	// Attributes are the attribute blocks sent after +INFO for a "!"
	// request, as text: "+ADMIN:", " Admin: A. Person <a@example.org>",
	// ... (lines end in LF or CRLF).
	Attributes string
	// Ask, when not empty, are the lines of the item's +ASK block
	// ("Ask: Your name?", "Select: Tea?:1"); menus mark the item "?".
	Ask []string
	// Serve, when set, makes the item's data from the search string of
	// the request (type 7) and the lines of a submitted +ASK form
	// (gopherplus.txt section 2.8); else the file of the selector is sent.
	Serve func(search string, answers []string) []byte
}

// StartGopher serves fsys on 127.0.0.1 at a free port until Close.
func StartGopher(fsys fs.FS) (*Gopher, error) {
	return StartGopherWith(fsys, GopherOptions{})
}

// StartGopherWith is StartGopher with options.
func StartGopherWith(fsys fs.FS, opts GopherOptions) (*Gopher, error) {
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(opts.Port)))
	if err != nil {
		return nil, err
	}
	a := ln.Addr().(*net.TCPAddr)
	g := &Gopher{fsys: fsys, opts: opts, ln: ln, host: "127.0.0.1", port: a.Port}
	g.wg.Add(1)
	go g.serve()
	return g, nil
}

// Addr is the server's host:port.
func (g *Gopher) Addr() string { return g.ln.Addr().String() }

// Close stops accepting, waits for open requests, and returns.
func (g *Gopher) Close() error {
	err := g.ln.Close()
	g.wg.Wait()
	return err
}

func (g *Gopher) serve() {
	defer g.wg.Done()
	for {
		c, err := g.ln.Accept()
		if err != nil {
			return
		}
		g.wg.Add(1)
		go func() {
			defer g.wg.Done()
			defer c.Close()
			c.SetDeadline(time.Now().Add(30 * time.Second))
			g.handle(c)
		}()
	}
}

// gopherRequest is a request line: "selector [TAB search [TAB plus [TAB
// dataflag]]]", or "selector TAB plus" when the second field starts as a
// gopher+ string does ("+", "!", "$"); answers are the lines of the data
// block sent with data flag "1".
type gopherRequest struct {
	sel, search, plus string
	answers           []string
}

// readRequest reads the request line, and the data block of a filled
// form: "+-1", then lines up to a "." line (at most 4 KiB in all).
func readRequest(r *bufio.Reader) (gopherRequest, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return gopherRequest{}, err
	}
	f := strings.Split(strings.TrimRight(line, "\r\n"), "\t")
	req := gopherRequest{sel: f[0]}
	switch {
	case len(f) == 2 && strings.ContainsAny(f[1][:min(1, len(f[1]))], "+!$"):
		req.plus = f[1]
	case len(f) >= 2:
		req.search = f[1]
		if len(f) >= 3 {
			req.plus = f[2]
		}
	}
	if len(f) < 4 || f[3] != "1" {
		return req, nil
	}
	for {
		l, err := r.ReadString('\n')
		if err != nil {
			return gopherRequest{}, err
		}
		l = strings.TrimRight(l, "\r\n")
		if l == "." {
			return req, nil
		}
		if l != "+-1" || req.answers != nil {
			req.answers = append(req.answers, l)
		} else {
			req.answers = []string{}
		}
	}
}

func (g *Gopher) handle(c net.Conn) {
	req, err := readRequest(bufio.NewReaderSize(io.LimitReader(c, 4096), 4096))
	if err != nil {
		return
	}
	sel := req.sel
	plus := strings.HasPrefix(req.plus, "+") && !g.opts.RFC1436
	item, isItem := g.opts.Items[sel]
	if strings.HasPrefix(req.plus, "!") && !g.opts.RFC1436 {
		g.attributes(c, sel, item)
		return
	}
	var data []byte
	if isItem && item.Serve != nil {
		data = item.Serve(req.search, req.answers)
	} else if data, err = g.file(sel); err != nil {
		fmt.Fprintf(c, "3%v\t\terror.host\t1\r\n.\r\n", err)
		return
	}
	if plus {
		fmt.Fprintf(c, "+%d\r\n", len(data))
	}
	c.Write(data)
}

// file returns the menu or the file that sel names.
func (g *Gopher) file(sel string) ([]byte, error) {
	name := fsName(sel)
	st, err := fs.Stat(g.fsys, name)
	if err != nil || !fs.ValidPath(name) {
		return nil, fmt.Errorf("'%s' does not exist", sel)
	}
	if st.IsDir() {
		return g.menu(name), nil
	}
	data, err := fs.ReadFile(g.fsys, name)
	if err != nil {
		return nil, fmt.Errorf("cannot read '%s'", sel)
	}
	if g.opts.RFC1436 && itemTypeOf(name, false) == "0" {
		data = lineproto.Stuff(nil, data)
	}
	return data, nil
}

// fsName is the file system name of a selector ("." for the root).
func fsName(sel string) string {
	name := strings.Trim(path.Clean("/"+sel), "/")
	if name == "" {
		return "."
	}
	return name
}

// attributes answers a "!" request: +INFO, the item's +ASK block and its
// Attributes, then a "." line (length "+-1").
func (g *Gopher) attributes(c net.Conn, sel string, item GopherItem) {
	line, ok := g.itemLine(sel, item)
	if !ok {
		fmt.Fprintf(c, "--1\r\n'%s' does not exist\r\n.\r\n", sel)
		return
	}
	var b strings.Builder
	b.WriteString("+-1\r\n+INFO: " + line)
	if len(item.Ask) > 0 {
		b.WriteString("+ASK:\r\n")
		for _, l := range item.Ask {
			b.WriteString(" " + l + "\r\n")
		}
	}
	for l := range strings.Lines(item.Attributes) {
		b.WriteString(strings.TrimRight(l, "\r\n") + "\r\n")
	}
	b.WriteString(".\r\n")
	io.WriteString(c, b.String())
}

// itemLine is the menu line of sel (CRLF included), false when sel names
// neither a file nor an item.
func (g *Gopher) itemLine(sel string, item GopherItem) (string, bool) {
	_, isItem := g.opts.Items[sel]
	name := fsName(sel)
	st, err := fs.Stat(g.fsys, name)
	if (err != nil || !fs.ValidPath(name)) && !isItem {
		return "", false
	}
	typ := item.Type
	if typ == "" {
		typ = itemTypeOf(name, err == nil && st.IsDir())
	}
	title := item.Title
	if title == "" {
		title = path.Base("/" + name)
	}
	plus := "\t+"
	switch {
	case g.opts.RFC1436:
		plus = ""
	case len(item.Ask) > 0:
		plus = "\t?"
	}
	return fmt.Sprintf("%s%s\t%s\t%s\t%d%s\r\n", typ, title, sel, g.host, g.port, plus), true
}

func (g *Gopher) menu(dir string) []byte {
	ents, _ := fs.ReadDir(g.fsys, dir)
	sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
	var b strings.Builder
	fmt.Fprintf(&b, "i%s\t\terror.host\t1\r\n", "Index of /"+strings.TrimPrefix(dir, "."))
	prefix := "/" + strings.TrimLeft(path.Join("/", strings.TrimPrefix(dir, ".")), "/")
	for _, e := range ents {
		sel := "/" + strings.TrimLeft(path.Join(prefix, e.Name()), "/")
		line, _ := g.itemLine(sel, g.opts.Items[sel])
		b.WriteString(line)
	}
	for _, sel := range g.extraItems(prefix) {
		line, _ := g.itemLine(sel, g.opts.Items[sel])
		b.WriteString(line)
	}
	b.WriteString(".\r\n")
	return []byte(b.String())
}

// extraItems are the selectors of Items in the directory prefix that name
// no file, sorted.
func (g *Gopher) extraItems(prefix string) []string {
	var sels []string
	for sel := range g.opts.Items {
		if path.Dir(path.Clean("/"+sel)) != path.Clean(prefix) {
			continue
		}
		if _, err := fs.Stat(g.fsys, fsName(sel)); err == nil {
			continue
		}
		sels = append(sels, sel)
	}
	sort.Strings(sels)
	return sels
}

// itemTypeOf guesses the RFC 1436 item type of an entry from its name.
func itemTypeOf(name string, dir bool) string {
	if dir {
		return "1"
	}
	switch strings.ToLower(path.Ext(name)) {
	case ".txt", ".md", ".text", "":
		return "0"
	case ".gif":
		return "g"
	case ".png", ".jpg", ".jpeg":
		return "I"
	case ".html", ".htm":
		return "h"
	}
	return "9"
}
