package localserver

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"
)

// RawFTP is a small in-process FTP server whose directory listings are the
// bytes a test gives, sent as they are: names with "/", "..", CR, LF or
// NUL, links pointing anywhere, lines no real file system would produce.
// It speaks the part of RFC 959 that the ftp driver uses (USER, PASS,
// FEAT, OPTS, SYST, TYPE, PWD, CWD, CDUP, EPSV, PASV, LIST, NLST, RETR,
// REST, SIZE, MDTM, NOOP, QUIT), anonymous logins only, passive mode only,
// and records every command it reads.
type RawFTP struct {
	// Listings maps a directory ("/", "/pub") to the bytes of its LIST
	// answer. A CWD to a directory not in Listings is refused with 550.
	Listings map[string]string
	// Files maps a file's path ("/pub/a.txt") to its bytes. A RETR of a
	// path not in Files is refused with 550.
	Files map[string][]byte

	ln    net.Listener
	wg    sync.WaitGroup
	mu    sync.Mutex
	cmds  []string
	conns map[net.Conn]bool
	done  bool
}

// rawTimeout bounds every wait of the server for its client.
const rawTimeout = 10 * time.Second

// StartRawFTP serves s on 127.0.0.1 at a free port until Close. s must not
// be changed while it is served.
func StartRawFTP(s *RawFTP) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	s.ln, s.conns = ln, map[net.Conn]bool{}
	s.wg.Add(1)
	go s.serve()
	return nil
}

// Addr is the server's host:port.
func (s *RawFTP) Addr() string { return s.ln.Addr().String() }

// Commands returns the commands read so far, from every client, in order.
func (s *RawFTP) Commands() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.cmds...)
}

// Close stops the server, closes its connections and waits for them.
func (s *RawFTP) Close() error {
	s.mu.Lock()
	s.done = true
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	err := s.ln.Close()
	s.wg.Wait()
	return err
}

func (s *RawFTP) track(c net.Conn, on bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if on && s.done {
		return false
	}
	if on {
		s.conns[c] = true
	} else {
		delete(s.conns, c)
	}
	return true
}

func (s *RawFTP) serve() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		if !s.track(c, true) {
			c.Close()
			return
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer s.track(c, false)
			defer c.Close()
			s.session(c)
		}()
	}
}

// rawSession is the state of one control connection.
type rawSession struct {
	s    *RawFTP
	c    net.Conn
	r    *bufio.Reader
	cwd  string
	rest int64
	pasv net.Listener
}

func (s *RawFTP) session(c net.Conn) {
	ss := &rawSession{s: s, c: c, r: bufio.NewReaderSize(c, 4096), cwd: "/"}
	defer func() {
		if ss.pasv != nil {
			ss.pasv.Close()
		}
	}()
	ss.reply("220 raw listing server ready")
	for {
		c.SetDeadline(time.Now().Add(rawTimeout))
		line, err := ss.r.ReadString('\n')
		if err != nil {
			return
		}
		line = strings.TrimRight(line, "\r\n")
		s.mu.Lock()
		s.cmds = append(s.cmds, line)
		s.mu.Unlock()
		verb, arg, _ := strings.Cut(line, " ")
		if !ss.command(strings.ToUpper(verb), arg) {
			return
		}
	}
}

func (ss *rawSession) reply(format string, args ...any) {
	fmt.Fprintf(ss.c, format+"\r\n", args...)
}

// abs resolves a path argument against the current directory.
func (ss *rawSession) abs(p string) string {
	if strings.HasPrefix(p, "/") {
		return path.Clean(p)
	}
	return path.Join(ss.cwd, p)
}

// command answers one command; it returns false to end the session.
func (ss *rawSession) command(verb, arg string) bool {
	s := ss.s
	switch verb {
	case "USER":
		ss.reply("331 any password will do")
	case "PASS":
		ss.reply("230 logged in")
	case "FEAT":
		ss.reply("211-Features:\r\n EPSV\r\n PASV\r\n REST STREAM\r\n SIZE\r\n MDTM\r\n211 End")
	case "SYST":
		ss.reply("215 UNIX Type: L8")
	case "OPTS", "TYPE", "NOOP":
		ss.reply("200 ok")
	case "PWD":
		ss.reply("257 %q is the current directory", ss.cwd)
	case "CWD", "CDUP":
		dir := ss.abs(arg)
		if verb == "CDUP" {
			dir = path.Dir(ss.cwd)
		}
		if _, ok := s.Listings[dir]; !ok {
			ss.reply("550 no such directory")
			return true
		}
		ss.cwd = dir
		ss.reply("250 directory changed")
	case "EPSV", "PASV":
		if ss.pasv != nil {
			ss.pasv.Close()
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			ss.reply("425 cannot listen")
			return true
		}
		ss.pasv = ln
		port := ln.Addr().(*net.TCPAddr).Port
		if verb == "EPSV" {
			ss.reply("229 Entering Extended Passive Mode (|||%d|)", port)
		} else {
			ss.reply("227 Entering Passive Mode (127,0,0,1,%d,%d)", port>>8, port&0xff)
		}
	case "REST":
		n, err := strconv.ParseInt(arg, 10, 64)
		if err != nil || n < 0 {
			ss.reply("501 bad offset")
			return true
		}
		ss.rest = n
		ss.reply("350 restarting at %d", n)
	case "SIZE":
		b, ok := s.Files[ss.abs(arg)]
		if !ok {
			ss.reply("550 no such file")
			return true
		}
		ss.reply("213 %d", len(b))
	case "MDTM":
		if _, ok := s.Files[ss.abs(arg)]; !ok {
			ss.reply("550 no such file")
			return true
		}
		ss.reply("213 20010203040506")
	case "LIST", "NLST":
		dir := ss.cwd
		if arg != "" && !strings.HasPrefix(arg, "-") {
			dir = ss.abs(arg)
		}
		listing, ok := s.Listings[dir]
		if !ok {
			ss.reply("550 no such directory")
			return true
		}
		ss.transfer([]byte(listing))
	case "RETR":
		b, ok := s.Files[ss.abs(arg)]
		off := ss.rest
		ss.rest = 0
		if !ok || off > int64(len(b)) {
			ss.reply("550 no such file")
			return true
		}
		ss.transfer(b[off:])
	case "QUIT":
		ss.reply("221 bye")
		return false
	default:
		ss.reply("502 %s not implemented", verb)
	}
	return true
}

// transfer sends b on the passive data connection.
func (ss *rawSession) transfer(b []byte) {
	if ss.pasv == nil {
		ss.reply("425 use EPSV or PASV first")
		return
	}
	ln := ss.pasv
	ss.pasv = nil
	defer ln.Close()
	ss.reply("150 here it comes")
	ln.(*net.TCPListener).SetDeadline(time.Now().Add(rawTimeout))
	d, err := ln.Accept()
	if err != nil {
		ss.reply("425 no data connection")
		return
	}
	d.SetDeadline(time.Now().Add(rawTimeout))
	_, err = io.Copy(d, strings.NewReader(string(b)))
	d.Close()
	if err != nil {
		ss.reply("426 transfer aborted")
		return
	}
	ss.reply("226 transfer complete")
}
