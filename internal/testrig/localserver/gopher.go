package localserver

import (
	"bufio"
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
	ln   net.Listener
	host string
	port int
	wg   sync.WaitGroup
}

// StartGopher serves fsys on 127.0.0.1 at a free port until Close.
func StartGopher(fsys fs.FS) (*Gopher, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	a := ln.Addr().(*net.TCPAddr)
	g := &Gopher{fsys: fsys, ln: ln, host: "127.0.0.1", port: a.Port}
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
	plus := len(fields) > 1 && strings.HasPrefix(fields[len(fields)-1], "+")
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
		fmt.Fprintf(&b, "%s%s\t%s\t%s\t%d\t+\r\n", itemType(e), e.Name(), sel, g.host, g.port)
	}
	b.WriteString(".\r\n")
	return []byte(b.String())
}

// itemType guesses the RFC 1436 item type of an entry from its name.
func itemType(e fs.DirEntry) string {
	if e.IsDir() {
		return "1"
	}
	switch strings.ToLower(path.Ext(e.Name())) {
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
