package ftp

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rfc1738/fetch/internal/testrig/notify"
)

// fakeFTP is a scripted FTP server on 127.0.0.1:0 for transcript tests: it
// records every byte the client sends on control connections and answers
// from a small default script, which a test changes through its fields
// before the first connection.
type fakeFTP struct {
	t  *testing.T
	ln net.Listener

	greeting   string              // first reply; "" means none (a silent server)
	feat       []string            // FEAT lines (without the leading space)
	replies    map[string]string   // exact command line -> reply (may hold CRLFs)
	raw        map[string][]byte   // exact command line ("" for the greeting) -> bytes sent as they are
	rawEnd     bool                // after sending a raw answer, close the control connection
	files      map[string][]byte   // RETR/SIZE argument -> content
	lists      map[string][]byte   // "LIST arg", "MLSD arg", "NLST arg" -> data
	listSeq    map[string][][]byte // as lists, one answer per request in turn (the last repeats); before lists
	pwd        string              // PWD answer; "" means `"/"`
	pwds       []string            // full replies to the first PWDs (all sessions), before pwd applies
	noEPSV     bool                // refuse EPSV: the client falls back to PASV
	cwdShuts   bool                // CWD closes the passive port an EPSV opened
	pasvHost   string              // address put in PASV replies; "" means 127.0.0.1
	silentAt   string              // after this verb, read on and never answer
	stallAt    int                 // RETR data: stop sending (connection open) after this many bytes; 0 means never
	cutAt      int                 // RETR data: close the data connection after this many bytes, then reply 426; 0 means never
	cutReply   string              // the reply after a cut instead of 426
	hangUps    int                 // the first so many transfers (RETR or a listing, over all sessions) send the whole data, then close the control connection with no completion reply
	hangRST    bool                // hang up with a reset (TCP RST), as a NAT that dropped the connection does
	listDone   string              // the completion reply of listings (may hold CRLFs); "" means "226 transfer complete"
	holdDone   bool                // RETR: send 226 only once the client has sent its next command (a pipelining client)
	holdList   bool                // with holdDone, for LIST, MLSD and NLST too, whose 226 goes in one write with the next reply
	epsvJunk   string              // sent after every 229 reply, as if the server answered twice
	holdData   time.Duration       // RETR: after the 150, wait this long for a command before sending the data
	peekHalf   bool                // before sending, record whether the client has half-closed the data connection (waits 300 ms when not)
	oopsEPSV   int                 // the nth EPSV (counted over all sessions) gets vsftpd's "500 OOPS" and the session ends
	refuseEPSV int                 // the nth EPSV (counted over all sessions) is refused
	telnet     bool                // read command lines as Telnet, as the BSD ftpd and inetutils-ftpd do (telnetLine)
	dropIAC    bool                // read on past a command line whose verb holds the byte 0xff, and never answer it (Pure-FTPd)
	opening    string              // the text of the 150 before passive data; "" means "opening data connection"
	// passAhead: PASS is answered only once the client has sent the
	// commands after it up to aheadTo ("" means PWD), or 2 s have
	// passed; beforePass records those that came before the reply.
	passAhead  bool
	aheadTo    string
	beforePass []string
	// lateRefusals: the first so many PASS (over all sessions) are
	// refused after the commands sent with them are answered (FEAT as
	// usual, the others 530), as pyftpdlib answers while it delays a
	// refusal.
	lateRefusals int
	// A listing's data stops after holdAt bytes until hold is closed
	// (or 5 s pass), then goes on; released records which came first.
	holdAt   int
	hold     chan struct{}
	released bool

	// Active mode and TLS (active_test.go, tls_test.go).
	noEPRT     bool        // refuse EPRT with 500: the client falls back to PORT
	activeFrom string      // the source IP of active data connections (their destination is the client's); "" means 127.0.0.1
	activeLate bool        // active mode: send the 150 before connecting (vsftpd connects first)
	tlsCfg     *tls.Config // accept AUTH TLS with this server configuration; nil refuses it (502)

	mu      sync.Mutex
	wire    bytes.Buffer
	changed notify.Signal // notified at each command recorded in wire
	midXfer []string      // commands that came during a transfer (holdData)
	conns   int
	dataTo  []string // local addresses data connections were accepted on
	halves  []bool   // peekHalf: for each data connection, whether the client had half-closed it
	epsvs   int      // EPSV commands seen
	resumed []bool   // for each TLS data connection, whether it resumed a session
}

