package ftp

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/textproto"
	"strconv"
	"strings"

	"github.com/rfc1738/fetch/internal/termtext"
	"github.com/rfc1738/fetch/proto"
)

// The pipelined retrieval of Driver.PipelinePassive.
//
// The EPSV of a connection's next retrieval goes out before the 226 of
// the current one is read, so that its 229 is waiting when the next RETR
// is due. RFC 959 allows it: replies come in the order of the commands
// (section 4.2; the state diagrams of section 6 advance one reply at a
// time). The EPSV is sent once the data connection has reached its end,
// which is safe with any server, or, to a server that reads no command
// during a transfer (vsftpd, known by its greeting: conn.vsftpd), as soon
// as the transfer starts. A greeting that lies costs a failed transfer at
// worst: every reply is checked.
//
// vsftpd's data connections are also half-closed as soon as they are open
// (RFC 9293 section 3.6), so that the client's kernel acknowledges the
// server's closing FIN at once and the TIME_WAIT stays on the client's
// side; vsftpd does not read a download's data connection, so it cannot
// take the FIN for an abort. Why, and the figures: BENCHMARKS.md,
// "Pipelined retrieval from vsftpd".

// errNoPipeline marks a refusal of the pipelined path (say, EPSV refused):
// the retrieval falls back to passive mode without pipelining, which
// tries PASV.
var errNoPipeline = errors.New("ftp: pipelined retrieval not possible on this connection")

// send writes one command. The reply to an EPSV sent ahead and not used
// yet, the one the server sends next, is read first: kept for the next
// transfer (passive) before a command that leaves the passive port open
// (keepsPassive), else dropped, with any reply kept earlier.
func (c *conn) send(cmd string) error {
	keep := keepsPassive(cmd)
	if c.epsvAhead {
		c.epsvAhead = false
		code, msg, err := c.reply(2)
		if err != nil && replyCode(err) == 0 {
			return err
		}
		c.kept = nil
		if keep {
			c.kept = &epsvReply{code: code, msg: msg, err: err}
		}
	}
	if !keep {
		c.kept = nil
	}
	_, err := c.w.Write([]byte(cmd + "\r\n"))
	return err
}

// epsvReply is the reply to an EPSV sent ahead, read before a command
// that does not use it (send), for the transfer that will.
type epsvReply struct {
	code int
	msg  string
	err  error
}

// keepsPassive reports whether cmd leaves the port that an EPSV before it
// opened on the server as it was: the server's passive port serves the
// next data command, whatever the directory (RFC 959 section 4.1.2: PASV
// makes the server wait for a connection "rather than initiate one upon
// receipt of a transfer command"; RFC 2428 section 3 for EPSV).
func keepsPassive(cmd string) bool {
	verb, _, _ := strings.Cut(cmd, " ")
	switch verb {
	case "CWD", "CDUP", "PWD", "TYPE", "SIZE", "MDTM", "NOOP", "SYST", "REST":
		return !strings.Contains(cmd, "\n")
	}
	return false
}

// hasEPSV reports whether the reply to an EPSV sent ahead waits for the
// next transfer, read (kept) or not.
func (c *conn) hasEPSV() bool { return c.epsvAhead || c.kept != nil }

// reply reads one reply; a code not starting with want (1, 2...), or
// other than want (a full code), is returned as a *textproto.Error.
func (c *conn) reply(want int) (int, string, error) {
	return c.rd.ReadResponse(want)
}

// prefetch sends EPSV for the next retrieval; its reply is read by
// passive, or dropped by the next other command (send).
func (c *conn) prefetch() error {
	if err := c.send("EPSV"); err != nil {
		return err
	}
	c.epsvAhead = true
	return nil
}

// passive opens the data connection of a pipelined retrieval or listing
// with the reply to the EPSV sent ahead, or to one sent now.
func (c *conn) passive() (net.Conn, error) {
	kept := c.kept
	code, msg, err := c.epsvAnswer()
	if err == nil && kept != nil && code == StatusExtendedPassiveMode {
		data, derr := c.dialEPSV(msg)
		if derr == nil || c.dead {
			return data, derr
		}
		// The port kept across other commands is gone (a server that
		// closes it on CWD, or one that timed it out): ask again.
		c.w.note("the port of the EPSV sent ahead: %v: sending EPSV again", derr)
		code, msg, err = c.epsvAnswer()
	}
	var te *textproto.Error
	if c.vsftpd && errors.As(err, &te) && te.Code == StatusBadCommand && strings.HasPrefix(te.Msg, "OOPS:") {
		// vsftpd's fatal error, after which it closes the session (for
		// EPSV, when ten random ports of its passive range were taken):
		// not a refusal of EPSV, but a connection to give up.
		c.dead = true
		return nil, &sessionEnded{reply: termtext.Escape(fmt.Sprintf("%d %s", te.Code, te.Msg), 200)}
	}
	if err != nil {
		switch replyCode(err) {
		case StatusBadCommand, StatusBadArguments, StatusNotImplemented, StatusNotImplementedParam, StatusNetProtoUnsupported:
			c.w.note("EPSV refused (%v): retrieving without pipelining", err)
			c.noPipeline = true
			return nil, errNoPipeline
		}
		return nil, err // a failed connection, or 421 (the retrieval may retry)
	}
	if code != StatusExtendedPassiveMode {
		c.noPipeline = true
		return nil, &proto.ProtocolError{Proto: "ftp", Msg: fmt.Sprintf("EPSV answered %d %s", code, msg)}
	}
	return c.dialEPSV(msg)
}

