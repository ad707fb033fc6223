package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/rfc1738/fetch/fetch/fetchtest"
)

// ports are the ports to listen on at 127.0.0.1; 0 picks a free one.
type ports struct {
	FTP, Gopher, NNTP, Telnet, HTTP int
}

// demo is the set of running servers.
type demo struct {
	ftp    *fetchtest.FTP
	gopher *fetchtest.Gopher
	nntp   *fetchtest.NNTP
	telnet *telnetServer
	http   *httpServer
}

// start starts every server; on an error it stops those already started.
func start(p ports) (d *demo, err error) {
	d = &demo{}
	defer func() {
		if err != nil {
			d.Close()
			d = nil
		}
	}()
	if d.ftp, err = fetchtest.StartFTP(ftpArchive(), fetchtest.FTPOptions{Port: p.FTP, User: "demo", Password: "demo"}); err != nil {
		return nil, fmt.Errorf("ftp on port %d: %w", p.FTP, err)
	}
	if d.gopher, err = startGopher(p.Gopher); err != nil {
		return nil, fmt.Errorf("gopher on port %d: %w", p.Gopher, err)
	}
	d.nntp = newsServer()
	if err = d.nntp.Listen(hostPort(p.NNTP)); err != nil {
		d.nntp = nil
		return nil, fmt.Errorf("nntp on port %d: %w", p.NNTP, err)
	}
	if d.telnet, err = startTelnet(hostPort(p.Telnet)); err != nil {
		return nil, fmt.Errorf("telnet on port %d: %w", p.Telnet, err)
	}
	if d.http, err = startHTTP(hostPort(p.HTTP)); err != nil {
		return nil, fmt.Errorf("http on port %d: %w", p.HTTP, err)
	}
	return d, nil
}

func hostPort(port int) string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(port)) }

// Addrs returns the host:port of each server, by URL scheme.
func (d *demo) Addrs() map[string]string {
	return map[string]string{
		"ftp":    d.ftp.Addr(),
		"gopher": d.gopher.Addr(),
		"nntp":   d.nntp.Addr,
		"telnet": d.telnet.Addr(),
		"http":   d.http.Addr(),
	}
}

// describe writes one line per server: its scheme, its URL, what it
// serves.
func (d *demo) describe(w io.Writer) {
	a := d.Addrs()
	for _, l := range [][2]string{
		{"ftp://" + a["ftp"] + "/pub/", "anonymous, read-only; /etc/motd is ftp://" + a["ftp"] + "/%2Fetc/motd"},
		{"gopher://" + a["gopher"] + "/", "Gopher+ attributes of /0/about.txt, an +ASK form /0/form, a search /7/search"},
		{"nntp://" + a["nntp"] + "/", "groups local.test, comp.lang.go, comp.lang.c"},
		{"http://" + a["http"] + "/", "index pages of /pub/; a WAIS gateway at /wais?db=DB&q=WORDS"},
		{"telnet://" + a["telnet"] + "/", "a banner; Ctrl-] leaves"},
	} {
		fmt.Fprintf(w, "%-30s %s\n", l[0], l[1])
	}
}

// Close stops every server that runs.
func (d *demo) Close() error {
	var errs []error
	if d.http != nil {
		errs = append(errs, d.http.Close())
	}
	if d.telnet != nil {
		errs = append(errs, d.telnet.Close())
	}
	if d.nntp != nil {
		errs = append(errs, d.nntp.Close())
	}
	if d.gopher != nil {
		errs = append(errs, d.gopher.Close())
	}
	if d.ftp != nil {
		errs = append(errs, d.ftp.Close())
	}
	return errors.Join(errs...)
}

// httpServer serves the HTTP archive.
type httpServer struct {
	srv  *http.Server
	ln   net.Listener
	done chan error
}

func startHTTP(addr string) (*httpServer, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	h := &httpServer{
		srv:  &http.Server{Handler: httpHandler(), ReadHeaderTimeout: 10 * time.Second},
		ln:   ln,
		done: make(chan error, 1),
	}
	go func() { h.done <- h.srv.Serve(ln) }()
	return h, nil
}

func (h *httpServer) Addr() string { return h.ln.Addr().String() }

func (h *httpServer) Close() error {
	err := h.srv.Close()
	<-h.done
	return err
}

// telnetServer greets each connection with a banner and reads what the
// user types until they leave (or 5 minutes pass).
type telnetServer struct {
	ln    net.Listener
	wg    sync.WaitGroup
	mu    sync.Mutex
	conns map[net.Conn]bool
	// closed is set by Close: a connection accepted after it is closed.
	closed bool
}

// banner is what the telnet service shows.
const banner = "\r\nfetch demo telnet service\r\n" +
	"There is nothing to log in to here: this is the banner a telnet: URL leads to.\r\n" +
	"Press Ctrl-] to leave.\r\n"

func startTelnet(addr string) (*telnetServer, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := &telnetServer{ln: ln, conns: make(map[net.Conn]bool)}
	s.wg.Add(1)
	go s.serve()
	return s, nil
}

func (s *telnetServer) Addr() string { return s.ln.Addr().String() }

func (s *telnetServer) serve() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		if s.closed {
			c.Close()
		} else {
			s.conns[c] = true
			s.wg.Add(1)
			go s.handle(c)
		}
		s.mu.Unlock()
	}
}

func (s *telnetServer) handle(c net.Conn) {
	defer s.wg.Done()
	defer func() {
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
		c.Close()
	}()
	c.SetDeadline(time.Now().Add(5 * time.Minute))
	if _, err := io.WriteString(c, banner); err != nil {
		return
	}
	io.Copy(io.Discard, c)
}

// Close stops accepting, closes the open sessions and waits for them.
func (s *telnetServer) Close() error {
	err := s.ln.Close()
	s.mu.Lock()
	s.closed = true
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	return err
}
