package fetchtest

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"net"
	"path"
	"sort"
	"strings"
	"sync"
	"time"
)

// Gopher is an in-process gopher server (RFC 1436) over an fs.FS. A
// directory is a menu (type 1) listing its entries; a file is sent as is.
// Selectors are slash-separated paths from the root ("" or "/" is the
// root). With a Gopher+ "+" request (selector TAB "+", or selector TAB TAB
// "+") the data is preceded by a "+<length>" header line; menus mark every
// item as Gopher+ with a trailing "+" field.
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
}

// StartGopher serves fsys on 127.0.0.1 at a free port until Close.
func StartGopher(fsys fs.FS) (*Gopher, error) {
	return StartGopherWith(fsys, GopherOptions{})
}

// StartGopherWith is StartGopher with options.
func StartGopherWith(fsys fs.FS, opts GopherOptions) (*Gopher, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
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

func (g *Gopher) handle(c net.Conn) {
	line, err := bufio.NewReaderSize(io.LimitReader(c, 4096), 4096).ReadString('\n')
	if err != nil {
		return
	}
	fields := strings.Split(strings.TrimRight(line, "\r\n"), "\t")
	sel := fields[0]
	plus := len(fields) > 1 && strings.HasPrefix(fields[len(fields)-1], "+") && !g.opts.RFC1436
	name := strings.Trim(path.Clean("/"+sel), "/")
	if name == "" {
		name = "."
	}
	st, err := fs.Stat(g.fsys, name)
	if err != nil || !fs.ValidPath(name) {
		fmt.Fprintf(c, "3'%s' does not exist\t\terror.host\t1\r\n.\r\n", sel)
		return
	}
	var data []byte
	if st.IsDir() {
		data = g.menu(name)
	} else if data, err = fs.ReadFile(g.fsys, name); err != nil {
		fmt.Fprintf(c, "3cannot read '%s'\t\terror.host\t1\r\n.\r\n", sel)
		return
	} else if g.opts.RFC1436 && itemTypeOf(name, false) == "0" {
		data = stuffed(data)
	}
	if plus {
		fmt.Fprintf(c, "+%d\r\n", len(data))
	}
	c.Write(data)
}

func (g *Gopher) menu(dir string) []byte {
	ents, _ := fs.ReadDir(g.fsys, dir)
	sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
	var b strings.Builder
	fmt.Fprintf(&b, "i%s\t\terror.host\t1\r\n", "Index of /"+strings.TrimPrefix(dir, "."))
	for _, e := range ents {
		sel := "/" + path.Join(strings.TrimPrefix(dir, "."), e.Name())
		sel = "/" + strings.TrimLeft(sel, "/")
		plus := "\t+"
		if g.opts.RFC1436 {
			plus = ""
		}
		fmt.Fprintf(&b, "%s%s\t%s\t%s\t%d%s\r\n", itemType(e), e.Name(), sel, g.host, g.port, plus)
	}
	b.WriteString(".\r\n")
	return []byte(b.String())
}

// stuffed is a text as RFC 1436 section 3.8 sends it: each line that
// begins with "." gets a second one, and a "." line ends it (after a line
// end, added when the text has none at its end).
func stuffed(text []byte) []byte {
	var b []byte
	for len(text) > 0 {
		line := text
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			line = text[:i+1]
		}
		text = text[len(line):]
		if line[0] == '.' {
			b = append(b, '.')
		}
		b = append(b, line...)
	}
	if len(b) > 0 && b[len(b)-1] != '\n' {
		b = append(b, '\r', '\n')
	}
	return append(b, ".\r\n"...)
}

// itemType guesses the RFC 1436 item type of an entry from its name.
func itemType(e fs.DirEntry) string {
	return itemTypeOf(e.Name(), e.IsDir())
}

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