// epsvAnswer returns the reply to the EPSV of the next transfer: the one
// kept (send), the one sent ahead, or that of an EPSV sent now.
func (c *conn) epsvAnswer() (int, string, error) {
	if k := c.kept; k != nil {
		c.kept = nil
		return k.code, k.msg, k.err
	}
	if !c.epsvAhead {
		if err := c.send("EPSV"); err != nil {
			return 0, "", err
		}
	}
	c.epsvAhead = false
	return c.reply(2)
}

// dialEPSV dials the port of a 229 reply's text msg on the control
// connection's peer.
func (c *conn) dialEPSV(msg string) (net.Conn, error) {
	port, err := parseEPSV(msg)
	if err != nil {
		c.dead = true
		return nil, err
	}
	data, err := c.dialData("tcp", net.JoinHostPort(c.peer, strconv.Itoa(port)))
	if err == nil && c.vsftpd && c.tlsCfg == nil {
		// (A TLS connection cannot be half-closed before its
		// handshake, which needs the client to write.)
		halfClose(c, data)
	}
	return data, err
}

// halfClose shuts down the sending side of a download's data connection.
// A connection that cannot (a dialer that gives something else than TCP)
// is left as it is: the half-close only saves time.
func halfClose(c *conn, data net.Conn) {
	dc, ok := data.(*dataConn)
	if !ok {
		return
	}
	cw, ok := dc.Conn.(interface{ CloseWrite() error })
	if !ok {
		return
	}
	if err := cw.CloseWrite(); err != nil && !errors.Is(err, errors.ErrUnsupported) {
		c.w.note("data connection: half-close: %v", err)
	}
}

// pipelinedRetr starts the transfer of arg from offset 0: the data
// connection (passive), RETR and its preliminary reply. It returns
// errNoPipeline, with nothing sent but EPSV, when the server refused EPSV.
// With prefetchNext, vsftpd gets the next EPSV in the write of RETR (see
// above); other servers once the data has ended (pipedTransfer.Close).
func (c *conn) pipelinedRetr(arg string, prefetchNext bool) (*pipedTransfer, error) {
	if err := proto.CheckArg(arg); err != nil {
		return nil, fmt.Errorf("ftp: RETR: %w", err)
	}
	data, err := c.passive()
	if err != nil {
		return nil, err
	}
	cmd, line := displayCmd("RETR", arg), "RETR "+arg
	early := prefetchNext && c.vsftpd
	if early {
		line += "\r\nEPSV"
	}
	if err := c.send(line); err != nil {
		data.Close()
		return nil, c.fail(cmd, err)
	}
	if early {
		c.epsvAhead = true
		prefetchNext = false
	}
	if err := c.preliminary(data, cmd); err != nil {
		return nil, err
	}
	return &pipedTransfer{c: c, data: data, cmd: cmd, next: prefetchNext}, nil
}

// preliminary reads the reply that opens a transfer (125 or 150). Any
// other reply, or none, closes data and is returned as the failure of
// cmd.
func (c *conn) preliminary(data net.Conn, cmd string) error {
	code, msg, err := c.reply(0)
	if err == nil && code != StatusAlreadyOpen && code != StatusAboutToSend {
		err = &textproto.Error{Code: code, Msg: msg}
	}
	if err == nil {
		return nil
	}
	data.Close()
	return c.fail(cmd, err)
}

// pipelinedList runs a listing command (LIST, MLSD or NLST, with arg when
// not empty) as pipelinedRetr does, and reads its data into c.cap (which
// the caller set, and which bounds it) and its completion reply.
func (c *conn) pipelinedList(verb, arg string) error {
	cmd, line, err := listCmd(verb, arg)
	if err != nil {
		return err
	}
	data, err := c.passive()
	if err != nil {
		return c.leadLost(err)
	}
	early := c.vsftpd && c.req != nil && c.req.Options.FTP.ListAhead
	if early {
		line += "\r\nEPSV" // read once the listing has ended (pipelinedRetr)
	}
	lead := c.lead
	if lead != "" {
		line, c.lead = lead+"\r\n"+line, ""
	}
	if err := c.send(line); err != nil {
		data.Close()
		return c.fail(cmd, err)
	}
	c.epsvAhead = early
	if err := c.leadReply(lead, data); err != nil {
		return err
	}
	if err := c.preliminary(data, cmd); err != nil {
		return err
	}
	return c.drainListing(data, cmd)
}

// errLeadRefused: the CWD sent with a listing command (conn.lead) was
// refused and the listing dropped, or not sent since EPSV was refused:
// runListing enters the directory the plain way and lists again.
var errLeadRefused = errors.New("ftp: the CWD sent with the listing was refused")