func newFake(t *testing.T) *fakeFTP {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeFTP{
		t:        t,
		ln:       ln,
		greeting: "220 fake ready",
		feat:     []string{"MDTM", "SIZE", "EPSV", "PASV", "REST STREAM"},
		replies:  map[string]string{},
		raw:      map[string][]byte{},
		files:    map[string][]byte{},
		lists:    map[string][]byte{},
	}
	t.Cleanup(func() { ln.Close() })
	return f
}

// start begins serving; call it after setting the fields.
func (f *fakeFTP) start() *fakeFTP {
	go func() {
		for {
			c, err := f.ln.Accept()
			if err != nil {
				return
			}
			f.mu.Lock()
			f.conns++
			f.mu.Unlock()
			go f.serve(c)
		}
	}()
	return f
}

func (f *fakeFTP) addr() string { return f.ln.Addr().String() }

// url returns "ftp://ADDR" + path.
func (f *fakeFTP) url(path string) string { return "ftp://" + f.addr() + path }

// sent returns everything the client sent, all connections together.
func (f *fakeFTP) sent() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.wire.String()
}

// closeIdle closes d's idle connections and waits until the fake has read
// the QUIT of the last one: the fake reads each connection on its own
// goroutine into one transcript, where a late QUIT would land among the
// next connection's commands.
func (f *fakeFTP) closeIdle(d *Driver) {
	d.CloseIdleConnections()
	f.changed.Until(5*time.Second, func() bool { return strings.HasSuffix(f.sent(), "QUIT\r\n") })
}

func (f *fakeFTP) connCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.conns
}

type fakeSession struct {
	f      *fakeFTP
	c      net.Conn
	br     *bufio.Reader
	dataLn net.Listener
	rest   int
	silent bool
	held   []byte   // a reply to send with the next one (holdList)
	next   []string // commands already read (holdDone, passAhead), to handle next

	activeTo string // the address of the last EPRT or PORT
	prot     bool   // PROT P: data connections are TLS
}

func (f *fakeFTP) serve(c net.Conn) {
	defer c.Close()
	s := &fakeSession{f: f, c: c, br: bufio.NewReader(c)}
	defer func() {
		if s.dataLn != nil {
			s.dataLn.Close()
		}
	}()
	c.SetDeadline(time.Now().Add(20 * time.Second))
	if b, ok := f.raw[""]; ok {
		c.Write(b)
		if f.rawEnd {
			return
		}
	} else if f.greeting == "" {
		s.silent = true
	} else {
		s.reply(f.greeting)
	}
	for {
		var line string
		var err error
		if len(s.next) > 0 {
			line, s.next = s.next[0], s.next[1:]
		} else {
			line, err = s.readCmd()
		}
		if err != nil {
			return
		}
		if verb, _, _ := strings.Cut(line, " "); s.silent || f.dropIAC && strings.Contains(verb, "\xff") {
			continue
		}
		if f.telnet {
			line = telnetLine(line)
		}
		cmd := strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
		verb, arg, _ := strings.Cut(cmd, " ")
		verb = strings.ToUpper(verb)
		if verb == "PASS" && s.atPass() {
			continue
		}
		if f.silentAt != "" && verb == f.silentAt {
			s.silent = true
			continue
		}
		if b, ok := f.raw[cmd]; ok {
			c.Write(b)
			if f.rawEnd {
				return
			}
			continue
		}
		if r, ok := f.replies[cmd]; ok {
			s.reply(r)
			continue
		}
		if !s.handle(verb, arg) {
			return
		}
	}
}

// atPass reads ahead after PASS (passAhead, lateRefusals) and answers
// a late refusal; it reports whether PASS was answered.
func (s *fakeSession) atPass() bool {
	f := s.f
	f.mu.Lock()
	late := f.lateRefusals > 0
	f.lateRefusals--
	f.mu.Unlock()
	if f.passAhead || late {
		s.readAhead()
	}
	if !late {
		return false
	}
	for _, l := range s.next {
		if strings.HasPrefix(l, "FEAT") {
			s.handle("FEAT", "")
		} else {
			s.reply("530 Log in with USER and PASS first.")
		}
	}
	s.next = nil
	s.reply("530 Authentication failed.")
	return true
}

