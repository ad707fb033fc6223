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
// FEAT, OPTS, SYST, TYPE, PWD, CWD, CDUP, EPSV, PASV, LIST, NLST, MLSD,
// RETR, REST, SIZE, MDTM, NOOP, QUIT), anonymous logins only, passive mode
// only, and records every command it reads. With the fields Syst,
// NameLists, MLSD, Times and Paths it plays another system's server
// (SystemFTP).
type RawFTP struct {
	// Listings maps a directory ("/", "/pub") to the bytes of its LIST
	// answer. A CWD to a directory not in Listings is refused with 550.
	Listings map[string]string
	// Files maps a file's path ("/pub/a.txt") to its bytes. A RETR of a
	// path not in Files is refused with 550.
	Files map[string][]byte

	// The fields below let a test play another system's server
	// (SystemFTP); their zero values keep the behaviour above.

	// Syst is the text of the reply to SYST; "" means "UNIX Type: L8".
	Syst string
	// NameLists maps a directory to the bytes of its NLST answer. When
	// nil, NLST answers with the LIST bytes.
	NameLists map[string]string
	// MLSD maps a directory to the bytes of its MLSD answer. When not
	// nil, FEAT lists MLST and MLSD is served; otherwise MLSD is 502.
	MLSD map[string]string
	// Times maps a file's path to its modification time, for MDTM; a
	// file not in it has 2001-02-03 04:05:06 UTC.
	Times map[string]time.Time
	// Paths, when set, reads and writes path arguments in another
	// system's syntax (VMS: "DISK$USER:[ANONYMOUS.PUB]", "README.TXT;2").
	Paths PathSyntax
	// RefuseOptions answers a LIST or NLST whose argument begins with
	// "-" ("LIST -a") with 501, as a server that knows no ls options
	// does. False ignores the option.
	RefuseOptions bool
	// ListDone maps a directory to the completion reply of its listings
	// (a multi-line reply as lines joined by "\r\n"), such as Pure-FTPd's
	// "226 Output truncated to 10000 matches". A directory not in it gets
	// "226 transfer complete".
	ListDone map[string]string

	ln    net.Listener
	wg    sync.WaitGroup
	mu    sync.Mutex
	cmds  []string
	conns map[net.Conn]bool
	done  bool
	idle  []chan struct{} // WaitIdle's, closed when no connection is open
}

