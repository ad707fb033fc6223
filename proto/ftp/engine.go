package ftp

import (
	"errors"
	"fmt"
	"net"
	"net/textproto"
	"strconv"
	"strings"
	"time"

	"github.com/rfc1738/fetch/internal/secret"
	"github.com/rfc1738/fetch/internal/termtext"
	"github.com/rfc1738/fetch/proto"
)

// The plain commands of the engine (send and reply are in pipeline.go):
// the greeting and login, FEAT, CWD, CDUP, NOOP, SIZE, MDTM, QUIT, and
// the transfers of passive mode without pipelining (EPSV, else PASV).

// cmd sends line and reads its reply; a code other than want (a full
// code such as 250, or its first digit; 0 takes any) is returned as a
// *textproto.Error.
func (c *conn) cmd(want int, line string) (int, string, error) {
	if err := c.send(line); err != nil {
		return 0, "", err
	}
	return c.reply(want)
}

// greet reads the server's greeting, which must be 220 (RFC 959 section
// 5.4: 120 then 220, or 421, or 220 at once).
func (c *conn) greet() error {
	_, msg, err := c.reply(StatusReady)
	if err != nil {
		return c.fail("greeting", err)
	}
	c.vsftpd = strings.Contains(msg, "(vsFTPd ")
	return nil
}

// logIn sends USER and, when the server asks for it (331), PASS (RFC 959
// section 6), with the commands of ahead in the same write (passAhead)
// unless passAlone; after 230 at USER ahead goes alone. Any other answer
// fails the login: no ACCT is sent for a 332. vsftpd (known by its
// greeting) gets USER in that write too (userAhead) when the password is
// no secret or TLS protects it: elsewhere a server may refuse a user
// before the password travels in clear (vsftpd's userlist_deny).
func (c *conn) logIn(cr creds, ahead []string, passAlone bool) error {
	if c.vsftpd && !passAlone && (anonymous(cr.user) || c.tlsCfg != nil) {
		return c.userAhead(cr, ahead)
	}
	code, msg, err := c.cmd(0, "USER "+cr.user)
	switch {
	case err != nil:
		return c.fail("", err)
	case code == StatusUserOK && !passAlone:
		return c.passAhead(cr, ahead)
	case code == StatusUserOK:
		if _, _, err := c.cmd(StatusLoggedIn, "PASS "+cr.pass); err != nil {
			return c.fail("", err)
		}
	case code != StatusLoggedIn:
		return c.fail("", &textproto.Error{Code: code, Msg: msg})
	}
	if err := c.send(strings.Join(ahead, "\r\n")); err != nil {
		return c.fail(ahead[0], err)
	}
	return nil
}

// passAhead sends PASS and ahead in one write, and reads PASS's reply
// (passReply): the server answers each command in turn (RFC 959 section
// 4.2).
func (c *conn) passAhead(cr creds, ahead []string) error {
	if err := c.send(strings.Join(append([]string{"PASS " + cr.pass}, ahead...), "\r\n")); err != nil {
		return c.fail("PASS "+secret.TraceMask, err)
	}
	return c.passReply()
}

// userAhead sends USER, PASS and ahead in one write: a login in one
// round trip. After 331 PASS's reply is read as passAhead reads it; after
// 230 (logged in at USER) it is dropped, whatever it says.
func (c *conn) userAhead(cr creds, ahead []string) error {
	if err := c.send(strings.Join(append([]string{"USER " + cr.user, "PASS " + cr.pass}, ahead...), "\r\n")); err != nil {
		return c.fail("USER "+cr.user, err)
	}
	code, msg, err := c.reply(0)
	switch {
	case err != nil:
		return c.fail("USER "+cr.user, err)
	case code == StatusUserOK:
		return c.passReply()
	case code != StatusLoggedIn:
		return c.fail("USER "+cr.user, &textproto.Error{Code: code, Msg: msg})
	}
	if _, _, err := c.reply(0); err != nil && replyCode(err) == 0 {
		return c.fail("PASS "+secret.TraceMask, err)
	}
	return nil
}

// passReply reads the reply to a PASS sent with the commands after it.
// After a refusal the replies to those are not waited for (a server may
// discard them, or close). A first reply that cannot answer PASS (RFC 959
// section 5.4: 230, 202, 332 or a refusal) answers a later command: the
// server (pyftpdlib, which delays a refusal) broke the order, and the
// connection is given up for one that sends PASS alone (errOutOfStep).
func (c *conn) passReply() error {
	code, msg, err := c.reply(0)
	switch {
	case err != nil:
		return c.fail("PASS "+secret.TraceMask, err)
	case code == StatusLoggedIn:
		return nil
	case code < 400 && code != StatusNeedAccount && code != 202:
		c.w.note("the first reply after PASS is %d, which answers no PASS: logging in again with PASS alone", code)
		c.dead = true
		return errOutOfStep
	}
	return c.fail("PASS "+secret.TraceMask, &textproto.Error{Code: code, Msg: msg})
}

// errOutOfStep: the server answered a command sent after PASS before
// PASS (passAhead).
var errOutOfStep = errors.New("ftp: the server answered out of order after PASS")