// readAhead reads the commands that follow PASS, up to aheadTo, for at most
// 2 s (passAhead), and keeps them to handle after PASS.
func (s *fakeSession) readAhead() {
	s.c.SetReadDeadline(time.Now().Add(2 * time.Second))
	defer s.c.SetDeadline(time.Now().Add(20 * time.Second))
	for range 8 {
		line, err := s.readCmd()
		if err != nil {
			return
		}
		s.next = append(s.next, line)
		cmd := strings.TrimRight(line, "\r\n")
		s.f.mu.Lock()
		s.f.beforePass = append(s.f.beforePass, cmd)
		s.f.mu.Unlock()
		if cmd == cmpOr(s.f.aheadTo, "PWD") {
			return
		}
	}
}

// readCmd reads one command line and records it.
func (s *fakeSession) readCmd() (string, error) {
	line, err := s.br.ReadString('\n')
	s.f.mu.Lock()
	s.f.wire.WriteString(line)
	s.f.mu.Unlock()
	s.f.changed.Notify()
	return line, err
}

func (s *fakeSession) reply(r string) {
	b := append(s.held, r+"\r\n"...)
	s.held = nil
	s.c.Write(b)
}

// handle answers one command; false ends the session.
func (s *fakeSession) handle(verb, arg string) bool {
	f := s.f
	switch verb {
	case "USER":
		s.reply("331 password please")
	case "PASS":
		s.reply("230 logged in")
	case "FEAT":
		var b strings.Builder
		b.WriteString("211-Features:\r\n")
		for _, l := range f.feat {
			b.WriteString(" " + l + "\r\n")
		}
		b.WriteString("211 End")
		s.reply(b.String())
	case "TYPE", "NOOP", "OPTS":
		s.reply("200 ok")
	case "PWD":
		f.mu.Lock()
		if len(f.pwds) > 0 {
			r := f.pwds[0]
			f.pwds = f.pwds[1:]
			f.mu.Unlock()
			s.reply(r)
			return true
		}
		f.mu.Unlock()
		p := f.pwd
		if p == "" {
			p = `"/"`
		}
		s.reply("257 " + p + " is the current directory")
	case "CWD", "CDUP":
		if f.cwdShuts && s.dataLn != nil {
			s.dataLn.Close()
			s.dataLn = nil
		}
		s.reply("250 ok")
	case "SIZE":
		if b, ok := f.files[arg]; ok {
			s.reply("213 " + strconv.Itoa(len(b)))
		} else {
			s.reply("550 no such file")
		}
	case "MDTM":
		if _, ok := f.files[arg]; ok {
			s.reply("213 20240102030405")
		} else {
			s.reply("550 no such file")
		}
	case "EPSV":
		f.mu.Lock()
		f.epsvs++
		oops := f.epsvs == f.oopsEPSV
		refuse := f.noEPSV || f.epsvs == f.refuseEPSV // under the lock: sessions run at once
		f.mu.Unlock()
		if oops {
			s.reply("500 OOPS: vsf_sysutil_bind")
			return false
		}
		if refuse {
			s.reply("500 EPSV not understood")
			return true
		}
		s.listen()
		s.reply(fmt.Sprintf("229 Entering Extended Passive Mode (|||%d|)", s.dataLn.Addr().(*net.TCPAddr).Port))
		if f.epsvJunk != "" {
			s.reply(f.epsvJunk)
		}
	case "PASV":
		s.listen()
		host := f.pasvHost
		if host == "" {
			host = "127.0.0.1"
		}
		p := s.dataLn.Addr().(*net.TCPAddr).Port
		s.reply(fmt.Sprintf("227 Entering Passive Mode (%s,%d,%d)", strings.ReplaceAll(host, ".", ","), p/256, p%256))
	case "REST":
		n, err := strconv.Atoi(arg)
		if err != nil {
			s.reply("501 bad offset")
			return true
		}
		s.rest = n
		s.reply("350 restarting")
	case "RETR":
		b, ok := f.files[arg]
		if !ok {
			s.closeData()
			s.reply("550 no such file")
			return true
		}
		off := min(s.rest, len(b))
		s.rest = 0
		s.send("RETR", b[off:])
	case "LIST", "MLSD", "NLST":
		key := verb
		if arg != "" {
			key += " " + arg
		}
		f.mu.Lock()
		b, ok := f.lists[key]
		if seq := f.listSeq[key]; len(seq) > 0 {
			b, ok = seq[0], true
			if len(seq) > 1 {
				f.listSeq[key] = seq[1:]
			}
		}
		f.mu.Unlock()
		if !ok {
			s.closeData()
			s.reply("550 no such directory")
			return true
		}
		s.send(verb, b)
	case "QUIT":
		s.reply("221 bye")
		return false
	case "EPRT", "PORT":
		return s.port(verb, arg)
	case "AUTH", "PBSZ", "PROT":
		return s.auth(verb, arg)
	default:
		s.reply("502 not implemented")
	}
	return true
}