// PathSyntax is how a RawFTP of another system names directories and
// files. Directories are still keys of Listings ("/", "/SUB") and files
// keys of Files; PathSyntax translates the arguments of commands to them
// and the current directory to a PWD answer.
type PathSyntax interface {
	// PWD is the text PWD puts in quotes for dir.
	PWD(dir string) string
	// CWD is the directory a CWD with arg leads to from dir; ok is false
	// when arg names none (the server answers 550).
	CWD(s *RawFTP, dir, arg string) (to string, ok bool)
	// File is the key of Files that arg names from dir (RETR, SIZE,
	// MDTM); ok is false when it names none.
	File(s *RawFTP, dir, arg string) (key string, ok bool)
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

// WaitIdle waits until no client connection is open (each session has
// read its client's last command, QUIT or the end of the connection),
// at most timeout; it reports whether that happened. A client that
// closed its connection may still have commands on their way: a test
// reads Commands after WaitIdle to see them all.
func (s *RawFTP) WaitIdle(timeout time.Duration) bool {
	s.mu.Lock()
	if len(s.conns) == 0 {
		s.mu.Unlock()
		return true
	}
	ch := make(chan struct{})
	s.idle = append(s.idle, ch)
	s.mu.Unlock()
	select {
	case <-ch:
		return true
	case <-time.After(timeout):
		return false
	}
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
		return true
	}
	delete(s.conns, c)
	if len(s.conns) == 0 {
		for _, ch := range s.idle {
			close(ch)
		}
		s.idle = nil
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

// file is the key of Files that a file argument names ("" for none).
func (ss *rawSession) file(arg string) string {
	if ss.s.Paths == nil {
		return ss.abs(arg)
	}
	key, ok := ss.s.Paths.File(ss.s, ss.cwd, arg)
	if !ok {
		return ""
	}
	return key
}

// command answers one command; it returns false to end the session.
func (ss *rawSession) command(verb, arg string) bool {
	if verb == "QUIT" {
		ss.reply("221 bye")
		return false
	}
	h, ok := rawHandlers[verb]
	if !ok {
		ss.reply("502 %s not implemented", verb)
		return true
	}
	h(ss, verb, arg)
	return true
}

// rawHandlers answers each command the server knows but QUIT, by verb.
var rawHandlers = map[string]func(ss *rawSession, verb, arg string){
	"USER": func(ss *rawSession, _, _ string) { ss.reply("331 any password will do") },
	"PASS": func(ss *rawSession, _, _ string) { ss.reply("230 logged in") },
	"FEAT": (*rawSession).feat,
	"SYST": (*rawSession).syst,
	"OPTS": (*rawSession).ok,
	"TYPE": (*rawSession).ok,
	"NOOP": (*rawSession).ok,
	"PWD":  (*rawSession).pwd,
	"CWD":  (*rawSession).cwdTo,
	"CDUP": (*rawSession).cwdTo,
	"EPSV": (*rawSession).passive,
	"PASV": (*rawSession).passive,
	"REST": (*rawSession).restart,
	"SIZE": (*rawSession).size,
	"MDTM": (*rawSession).mdtm,
	"LIST": (*rawSession).list,
	"NLST": (*rawSession).list,
	"MLSD": (*rawSession).list,
	"RETR": (*rawSession).retr,
}

// ok accepts a command that changes nothing here (OPTS, TYPE, NOOP).
func (ss *rawSession) ok(_, _ string) { ss.reply("200 ok") }

// feat lists the extensions, MLST only when the server has MLSD listings.
func (ss *rawSession) feat(_, _ string) {
	mlst := ""
	if ss.s.MLSD != nil {
		mlst = " MLST type*;size*;modify*;\r\n"
	}
	ss.reply("211-Features:\r\n EPSV\r\n PASV\r\n REST STREAM\r\n SIZE\r\n MDTM\r\n%s211 End", mlst)
}

// syst answers the configured system type, UNIX by default.
func (ss *rawSession) syst(_, _ string) {
	syst := ss.s.Syst
	if syst == "" {
		syst = "UNIX Type: L8"
	}
	ss.reply("215 %s", syst)
}

// pwd answers the current directory, as Paths shows it when set, with
// quotes doubled (RFC 959 appendix II).
func (ss *rawSession) pwd(_, _ string) {
	shown := ss.cwd
	if ss.s.Paths != nil {
		shown = ss.s.Paths.PWD(ss.cwd)
	}
	ss.reply("257 \"%s\" is the current directory", strings.ReplaceAll(shown, `"`, `""`))
}

// cwdTo changes to the directory CWD names or to the parent on CDUP,
// refusing one that has no listing.
func (ss *rawSession) cwdTo(verb, arg string) {
	s := ss.s
	dir, ok := ss.abs(arg), true
	switch {
	case verb == "CDUP":
		dir = path.Dir(ss.cwd)
	case s.Paths != nil:
		dir, ok = s.Paths.CWD(s, ss.cwd, arg)
	}
	if _, known := s.Listings[dir]; !known || !ok {
		ss.reply("550 no such directory")
		return
	}
	ss.cwd = dir
	ss.reply("250 directory changed")
}

// passive opens a new passive listener on loopback (closing any earlier
// one) and answers its port in EPSV's or PASV's form.
func (ss *rawSession) passive(verb, _ string) {
	if ss.pasv != nil {
		ss.pasv.Close()
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		ss.reply("425 cannot listen")
		return
	}
	ss.pasv = ln
	port := ln.Addr().(*net.TCPAddr).Port
	if verb == "EPSV" {
		ss.reply("229 Entering Extended Passive Mode (|||%d|)", port)
	} else {
		ss.reply("227 Entering Passive Mode (127,0,0,1,%d,%d)", port>>8, port&0xff)
	}
}

// restart records the offset of the next RETR.
func (ss *rawSession) restart(_, arg string) {
	n, err := strconv.ParseInt(arg, 10, 64)
	if err != nil || n < 0 {
		ss.reply("501 bad offset")
		return
	}
	ss.rest = n
	ss.reply("350 restarting at %d", n)
}

// size answers a file's length in bytes.
func (ss *rawSession) size(_, arg string) {
	b, ok := ss.s.Files[ss.file(arg)]
	if !ok {
		ss.reply("550 no such file")
		return
	}
	ss.reply("213 %d", len(b))
}

// mdtm answers a file's modification time, a fixed date when Times has
// none.
func (ss *rawSession) mdtm(_, arg string) {
	key := ss.file(arg)
	if _, ok := ss.s.Files[key]; !ok {
		ss.reply("550 no such file")
		return
	}
	t, ok := ss.s.Times[key]
	if !ok {
		t = time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	}
	ss.reply("213 %s", t.UTC().Format("20060102150405"))
}

// list sends the LIST, NLST or MLSD listing of the current directory or
// of the one arg names (an argument starting with "-" is an option).
func (ss *rawSession) list(verb, arg string) {
	s := ss.s
	if s.RefuseOptions && strings.HasPrefix(arg, "-") {
		ss.reply("501 %s: unknown option", arg)
		return
	}
	dir := ss.cwd
	if arg != "" && !strings.HasPrefix(arg, "-") {
		dir = ss.abs(arg)
	}
	listing, ok := s.Listings[dir]
	switch {
	case verb == "NLST" && s.NameLists != nil:
		listing, ok = s.NameLists[dir]
	case verb == "MLSD" && s.MLSD == nil:
		ss.reply("502 MLSD not implemented")
		return
	case verb == "MLSD":
		listing, ok = s.MLSD[dir]
	}
	if !ok {
		ss.reply("550 no such directory")
		return
	}
	ss.transferDone([]byte(listing), s.ListDone[dir])
}

// retr sends a file from the offset of a preceding REST, which it
// consumes.
func (ss *rawSession) retr(_, arg string) {
	b, ok := ss.s.Files[ss.file(arg)]
	off := ss.rest
	ss.rest = 0
	if !ok || off > int64(len(b)) {
		ss.reply("550 no such file")
		return
	}
	ss.transfer(b[off:])
}

// transfer sends b on the passive data connection.
func (ss *rawSession) transfer(b []byte) { ss.transferDone(b, "") }

// transferDone is transfer with done, when not "", as the completion
// reply.
func (ss *rawSession) transferDone(b []byte, done string) {
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
	if done == "" {
		done = "226 transfer complete"
	}
	ss.reply("%s", done)
}