// leadLost turns errNoPipeline into errLeadRefused when c.lead was not
// sent.
func (c *conn) leadLost(err error) error {
	if c.lead == "" || !errors.Is(err, errNoPipeline) {
		return err
	}
	c.lead, c.atKnown = "", false
	return errLeadRefused
}

// leadReply reads the reply to lead, the CWD sent with a listing command.
// After a refusal the listing the server ran where the connection was is
// read and dropped: errLeadRefused.
func (c *conn) leadReply(lead string, data net.Conn) error {
	if lead == "" {
		return nil
	}
	_, _, err := c.reply(2)
	if err == nil {
		return nil
	}
	if replyCode(err) == 0 {
		data.Close()
		return c.fail(lead, err)
	}
	c.w.note("%s refused (%v): dropping the listing sent with it", lead, err)
	c.atKnown = false
	if dc, ok := data.(*dataConn); ok {
		dc.cap = nil // not this directory's entries
	}
	code, _, err := c.reply(0)
	if err == nil && code < 200 {
		_, err = io.Copy(io.Discard, data)
		if err == nil {
			_, _, err = c.reply(0)
		}
	}
	data.Close()
	if err != nil && replyCode(err) == 0 {
		c.dead = true
		return c.fail(lead, err)
	}
	return errLeadRefused
}

// drainListing reads a listing's data connection to its end (into
// c.cap), closes it, and reads the completion reply.
func (c *conn) drainListing(data net.Conn, cmd string) error {
	_, err := io.Copy(io.Discard, data)
	data.Close()
	if err != nil {
		// Too long, cut or timed out: the completion reply is still
		// to come, and the connection cannot be trusted.
		c.dead = true
		return c.fail(cmd, err)
	}
	code, msg, err := c.reply(2)
	if err != nil {
		return c.fail(cmd, err)
	}
	if c.epsvAhead {
		// The 229 of the EPSV sent ahead may have been read with the 226,
		// and be the wire's last reply: the listing's end is the 226.
		c.w.last, c.w.lastText = &textproto.Error{Code: code, Msg: msg}, msg
	}
	return nil
}

// pipedTransfer is the data side of a RETR (pipelined, plain passive or
// active).
type pipedTransfer struct {
	c      *conn
	data   net.Conn
	cmd    string // "RETR name", for errors
	next   bool   // prefetch the next EPSV before reading the completion reply
	closed bool
	n      int64 // the bytes read
}

func (t *pipedTransfer) Read(p []byte) (int, error) {
	n, err := t.data.Read(p)
	t.n += int64(n)
	return n, err
}

// Close ends a transfer whose data connection reached its end: the next
// EPSV is sent when asked, and the completion reply read.
func (t *pipedTransfer) Close() error {
	if t.closed {
		return nil
	}
	t.closed = true
	c := t.c
	t.data.Close()
	if t.next && !c.noPipeline {
		if err := c.prefetch(); err != nil {
			return err
		}
	}
	_, _, err := c.reply(2)
	return err
}

// parseEPSV returns the port of a 229 reply's text (RFC 2428 section 3):
// "Entering Extended Passive Mode (|||6446|)", where the delimiter may be
// any printable character other than a digit, and the network protocol
// and address fields are empty (the data connection goes to the control
// connection's peer).
func parseEPSV(msg string) (int, error) {
	bad := func(why string) (int, error) {
		return 0, &proto.ProtocolError{Proto: "ftp", Msg: fmt.Sprintf("EPSV reply %q: %s", termtext.Escape(msg, 80), why)}
	}
	open := strings.IndexByte(msg, '(')
	if open < 0 {
		return bad("no (")
	}
	rest := msg[open+1:]
	end := strings.IndexByte(rest, ')')
	if end < 0 {
		return bad("no )")
	}
	inner := rest[:end]
	if len(inner) < 5 {
		return bad("too short")
	}
	d := inner[0]
	if d < 33 || d > 126 || d >= '0' && d <= '9' {
		return bad("the delimiter is not a printable non-digit")
	}
	if inner[1] != d || inner[2] != d || inner[len(inner)-1] != d {
		return bad("not of the form (<d><d><d><port><d>)")
	}
	digits := inner[3 : len(inner)-1]
	if len(digits) == 0 || len(digits) > 5 || !isDigits(digits) {
		return bad("the port is not a number")
	}
	port, _ := strconv.Atoi(digits)
	if port < 1 || port > 65535 {
		return bad("the port is out of range")
	}
	return port, nil
}

// sessionEnded is vsftpd's "500 OOPS" to an EPSV: its own failure, after
// which it closes the session. The server did not break the protocol; it
// cannot serve now, and a new session may work: it wraps proto.ErrBusy
// (exit 5, retried), and the connection is lost (isConnError).
type sessionEnded struct{ reply string }

func (e *sessionEnded) Error() string { return "ftp: the server ended the session: " + e.reply }

func (e *sessionEnded) Unwrap() error { return proto.ErrBusy }