// featReply reads the reply to FEAT (RFC 2389) and records the features
// it names. A server that does not know FEAT offers none; only a failed
// connection is an error.
func (c *conn) featReply() error {
	code, msg, err := c.reply(0)
	if err != nil {
		return c.fail("FEAT", err)
	}
	if code == StatusSystem {
		c.feat = parseFEAT(msg)
	}
	return nil
}

// features are the extensions a server's FEAT reply names, each with its
// parameters ("MLST" -> "type*;size*;modify*;").
type features map[string]string

// has reports whether the server offers the feature name (upper case).
func (f features) has(name string) bool {
	_, ok := f[name]
	return ok
}

// parseFEAT reads the text of a 211 reply to FEAT as net/textproto joins
// it. RFC 2389 section 3.2: each feature line starts with a space, then
// the feature's name and its parameters; other lines are not features.
// Names are kept in upper case (RFC 959 section 5.3 reads either case).
func parseFEAT(msg string) features {
	f := features{}
	for line := range strings.SplitSeq(msg, "\n") {
		if !strings.HasPrefix(line, " ") {
			continue
		}
		name, params, _ := strings.Cut(strings.TrimSpace(line), " ")
		if name == "" {
			continue
		}
		f[strings.ToUpper(name)] = params
	}
	return f
}

// chdir sends CWD arg, which must be answered 250.
func (c *conn) chdir(arg string) error {
	_, _, err := c.cmd(StatusRequestedFileOK, "CWD "+arg)
	return err
}

// cdup sends CDUP, which must be answered 200 or 250 (RFC 959 section
// 5.4 gives 200; many servers answer as to CWD).
func (c *conn) cdup() error {
	code, msg, err := c.cmd(2, "CDUP")
	if err == nil && code != StatusCommandOK && code != StatusRequestedFileOK {
		err = &textproto.Error{Code: code, Msg: msg}
	}
	return err
}

// noop sends NOOP, which must be answered 200.
func (c *conn) noop() error {
	_, _, err := c.cmd(StatusCommandOK, "NOOP")
	return err
}

// fileFacts asks the size (SIZE, RFC 3659 section 4, when withSize) and
// the time (MDTM, section 3, when withTime and FEAT offers it) of name. A
// refusal, or a reply that holds no size or time-val, leaves the value
// unknown (-1, the zero time); only a failed connection is an error.
func (c *conn) fileFacts(name string, withSize, withTime bool) (size int64, mtime time.Time, err error) {
	size = -1
	if withSize {
		_, msg, err := c.cmd(StatusFile, "SIZE "+name)
		if replyCode(err) == 0 && isConnError(err) {
			return -1, mtime, c.fail("", err)
		}
		if n, perr := strconv.ParseInt(strings.TrimSpace(msg), 10, 64); err == nil && perr == nil && n >= 0 {
			size = n
		}
	}
	if withTime && c.feat.has("MDTM") {
		_, msg, err := c.cmd(StatusFile, "MDTM "+name)
		if replyCode(err) == 0 && isConnError(err) {
			return -1, mtime, c.fail("", err)
		}
		if err == nil {
			mtime, _ = parseMLSDTime(strings.TrimSpace(msg))
		}
	}
	return size, mtime, nil
}

// openPassive opens a data connection in passive mode without
// pipelining: EPSV (RFC 2428 section 3) until the server refuses it once,
// then PASV (RFC 959 section 4.1.2).
func (c *conn) openPassive() (net.Conn, error) {
	if !c.noEPSV {
		port, err := c.epsv()
		if err == nil {
			return c.dialData("tcp", net.JoinHostPort(c.peer, strconv.Itoa(port)))
		}
		if replyCode(err) == 0 && isConnError(err) {
			return nil, err
		}
		c.noEPSV = true
	}
	_, msg, err := c.cmd(StatusPassiveMode, "PASV")
	if err != nil {
		return nil, err
	}
	addr, err := parsePASV(msg)
	if err != nil {
		return nil, err
	}
	return c.dialData("tcp", addr.String())
}

// epsv sends EPSV and returns the port of its 229 reply. A reply that
// names no port is a *textproto.Error: the server's refusal to tell one.
func (c *conn) epsv() (int, error) {
	code, msg, err := c.cmd(StatusExtendedPassiveMode, "EPSV")
	if err != nil {
		return 0, err
	}
	port, perr := parseEPSV(msg)
	if perr != nil {
		c.w.note("%v", perr)
		return 0, &textproto.Error{Code: code, Msg: msg}
	}
	return port, nil
}

