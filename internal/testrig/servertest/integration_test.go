package servertest

import (
	"bufio"
	"bytes"
	"cmp"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/textproto"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// These tests talk to the servers of scripts/servers.sh: they skip when the
// environment does not name them and fail with CI=true. Each checks the facts
// that the package doc promises to the protocol packages.

const ioTimeout = 10 * time.Second

func dial(t *testing.T, addr string, local net.IP) net.Conn {
	t.Helper()
	d := net.Dialer{Timeout: ioTimeout}
	if local != nil {
		d.LocalAddr = &net.TCPAddr{IP: local}
	}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	c.SetDeadline(time.Now().Add(ioTimeout))
	t.Cleanup(func() { c.Close() })
	return c
}

// readAll reads until the server closes the connection (or the deadline).
func readAll(t *testing.T, c net.Conn) []byte {
	t.Helper()
	b, err := io.ReadAll(io.LimitReader(c, 64<<20))
	if err != nil {
		t.Fatalf("read from %s: %v", c.RemoteAddr(), err)
	}
	return b
}

func TestNGINX(t *testing.T) {
	s := Get(t, NGINX)
	client := &http.Client{
		Timeout:       ioTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	get := func(path string) (*http.Response, []byte) {
		t.Helper()
		resp, err := client.Get("http://" + s.Addr + path)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatalf("GET %s: reading body: %v", path, err)
		}
		return resp, body
	}
	if resp, body := get("/"); resp.StatusCode != 200 || !bytes.Contains(body, []byte(`href="dir/"`)) {
		t.Errorf("GET / = %d, %q; want 200 and an autoindex listing with dir/", resp.StatusCode, body)
	}
	for _, tt := range []struct{ path, location string }{
		{"/redir-file", "file:///etc/passwd"},
		{"/redir-badport", "http://127.0.0.1:25/"},
		{"/redir-ok", "http://" + s.Addr + "/dir/"},
		{"/redir-loop", "http://" + s.Addr + "/redir-loop"},
	} {
		resp, _ := get(tt.path)
		if resp.StatusCode != 302 || resp.Header.Get("Location") != tt.location {
			t.Errorf("GET %s = %d Location %q, want 302 %q", tt.path, resp.StatusCode, resp.Header.Get("Location"), tt.location)
		}
	}
	resp, body := get("/bin5m.bin")
	if sum, n, _ := SHA256(bytes.NewReader(body)); resp.StatusCode != 200 || sum != Bin5MSHA256 || n != Bin5MSize {
		t.Errorf("GET /bin5m.bin = %d, %d bytes, sha256 %s; want 200, %d, %s", resp.StatusCode, n, sum, Bin5MSize, Bin5MSHA256)
	}
	if resp, body := get("/with%20space.txt"); resp.StatusCode != 200 || string(body) != "a file whose name has a space\n" {
		t.Errorf("GET /with%%20space.txt = %d %q", resp.StatusCode, body)
	}
	if resp, body := get("/empty.txt"); resp.StatusCode != 200 || len(body) != 0 {
		t.Errorf("GET /empty.txt = %d, %d bytes; want 200, 0", resp.StatusCode, len(body))
	}
	if resp, _ := get("/hello.txt"); resp.Header.Get("Last-Modified") != LaterTime.Format(http.TimeFormat) {
		t.Errorf("GET /hello.txt Last-Modified %q, want %q", resp.Header.Get("Last-Modified"), LaterTime.Format(http.TimeFormat))
	}
	if resp, _ := get("/nonexistent"); resp.StatusCode != 404 {
		t.Errorf("GET /nonexistent = %d, want 404", resp.StatusCode)
	}
}

// ftpConn is a minimal FTP control connection for checking the server.
type ftpConn struct {
	t *testing.T
	*textproto.Conn
}

func (c ftpConn) cmd(expect int, format string, args ...any) string {
	c.t.Helper()
	verb := strings.Fields(format)[0]
	if err := c.PrintfLine(format, args...); err != nil {
		c.t.Fatalf("send %s: %v", verb, err)
	}
	return c.reply(verb, expect)
}

// reply reads one reply (RFC 959 section 4.2, multi-line included); expect is
// the first digit when < 10, else the whole code.
func (c ftpConn) reply(what string, expect int) string {
	c.t.Helper()
	code, msg, err := c.ReadResponse(expect)
	if err != nil {
		c.t.Fatalf("%s: %d %q: %v", what, code, msg, err)
	}
	return msg
}

func TestFTP(t *testing.T) {
	s := Get(t, FTP)
	since := FTPLogOffset(t)
	ip := UniqueLoopback(t)
	c := ftpConn{t, textproto.NewConn(dial(t, s.Addr, ip))}
	if code, msg, err := c.ReadResponse(220); err != nil || msg != "(vsFTPd 3.0.3)" {
		t.Fatalf("greeting = %d %q, %v; want 220 (vsFTPd 3.0.3)", code, msg, err)
	}
	c.cmd(331, "USER anonymous")
	c.cmd(230, "PASS servertest@")
	c.cmd(250, "CWD etc")
	if msg := c.cmd(213, "SIZE motd"); msg != "200" {
		t.Errorf("SIZE motd = %q, want 200", msg)
	}
	c.cmd(250, "CWD /pub")
	if msg := c.cmd(213, "MDTM hello.txt"); msg != LaterTime.Format("20060102150405") {
		t.Errorf("MDTM hello.txt = %q, want %s", msg, LaterTime.Format("20060102150405"))
	}
	if msg := c.cmd(250, "CWD welcome"); !strings.Contains(msg, "This directory has a .message file.") {
		t.Errorf("CWD welcome = %q, want the multi-line .message reply", msg)
	}
	c.cmd(550, "CWD /pub/noaccess")
	c.cmd(221, "QUIT")

	want := []string{"USER anonymous", "PASS <password>", "CWD etc", "SIZE motd", "CWD /pub",
		"MDTM hello.txt", "CWD welcome", "CWD /pub/noaccess", "QUIT"}
	if got := FTPCommandsFrom(t, since, ip.String()); !slices.Equal(got, want) {
		t.Errorf("FTPCommandsFrom(%s) = %q, want %q", ip, got, want)
	}
	if got := FTPCommands(t, since); len(got) < len(want) {
		t.Errorf("FTPCommands = %d commands, want at least %d", len(got), len(want))
	}
}

// pasvData opens the data connection of a PASV reply "227 ... (h1,h2,h3,h4,p1,p2)".
func pasvData(t *testing.T, msg string, local net.IP) net.Conn {
	t.Helper()
	i, j := strings.IndexByte(msg, '('), strings.IndexByte(msg, ')')
	if i < 0 || j < i {
		t.Fatalf("PASV reply %q", msg)
	}
	f := strings.Split(msg[i+1:j], ",")
	if len(f) != 6 {
		t.Fatalf("PASV reply %q", msg)
	}
	p1, _ := strconv.Atoi(f[4])
	p2, _ := strconv.Atoi(f[5])
	return dial(t, net.JoinHostPort(strings.Join(f[:4], "."), strconv.Itoa(p1*256+p2)), local)
}

func TestFTPLocalUserAndASCII(t *testing.T) {
	s := Get(t, FTP)
	if s.User == "" || s.Pass == "" || s.Home == "" {
		missing(t, fmt.Errorf("%w: FETCH_TEST_FTP_USER/PASS/HOME not set", ErrNotConfigured))
	}
	ip := UniqueLoopback(t)
	c := ftpConn{t, textproto.NewConn(dial(t, s.Addr, ip))}
	if _, _, err := c.ReadResponse(220); err != nil {
		t.Fatalf("greeting: %v", err)
	}
	c.cmd(331, "USER %s", s.User)
	c.cmd(230, "PASS %s", s.Pass)
	if msg := c.cmd(257, "PWD"); !strings.HasPrefix(msg, `"`+s.Home+`"`) {
		t.Errorf("PWD = %q, want %q first", msg, s.Home)
	}
	if msg := c.cmd(213, "SIZE hello.txt"); msg != "52" {
		t.Errorf("SIZE hello.txt in the home = %q, want 52", msg)
	}
	// Not chrooted: the anonymous tree is reachable by its absolute path.
	c.cmd(250, "CWD %s/ftp/pub", s.Root)

	// TYPE A sends CRLF (ascii_download_enable=YES); SIZE still gives the binary size.
	c.cmd(200, "TYPE A")
	if msg := c.cmd(213, "SIZE lines.txt"); msg != "5400" {
		t.Errorf("SIZE lines.txt in TYPE A = %q, want 5400", msg)
	}
	data := pasvData(t, c.cmd(227, "PASV"), ip)
	c.cmd(1, "RETR lines.txt")
	body := readAll(t, data)
	c.reply("end of RETR", 226)
	if len(body) != 5500 || bytes.Count(body, []byte("\r\n")) != LinesCount {
		t.Errorf("RETR lines.txt in TYPE A: %d bytes, %d CRLF; want 5500, %d", len(body), bytes.Count(body, []byte("\r\n")), LinesCount)
	}
	c.cmd(221, "QUIT")
}

func TestFTPWrongPassword(t *testing.T) {
	s := Get(t, FTP)
	c := ftpConn{t, textproto.NewConn(dial(t, s.Addr, nil))}
	if _, _, err := c.ReadResponse(220); err != nil {
		t.Fatalf("greeting: %v", err)
	}
	c.cmd(331, "USER %s", cmp.Or(s.User, "fetchtest"))
	c.cmd(530, "PASS %s", "wrong-password")
}

// gopher sends one request line and returns the whole answer.
func gopher(t *testing.T, addr, request string) []byte {
	t.Helper()
	c := dial(t, addr, nil)
	if _, err := io.WriteString(c, request+"\r\n"); err != nil {
		t.Fatalf("gopher %q: %v", request, err)
	}
	return readAll(t, c)
}

// menuItems returns the non-info lines of a menu, without the final "." line.
func menuItems(menu []byte) []string {
	var items []string
	for _, l := range strings.Split(strings.TrimSuffix(string(menu), "\r\n"), "\r\n") {
		if l != "" && l != "." && l[0] != 'i' {
			items = append(items, l)
		}
	}
	return items
}

func TestGopher(t *testing.T) {
	s := Get(t, Gopher)
	port := strconv.Itoa(s.Port)
	root := gopher(t, s.Addr, "")
	for _, want := range []string{
		"7Search the word list\t/search\t127.0.0.1\t" + port + "\r\n",
		"0about\t/about.txt\t127.0.0.1\t" + port + "\t+\r\n",
		"iA short description of this gopher server.\tfake\t(NULL)\t0\r\n",
		"1big\t/big\t127.0.0.1\t" + port + "\t+\r\n",
		"9bin5m\t/bin5m.bin\t127.0.0.1\t" + port + "\t+\r\n",
	} {
		if !bytes.Contains(root, []byte(want)) {
			t.Errorf("root menu lacks %q:\n%s", want, root)
		}
	}
	if bytes.HasSuffix(root, []byte(".\r\n")) {
		t.Errorf("root menu ends with a . line; the doc says pygopherd sends none")
	}

	big := menuItems(gopher(t, s.Addr, "/big"))
	if len(big) != ManyFiles || !strings.HasPrefix(big[0], "0item0000\t/big/item0000.txt\t") {
		t.Errorf("/big: %d items, want %d from item0000:\n%q", len(big), ManyFiles, big[:min(len(big), 3)])
	}

	text := gopher(t, s.Addr, "/text.txt")
	if !bytes.Contains(text, []byte("single dot.\n.\n..this line")) || !bytes.HasSuffix(text, []byte("Last line.\n")) {
		t.Errorf("/text.txt is not sent raw:\n%q", text)
	}
	if got := gopher(t, s.Addr, "/bin5m.bin"); len(got) != Bin5MSize {
		t.Errorf("/bin5m.bin: %d bytes, want %d", len(got), Bin5MSize)
	} else if sum, _, _ := SHA256(bytes.NewReader(got)); sum != Bin5MSHA256 {
		t.Errorf("/bin5m.bin sha256 %s, want %s", sum, Bin5MSHA256)
	}

	search := gopher(t, s.Addr, "/search\talp")
	wantSearch := "0alpha\t/words/alpha.txt\t127.0.0.1\t" + port + "\r\n" +
		"0alphabet\t/words/alphabet.txt\t127.0.0.1\t" + port + "\r\n" +
		"0alpine\t/words/alpine.txt\t127.0.0.1\t" + port + "\r\n" +
		"i3 matches for \"alp\"\tfake\t(NULL)\t0\r\n.\r\n"
	if string(search) != wantSearch {
		t.Errorf("search alp =\n%q\nwant\n%q", search, wantSearch)
	}
	if got := menuItems(gopher(t, s.Addr, "/search\tzzz")); len(got) != 0 {
		t.Errorf("search zzz = %q, want no items", got)
	}

	// Gopher+ attributes (gopherplus.txt section 2.6): "!" gives every block.
	attrs := gopher(t, s.Addr, "/about.txt\t!")
	if !bytes.HasPrefix(attrs, []byte("+-2\r\n+INFO: 0about.txt\t/about.txt\t")) ||
		!bytes.Contains(attrs, []byte("+ABSTRACT:\r\n A short description of this gopher server.\r\n It has two lines.\r\n")) {
		t.Errorf("/about.txt ! =\n%s", attrs)
	}
	if plus := gopher(t, s.Addr, "/about.txt\t+"); string(plus) != "+44\r\nAbout this gopher hole: fixtures for fetch.\n" {
		t.Errorf("/about.txt + = %q", plus)
	}
	if nf := gopher(t, s.Addr, "/nonexistent"); !bytes.HasPrefix(nf, []byte("3'/nonexistent' does not exist")) {
		t.Errorf("/nonexistent = %q, want a type 3 error line", nf)
	}
	gmap := gopher(t, s.Addr, "/map")
	for _, want := range []string{
		"iThis menu comes from a gophermap file; lines without a TAB are info lines.\tfake\t(NULL)\t0\r\n",
		"8A telnet item\t/map/fetchtest\t127.0.0.1\t23\r\n",
		"hA web link\tURL:http://127.0.0.1/\t127.0.0.1\t" + port + "\r\n",
		"1A menu on another server\t/elsewhere\tgopher.invalid\t70\r\n",
	} {
		if !bytes.Contains(gmap, []byte(want)) {
			t.Errorf("/map lacks %q:\n%s", want, gmap)
		}
	}
}

// nntpCmd sends one command and reads the status line (and a multi-line body
// when the status says one follows: RFC 3977 section 3.1.1).
func nntpCmd(t *testing.T, c *textproto.Conn, expect int, multi bool, cmd string) (string, []string) {
	t.Helper()
	if err := c.PrintfLine("%s", cmd); err != nil {
		t.Fatalf("%s: %v", cmd, err)
	}
	_, msg, err := c.ReadCodeLine(expect)
	if err != nil {
		t.Fatalf("%s: %v", cmd, err)
	}
	if !multi {
		return msg, nil
	}
	lines, err := c.ReadDotLines()
	if err != nil {
		t.Fatalf("%s: body: %v", cmd, err)
	}
	return msg, lines
}

func TestNNTP(t *testing.T) {
	s := Get(t, NNTP)
	for _, addr := range []string{s.Addr, s.Relay} {
		if addr == "" {
			continue
		}
		c := textproto.NewConn(dial(t, addr, nil))
		code, msg, err := c.ReadCodeLine(2)
		if err != nil || (code != 200 && code != 201) {
			t.Fatalf("greeting from %s = %d %q, %v", addr, code, msg, err)
		}
	}
	c := textproto.NewConn(dial(t, s.Addr, nil))
	if _, _, err := c.ReadCodeLine(201); err != nil {
		t.Fatalf("greeting: %v", err)
	}
	_, groups := nntpCmd(t, c, 215, true, "LIST NEWSGROUPS")
	wantGroups := []string{
		"local.empty\tAn empty group",
		"local.other\tA second group with two articles",
		"local.test\tTest articles for fetch (dot-stuffing, threading, UTF-8)",
	}
	if !slices.Equal(groups, wantGroups) {
		t.Errorf("LIST NEWSGROUPS = %q, want %q", groups, wantGroups)
	}
	for _, tt := range []struct{ group, want string }{
		{"local.empty", "0 1 0 local.empty"},
		{"local.other", "2 1 2 local.other"},
		{"local.test", "6 1 7 local.test"},
	} {
		if msg, _ := nntpCmd(t, c, 211, false, "GROUP "+tt.group); msg != tt.want {
			t.Errorf("GROUP %s = %q, want %q", tt.group, msg, tt.want)
		}
	}
	nntpCmd(t, c, 411, false, "GROUP local.nonexistent")
	for _, group := range []string{"local.test", "local.other"} {
		nntpCmd(t, c, 211, false, "GROUP "+group)
		_, over := nntpCmd(t, c, 224, true, "OVER 1-7")
		var want []string
		for _, a := range NewsArticles {
			if a.Group == group {
				want = append(want, fmt.Sprintf("%d %s %s %d", a.Number, a.Subject, a.MessageID, a.Lines))
			}
		}
		var got []string
		for _, l := range over {
			f := strings.Split(l, "\t")
			if len(f) < 8 {
				t.Fatalf("OVER line %q", l)
			}
			got = append(got, fmt.Sprintf("%s %s %s %s", f[0], f[1], f[4], f[7]))
		}
		if !slices.Equal(got, want) {
			t.Errorf("OVER in %s = %q, want %q", group, got, want)
		}
	}
	nntpCmd(t, c, 211, false, "GROUP local.test")
	nntpCmd(t, c, 423, false, "ARTICLE 6")
	_, body := nntpCmd(t, c, 222, true, "BODY 2")
	wantBody := []string{"The next line starts with one dot.", ".hidden line", "The next line starts with two dots.",
		"..two dots", "The next line is a single dot.", ".", "End of the dot test."}
	if !slices.Equal(body, wantBody) {
		t.Errorf("BODY 2 = %q, want %q", body, wantBody)
	}
	if msg, _ := nntpCmd(t, c, 220, true, "ARTICLE <test-7/slash+plus@fetch.invalid>"); msg != "0 <test-7/slash+plus@fetch.invalid> article" {
		t.Errorf("ARTICLE <test-7/...> = %q", msg)
	}
	nntpCmd(t, c, 430, false, "ARTICLE <nonexistent@fetch.invalid>")
	nntpCmd(t, c, 205, false, "QUIT")
}

// Telnet commands (RFC 854).
const (
	iac  = 255
	dont = 254
	do   = 253
	wont = 252
	will = 251
	sb   = 250
	se   = 240
)

// telnetUntil reads, refusing every option the server offers or asks for,
// until the text (options removed) ends with one of suffixes.
func telnetUntil(t *testing.T, c net.Conn, r *bufio.Reader, suffixes ...string) string {
	t.Helper()
	var text []byte
	for {
		b, err := r.ReadByte()
		if err != nil {
			t.Fatalf("telnet: reading (have %q): %v", text, err)
		}
		if b != iac {
			text = append(text, b)
			for _, s := range suffixes {
				if bytes.HasSuffix(text, []byte(s)) {
					return string(text)
				}
			}
			continue
		}
		op, err := r.ReadByte()
		if err != nil {
			t.Fatalf("telnet: %v", err)
		}
		switch op {
		case do, dont, will, wont:
			opt, err := r.ReadByte()
			if err != nil {
				t.Fatalf("telnet: %v", err)
			}
			switch op {
			case do:
				c.Write([]byte{iac, wont, opt})
			case will:
				c.Write([]byte{iac, dont, opt})
			}
		case sb:
			for {
				x, err := r.ReadByte()
				if err != nil {
					t.Fatalf("telnet: %v", err)
				}
				if x == iac {
					if y, _ := r.ReadByte(); y == se {
						break
					}
				}
			}
		case iac:
			text = append(text, iac)
		}
	}
}

func TestTelnet(t *testing.T) {
	s := Get(t, Telnet)
	c := dial(t, s.Addr, nil)
	r := bufio.NewReader(c)
	first, err := r.Peek(1)
	if err != nil || first[0] != iac {
		t.Fatalf("telnetd's first byte = %v, %v; want IAC (option negotiation)", first, err)
	}
	if got := telnetUntil(t, c, r, "login: "); !strings.Contains(got, "fetch test telnet service") {
		t.Errorf("before login: %q", got)
	}
	fmt.Fprintf(c, "%s\r\n", s.User)
	telnetUntil(t, c, r, "Password: ")
	fmt.Fprintf(c, "%s\r\n", "wrong")
	if got := telnetUntil(t, c, r, "login: "); !strings.Contains(got, "Login incorrect") {
		t.Errorf("after a wrong password: %q", got)
	}
	fmt.Fprintf(c, "%s\r\n", s.User)
	telnetUntil(t, c, r, "Password: ")
	fmt.Fprintf(c, "%s\r\n", s.Pass)
	if got := telnetUntil(t, c, r, "$ "); !strings.Contains(got, "Welcome, "+s.User+".") {
		t.Errorf("after login: %q", got)
	}
	fmt.Fprintf(c, "echo hello telnet\r\n")
	if got := telnetUntil(t, c, r, "$ "); !strings.Contains(got, "\r\nhello telnet\r\n") {
		t.Errorf("echo: %q", got)
	}
	fmt.Fprintf(c, "exit\r\n")
	// The session must end: telnetd closes the connection when the login
	// program exits. What the terminal wrote last (the echo of "exit",
	// then "logout") may be cut anywhere: telnetd can see the pty hang up
	// before it has read the last output, so only a prefix is required.
	rest, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("exit: the session did not end: %v (read %q)", err, rest)
	}
	if !bytes.HasPrefix([]byte("exit\r\nlogout\r\n"), rest) && !bytes.Contains(rest, []byte("logout")) {
		t.Errorf("exit: unexpected output %q", rest)
	}
}

func TestFixtureFiles(t *testing.T) {
	Root(t)
	for _, tt := range []struct{ rel, sum string }{
		{"ftp/pub/bin5m.bin", Bin5MSHA256},
		{"www/bin5m.bin", Bin5MSHA256},
		{"gopher/bin5m.bin", Bin5MSHA256},
		{"ftp/pub/small.bin", SmallBinSHA256},
		{"gopher/small.bin", SmallBinSHA256},
	} {
		if got := SHA256File(t, Fixture(t, tt.rel)); got != tt.sum {
			t.Errorf("sha256 of %s = %s, want %s", tt.rel, got, tt.sum)
		}
	}
}