func (s *fakeSession) listen() {
	s.closeData()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		s.f.t.Error(err)
		return
	}
	s.dataLn = ln
}

func (s *fakeSession) closeData() {
	if s.dataLn != nil {
		s.dataLn.Close()
		s.dataLn = nil
	}
}

// send transfers b on the data connection as RFC 959 section 5.4 lays out
// the replies: 150, the data, 226 (or the failure the fake is told to show).
func (s *fakeSession) send(verb string, b []byte) {
	f := s.f
	var dc net.Conn
	if s.activeTo != "" {
		if dc = s.connectActive(); dc == nil {
			return
		}
	} else {
		if s.dataLn == nil {
			s.reply("425 use EPSV or PASV first")
			return
		}
		ln := s.dataLn
		s.dataLn = nil
		defer ln.Close()
		ln.(*net.TCPListener).SetDeadline(time.Now().Add(5 * time.Second))
		s.reply("150 " + cmpOr(f.opening, "opening data connection"))
		var err error
		dc, err = ln.Accept()
		if err != nil {
			s.reply("425 no data connection")
			return
		}
	}
	defer dc.Close()
	if dc = s.protectData(dc); dc == nil {
		return
	}
	f.mu.Lock()
	f.dataTo = append(f.dataTo, dc.LocalAddr().String())
	f.mu.Unlock()
	if f.peekHalf {
		dc.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
		n, err := dc.Read(make([]byte, 1))
		f.mu.Lock()
		f.halves = append(f.halves, n == 0 && err == io.EOF)
		f.mu.Unlock()
	}
	dc.SetDeadline(time.Now().Add(20 * time.Second))
	if verb == "RETR" && f.holdData > 0 {
		s.c.SetReadDeadline(time.Now().Add(f.holdData))
		line, err := s.readCmd()
		s.c.SetDeadline(time.Now().Add(20 * time.Second))
		if err == nil {
			f.mu.Lock()
			f.midXfer = append(f.midXfer, strings.TrimRight(line, "\r\n"))
			f.mu.Unlock()
			s.next = append(s.next, line)
		}
	}
	if verb == "RETR" && f.stallAt > 0 && len(b) > f.stallAt {
		dc.Write(b[:f.stallAt])
		// Stay silent on both connections until the client gives up.
		buf := make([]byte, 1)
		dc.Read(buf)
		s.silent = true
		return
	}
	if verb == "RETR" && f.cutAt > 0 && len(b) > f.cutAt {
		dc.Write(b[:f.cutAt])
		dc.Close()
		if f.cutReply != "" {
			s.reply(f.cutReply)
			return
		}
		s.reply("426 connection closed; transfer aborted")
		return
	}
	if verb != "RETR" && f.hold != nil && len(b) > f.holdAt {
		dc.Write(b[:f.holdAt])
		select {
		case <-f.hold:
			f.mu.Lock()
			f.released = true
			f.mu.Unlock()
		case <-time.After(5 * time.Second):
		}
		b = b[f.holdAt:]
	}
	dc.Write(b)
	dc.Close()
	f.mu.Lock()
	hangUp := f.hangUps > 0
	f.hangUps--
	f.mu.Unlock()
	if hangUp {
		if tc, ok := s.c.(*net.TCPConn); ok && f.hangRST {
			tc.SetLinger(0)
		}
		s.c.Close()
		return
	}
	if f.holdDone && (verb == "RETR" || f.holdList) {
		// A client that waits for the 226 before its next command
		// waits until its own timeout.
		line, err := s.readCmd()
		if err != nil {
			return
		}
		s.next = append(s.next, line)
	}
	end := "226 transfer complete"
	if verb != "RETR" && f.listDone != "" {
		end = f.listDone
	}
	if verb != "RETR" && f.holdList {
		s.held = []byte(end + "\r\n")
		return
	}
	s.reply(end)
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