// parsePASV returns the address of a 227 reply's text. RFC 959 section
// 4.1.2 gives "227 Entering Passive Mode (h1,h2,h3,h4,p1,p2)"; RFC 1123
// section 4.1.2.6 warns that the parentheses and the text around the
// numbers vary, and that the client should scan for them: the address is
// the first run of six numbers 0 to 255 separated by commas.
func parsePASV(msg string) (net.TCPAddr, error) {
	for i := 0; i < len(msg); i++ {
		if msg[i] < '0' || msg[i] > '9' || i > 0 && msg[i-1] >= '0' && msg[i-1] <= '9' {
			continue
		}
		if n, ok := sixNumbers(msg[i:]); ok {
			port := int(n[4])<<8 | int(n[5])
			if port == 0 {
				break
			}
			return net.TCPAddr{IP: net.IPv4(n[0], n[1], n[2], n[3]), Port: port}, nil
		}
	}
	return net.TCPAddr{}, &proto.ProtocolError{Proto: "ftp", Msg: fmt.Sprintf("PASV reply %q: no address h1,h2,h3,h4,p1,p2", termtext.Escape(msg, 80))}
}

// sixNumbers reads "h1,h2,h3,h4,p1,p2" at the start of s: six decimal
// numbers of at most three digits, each at most 255, separated by commas
// (and nothing else), the last not followed by a digit.
func sixNumbers(s string) ([6]byte, bool) {
	var n [6]byte
	for k := range n {
		if k > 0 {
			if s == "" || s[0] != ',' {
				return n, false
			}
			s = s[1:]
		}
		j := 0
		for j < len(s) && j < 4 && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		v, err := strconv.Atoi(s[:j])
		if j == 0 || j > 3 || err != nil || v > 255 {
			return n, false
		}
		n[k], s = byte(v), s[j:]
	}
	return n, true
}

// plainOpen starts one transfer command in passive mode, not pipelined:
// PRET when FEAT offers it (a server that hands the transfer to another
// machine must know the command before PASV), the data connection, REST
// offset when offset > 0, the command line and its preliminary reply. An
// error before that reply is returned as it is, for the caller's c.fail.
func (c *conn) plainOpen(line, cmd string, offset int64) (net.Conn, error) {
	if c.feat.has("PRET") {
		if _, _, err := c.cmd(0, "PRET "+line); err != nil {
			return nil, err
		}
	}
	data, err := c.openPassive()
	if err != nil {
		return nil, err
	}
	if offset > 0 {
		if _, _, err := c.cmd(StatusRequestFilePending, "REST "+strconv.FormatInt(offset, 10)); err != nil {
			data.Close()
			return nil, err
		}
	}
	if err := c.send(line); err != nil {
		data.Close()
		return nil, err
	}
	if err := c.preliminary(data, cmd); err != nil {
		return nil, err
	}
	return data, nil
}

// plainRetr starts the retrieval of arg from offset, not pipelined: in
// active mode when sp is set, else in passive mode. It returns the
// offset the data starts at: 0 when the server refused REST (in passive
// mode it is then asked again from the start).
func (c *conn) plainRetr(sp *activeSpec, arg string, offset int64) (*pipedTransfer, int64, error) {
	if err := proto.CheckArg(arg); err != nil {
		return nil, 0, fmt.Errorf("ftp: RETR: %w", err)
	}
	cmd := displayCmd("RETR", arg)
	if sp != nil {
		data, offset, err := c.activeOpen(sp, "RETR "+arg, cmd, offset)
		if err != nil {
			return nil, 0, err
		}
		return &pipedTransfer{c: c, data: data, cmd: cmd}, offset, nil
	}
	data, err := c.plainOpen("RETR "+arg, cmd, offset)
	if err != nil && offset > 0 && c.w.lastVerb == "REST" && replyCode(err) != 0 {
		c.w.note("REST %d refused (%v): restarting from 0", offset, err)
		offset = 0
		data, err = c.plainOpen("RETR "+arg, cmd, 0)
	}
	if err != nil {
		return nil, 0, err
	}
	return &pipedTransfer{c: c, data: data, cmd: cmd}, offset, nil
}

// plainList runs a listing command in active mode when sp is set, else
// in passive mode, not pipelined, as pipelinedList does.
func (c *conn) plainList(sp *activeSpec, verb, arg string) error {
	cmd, line, err := listCmd(verb, arg)
	if err != nil {
		return err
	}
	var data net.Conn
	if sp != nil {
		data, _, err = c.activeOpen(sp, line, cmd, 0)
	} else {
		data, err = c.plainOpen(line, cmd, 0)
	}
	if err != nil {
		return err
	}
	return c.drainListing(data, cmd)
}

// listCmd checks arg and returns the listing command verb with it as
// errors name it (cmd) and as it is sent (line): the verb alone for an
// empty arg.
func listCmd(verb, arg string) (cmd, line string, err error) {
	if err := proto.CheckArg(arg); err != nil {
		return "", "", fmt.Errorf("ftp: %s: %w", verb, err)
	}
	if arg == "" {
		return verb, verb, nil
	}
	return displayCmd(verb, arg), verb + " " + arg, nil
}

// unasked checks that the reader holds nothing when no reply is due:
// lines nobody asked for (or that a man in the middle adds before TLS
// starts) would put every later reply out of step.
func (c *conn) unasked() error {
	if c.rd.R.Buffered() > 0 {
		c.dead = true
		return &proto.ProtocolError{Proto: "ftp", Msg: fmt.Sprintf("%d bytes from the server that no command asked for", c.rd.R.Buffered())}
	}
	return nil
}
