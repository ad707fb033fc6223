package ftp

import (
	"bufio"
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"net/textproto"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/rfc1738/fetch/proto"
)

// conn is one logged-in control connection and what is known about it.
//
// The control connection is dialled under a context of its own (connCtx),
// so that it can outlive the Fetch that opened it and serve the next one
// from the pool. While a caller uses it, that caller's context is bound to
// it (bind): cancelling the caller's context closes the connection. Data
// connections are dialled under the caller's context.
type conn struct {
	key    poolKey
	w      *wire
	peer   string // IP address of the control connection's peer
	cancel context.CancelFunc

	pwd   string   // the login directory from PWD; "" when unusable
	syst  string   // the reply to SYST ("UNIX Type: L8"); "" when unknown
	typ   string   // the TYPE in effect: "A", "I" or "" (unknown)
	feat  features // what FEAT offered at login (engine.go)
	mlsd  bool     // List sends MLSD (FEAT listed MLST and MLSD was not disabled)
	moved bool     // a CWD was sent since login or the last return
	dirty bool     // an operation failed: check with NOOP before reuse
	dead  bool     // must not be used again
	uses  int      // how many times the connection was checked out

	rd         *textproto.Reader // the reply reader (pipeline.go)
	noPipeline bool              // EPSV refused on the pipelined path
	noEPSV     bool              // the plain passive path uses PASV
	epsvAhead  bool              // the reply to an EPSV sent ahead is to come
	kept       *epsvReply        // that reply, read and kept for the next transfer (send)
	lead       string            // the CWD that goes with the next listing command (leadCWD)
	// vsftpd: the greeting names vsftpd, which reads no command while it
	// sends a file and nothing from a data connection it sends on
	// (pipeline.go).
	vsftpd    bool
	systAsked bool    // SYST was sent (syst.go)
	iac       iacMode // whether the server reads 0xff as Telnet's IAC (telnet.go)

	local      netip.Addr  // the control connection's local address (active.go)
	noEPRT     bool        // the server refused EPRT
	tlsCfg     *tls.Config // set when the connection is protected (tls.go)
	tlsWarning string      // TLS was asked for and refused

	// at is the list of CWD arguments that brought the connection from
	// its login directory to where it is, when atKnown: the same list
	// for the next URL needs no CWD at all (RFC 1738 section 3.2.5 only
	// forbids guessing a path between different directories).
	at      []string
	atKnown bool
	pipeCWD bool // the driver pipelines, and so may send its CWDs at once

	idleSince time.Time

	// Set while checked out.
	ctx  context.Context
	req  *proto.Request
	stop func() bool
	cap  *capture
	data net.Conn // the last data connection dialled
}

// limits are the Driver's bounds, with defaults filled in.
type limits struct {
	maxLine   int
	maxReply  int64
	reuse     bool
	passAlone bool // PASS is sent alone (errOutOfStep)

	// TLS for this dial (tls.go): the mode (proto.TLSOff for none) and
	// the connection's own configuration.
	tlsMode proto.FTPTLS
	tlsCfg  *tls.Config
}

// dialConn opens the control connection to key.addr, reads the greeting
// and logs in (login), and returns it bound to ctx and req. When noMLSD is
// not empty (it says why, for the trace) it lists with LIST even when
// FEAT offers MLST.
func dialConn(ctx context.Context, req *proto.Request, key poolKey, cr creds, lim limits, noMLSD string, first []string) (*conn, error) {
	if err := context.Cause(ctx); err != nil {
		// The dial below is detached from ctx (the connection may
		// outlive the call): a caller that has given up dials nothing.
		return nil, fmt.Errorf("ftp: dial %s: %w", key.addr, err)
	}
	c, raw, err := dialControl(ctx, req, key)
	if err != nil {
		return nil, err
	}
	c.w = &wire{Conn: raw, maxLine: lim.maxLine, maxReply: lim.maxReply}
	c.rd = textproto.NewReader(bufio.NewReaderSize(c.w, 1024))
	c.w.secret = cr.pass
	c.w.trace = req.Trace
	if remote := raw.RemoteAddr().String(); remote != key.addr {
		c.w.note("connected to %s (%s)", key.addr, remote)
	}
	if la, ok := raw.LocalAddr().(*net.TCPAddr); ok {
		c.local = la.AddrPort().Addr().Unmap()
	}
	err = c.greet()
	if err == nil && lim.tlsMode != proto.TLSOff {
		err = c.startTLS(ctx, lim.tlsMode, lim.tlsCfg)
	}
	if err == nil {
		err = c.login(cr, noMLSD, lim, first)
	}
	if err != nil {
		c.close()
		if errors.Is(err, errOutOfStep) {
			lim.passAlone = true
		}
		if errors.Is(err, errFirstLost) || errors.Is(err, errOutOfStep) {
			return dialConn(ctx, req, key, cr, lim, noMLSD, nil)
		}
		return nil, err
	}
	return c, nil
}

// dialControl dials the control connection to key.addr, detached from ctx
// but closed when ctx ends until c.stop is called, and returns the conn
// it starts, bound to ctx and req.
func dialControl(ctx context.Context, req *proto.Request, key poolKey) (*conn, net.Conn, error) {
	connCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, cancel)
	raw, err := req.DialContext(connCtx, "tcp", key.addr)
	if err != nil {
		stop()
		cancel()
		return nil, nil, err // a dial error names what it dialled
	}
	tcp, ok := raw.RemoteAddr().(*net.TCPAddr)
	if !ok {
		stop()
		cancel()
		raw.Close()
		return nil, nil, fmt.Errorf("ftp: dial %s: control connection is not TCP (%T)", key.addr, raw.RemoteAddr())
	}
	c := &conn{key: key, peer: tcp.IP.String(), cancel: cancel, atKnown: true}
	c.ctx, c.req, c.stop = ctx, req, stop
	return c, raw, nil
}

// login logs in (logIn) with FEAT, TYPE I and, when lim.reuse, PWD in
// the write of PASS, and for first (Driver.firstDir) a CWD there, SYST
// and EPSV (enterFirst); then it protects the data connections when TLS
// is on. No OPTS UTF8 ON: names are octets, which it would make some
// servers re-encode.
func (c *conn) login(cr creds, noMLSD string, lim limits, first []string) error {
	pwd := lim.reuse
	ahead := []string{"FEAT", "TYPE I"}
	if pwd {
		ahead = append(ahead, "PWD")
	}
	if len(first) > 0 {
		ahead = append(ahead, "CWD "+strings.Join(first, "/"))
	}
	if first != nil {
		ahead = append(ahead, "SYST", "EPSV")
	}
	if err := c.logIn(cr, ahead, lim.passAlone); err != nil {
		return err
	}
	if err := c.featReply(); err != nil {
		return err
	}
	if _, _, err := c.reply(StatusCommandOK); err != nil {
		return c.fail("TYPE I", err)
	}
	c.typ = "I"
	if pwd {
		var err error
		if c.pwd, err = c.pwdReply(); err != nil {
			return err
		}
		if c.pwd == "" {
			c.w.note("PWD gave no usable directory: this connection will not be reused")
		}
	}
	if first != nil {
		if err := c.enterFirst(first); err != nil {
			return err
		}
	}
	if c.tlsCfg != nil {
		if err := c.protect(); err != nil {
			return err
		}
	}
	c.mlsd = c.feat.has("MLST") && noMLSD == ""
	if noMLSD != "" {
		c.w.note("%s: listing with LIST", noMLSD)
	}
	return nil
}

// enterFirst reads the replies to login's CWD to first (its segments
// joined; none for no segment) and SYST, and leaves EPSV's owed. The
// connection is known to be in first when the CWD succeeded and PWD gave
// a Unix path (as for fullPath), or there was no CWD; else its first URL
// starts from the login directory, or, with none, it is dropped
// (errFirstLost).
func (c *conn) enterFirst(first []string) error {
	var err error
	if c.moved = len(first) > 0; c.moved {
		_, _, err = c.reply(StatusRequestedFileOK)
	}
	if err != nil && replyCode(err) == 0 {
		return c.fail(displayCmd("CWD", strings.Join(first, "/")), err)
	}
	c.systAsked = true
	if serr := c.systReply(); serr != nil {
		return serr
	}
	c.epsvAhead = true
	if c.pwd == "" && c.moved {
		c.dead = true
		return errFirstLost
	}
	c.at, c.atKnown = slices.Clone(first), !c.moved || err == nil && strings.HasPrefix(c.pwd, "/")
	return nil
}

// errFirstLost: a connection that entered a directory at login has no
// login directory to return to (dialConn dials another without).
var errFirstLost = errors.New("ftp: no login directory to return to from the directory entered at login")

// dialData opens a data connection to the port of address on the
// control connection's peer (a PASV reply may name any address, RFC 2577
// section 3), through the request's dialer, whose policy applies to data
// connections too.
func (c *conn) dialData(network, address string) (net.Conn, error) {
	_, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, fmt.Errorf("ftp: data connection address %q: %w", address, err)
	}
	if host, _, _ := net.SplitHostPort(address); host != c.peer {
		c.w.note("ignoring data address %s: using the control peer %s", host, c.peer)
	}
	target := net.JoinHostPort(c.peer, port)
	raw, err := c.req.DialContext(c.ctx, network, target)
	if err != nil {
		return nil, fmt.Errorf("ftp: data connection to %s: %w", target, err)
	}
	c.data = raw
	return &dataConn{Conn: c.tlsData(raw), cap: c.cap}, nil
}

// bind attaches the caller's context and request to c for one use.
func (c *conn) bind(ctx context.Context, req *proto.Request) {
	c.ctx, c.req = ctx, req
	c.stop = context.AfterFunc(ctx, c.cancel)
	c.w.trace = req.Trace
}

// unbind detaches the caller; it reports false when the caller's context
// has already closed the connection.
func (c *conn) unbind() bool {
	alive := c.stop == nil || c.stop()
	c.ctx, c.req, c.stop, c.cap, c.data = nil, nil, nil, nil, nil
	c.w.trace = nil
	if c.lead != "" {
		c.lead, c.atKnown = "", false // never sent: the place is not known
	}
	return alive && !c.dead
}

// close ends the connection: QUIT when it is still healthy, then close.
func (c *conn) close() {
	healthy := !c.dead && c.w.err == nil
	c.dead = true
	if healthy {
		// QUIT, without waiting for its reply, or reading first one to
		// an EPSV sent ahead; the write is bounded by the idle deadline.
		c.epsvAhead, c.kept = false, nil
		c.w.Write([]byte("QUIT\r\n"))
	}
	c.w.Conn.Close()
	if c.stop != nil {
		c.stop()
	}
	c.cancel()
}

// fail wraps err, the failure of the last command sent (or of what, when
// set), into a *CommandError; a failure of the connection marks c dead, a
// refusal marks it dirty.
func (c *conn) fail(what string, err error) error {
	var ce *CommandError
	if errors.As(err, &ce) {
		return err
	}
	cmd := cmp.Or(what, c.w.lastCmd, "greeting")
	if errors.Is(err, io.EOF) && replyCode(err) == 0 || c.cutLine(err) {
		// The control connection ended where a reply was due: lost
		// (exit 5, retried), not a bare EOF (exit 1).
		err = fmt.Errorf("the server closed the control connection before its reply: %w", io.ErrUnexpectedEOF)
	}
	if replyCode(err) == 0 && (isConnError(err) || c.w.err != nil) {
		c.dead = true
	} else {
		c.dirty = true
	}
	if ctxErr := c.ctxErr(); ctxErr != nil && isConnError(err) {
		err = fmt.Errorf("%w (%w)", ctxErr, err)
	}
	return c.scrub(cmdError(cmd, err))
}

// cutLine reports whether err, net/textproto's complaint about a reply
// line, is about the part of a line held when the connection ended: the
// server stopped sending, it did not send a malformed reply.
func (c *conn) cutLine(err error) bool {
	var tpe textproto.ProtocolError
	return errors.As(err, &tpe) && c.w.ended && c.w.inLen > 0
}

// ctxErr returns the caller's context error, if its context is done.
func (c *conn) ctxErr() error {
	if c.ctx == nil {
		return nil
	}
	return context.Cause(c.ctx)
}

// scrub makes sure the password never leaves in an error: a server that
// echoes it in a reply has its text redacted.
func (c *conn) scrub(ce *CommandError) error {
	if len(c.w.secret) < 3 || !strings.Contains(ce.Error(), c.w.secret) {
		return ce
	}
	var te *textproto.Error
	if errors.As(ce.Err, &te) {
		ce.Err = &textproto.Error{Code: te.Code, Msg: c.w.redact(te.Msg)}
	}
	if strings.Contains(ce.Error(), c.w.secret) {
		ce.Err = errors.New(c.w.redact(ce.Err.Error()))
	}
	return ce
}

// isConnError reports whether err is a failure of the connection itself
// (closed, reset, timed out, cut short) rather than a reply.
func isConnError(err error) bool {
	var ne net.Error
	var pe *proto.ProtocolError
	var tpe textproto.ProtocolError
	var se *sessionEnded
	return errors.As(err, &ne) || errors.As(err, &se) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, net.ErrClosed) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, os.ErrDeadlineExceeded) || errors.As(err, &pe) || errors.As(err, &tpe) ||
		errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// isTimeout reports whether err is a deadline that expired.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout() || errors.Is(err, os.ErrDeadlineExceeded)
}

// cwdAtOnce sends the CWDs of args, then the commands of ahead, and only
// then reads their replies, in order (RFC 959 section 4.2): one round
// trip for all. home: the first CWD returns to the login directory, and
// its refusal is an error. Every reply is read, so that the replies stay
// in step; the first refusal is the error, as one after another, and the
// connection's place is then not known. A refused CWD with a null
// argument does not end the retrieval: the client stays where it was,
// which is what a null CWD most plausibly asks for, and the refusal is a
// warning.
func (c *conn) cwdAtOnce(args []string, home bool, ahead []string) (warnings []string, err error) {
	if err := c.sendAtOnce(args, ahead); err != nil {
		return nil, err
	}
	warnings, first, err := c.cwdReplies(args, home)
	if err != nil {
		return warnings, err
	}
	if err := c.aheadReplies(ahead); err != nil {
		return warnings, err
	}
	return warnings, first
}

// sendAtOnce checks the arguments of the CWDs and sends the CWDs, then
// the commands of ahead, without reading a reply.
func (c *conn) sendAtOnce(args, ahead []string) error {
	for _, a := range args {
		if err := proto.CheckArg(a); err != nil {
			return fmt.Errorf("ftp: CWD: %w", err)
		}
	}
	if len(args) > 0 {
		c.moved = true
	}
	for _, a := range args {
		if err := c.send("CWD " + a); err != nil {
			return c.fail(displayCmd("CWD", a), err)
		}
	}
	for _, cmd := range ahead {
		if err := c.send(cmd); err != nil {
			return c.fail(cmd, err)
		}
	}
	return nil
}

// cwdReplies reads the reply of each CWD that sendAtOnce sent: a refused
// null CWD is a warning (but for the return home), the first other
// refusal is first, and err is a failed connection.
func (c *conn) cwdReplies(args []string, home bool) (warnings []string, first, err error) {
	for i, a := range args {
		_, _, rerr := c.reply(2)
		if rerr == nil {
			continue
		}
		var te *textproto.Error // declared here: on the heap, for a refusal only
		switch {
		case !errors.As(rerr, &te):
			return warnings, nil, c.fail(displayCmd("CWD", a), rerr) // the connection failed
		case a == "" && !(home && i == 0):
			warnings = append(warnings, c.nullCWDRefused(te))
		case first == nil:
			first = c.fail(displayCmd("CWD", a), rerr)
		}
	}
	return warnings, first, nil
}

// aheadReplies reads SYST's reply of the commands sent ahead and leaves
// EPSV's to come: it is read by passive, or dropped by the next command
// (a CWD refused: no listing).
func (c *conn) aheadReplies(ahead []string) error {
	for _, cmd := range ahead {
		switch cmd {
		case "SYST":
			c.systAsked = true
			if err := c.systReply(); err != nil {
				return err
			}
		case "EPSV":
			c.epsvAhead = true
		}
	}
	return nil
}

// nullCWDRefused notes a refused CWD with a null argument, which leaves
// the client where it was, and returns the warning for the caller.
func (c *conn) nullCWDRefused(te *textproto.Error) string {
	c.w.note("CWD (null argument) refused (%d %s): staying in the current directory", te.Code, te.Msg)
	return c.w.redact(fmt.Sprintf("CWD (null argument) refused: %d %s", te.Code, te.Msg))
}

// setType sends TYPE A or TYPE I. On a reused connection already in that
// type the command is left out.
func (c *conn) setType(t string) error {
	if c.uses > 1 && c.typ == t {
		return nil
	}
	if _, _, err := c.cmd(StatusCommandOK, "TYPE "+t); err != nil {
		c.typ = ""
		return c.fail("", err)
	}
	c.typ = t
	return nil
}

// enter sends the plan's CWD commands. A reused connection that a
// previous URL left elsewhere first returns to the login directory with
// an absolute CWD to what PWD reported (RFC 1738 section 3.2.5: the path
// between two directories cannot be deduced); after exactly the same CWD
// list, all of it successful, no CWD is sent, and after a list that
// begins this one, only the rest (a mirror lists a directory, then each
// below it).
func (c *conn) enter(pl plan) (warnings []string, err error) {
	return c.enterThen(pl, nil)
}

// enterThen is enter, with the commands of ahead (SYST, EPSV: those of a
// pipelined listing) sent with the CWDs; SYST's reply is read and EPSV's
// left owed to passive: a listing elsewhere costs two round trips, not
// three.
func (c *conn) enterThen(pl plan, ahead []string) (warnings []string, err error) {
	if c.atKnown && slices.Equal(c.at, pl.cwd) {
		return c.stayThen(pl, ahead)
	}
	from := c.sharedDirs(pl)
	c.atKnown = false
	home := c.moved && from == 0
	if full, ok := c.fullPath(pl); ok && len(pl.cwd)-from+btoi(home) > 1 {
		done, err := c.enterFull(pl, full, ahead)
		if done || err != nil {
			return nil, err
		}
		// Refused: the segments one by one, from the login directory,
		// say which one is missing. What was sent ahead is done.
		home, from, ahead = true, 0, nil
	}
	args := pl.cwd[from:]
	if home {
		args = append([]string{c.pwd}, args...)
	}
	if len(ahead) > 0 || c.pipeCWD && !c.noPipeline && len(args) > 1 {
		warnings, err = c.cwdAtOnce(args, home, ahead)
	} else {
		warnings, err = c.cwdEach(pl.cwd[from:], home)
	}
	if err != nil {
		return warnings, err
	}
	c.at, c.atKnown = slices.Clone(pl.cwd), len(warnings) == 0
	return warnings, nil
}

// fullPath returns the absolute path of pl's directory for one CWD, when
// the request asks for it (Options.FTP.DirectCWD: a mirror), PWD gave a
// Unix path and the segments are plain names (plainDirs): there the one
// CWD ends where RFC 1738's one CWD per segment would.
func (c *conn) fullPath(pl plan) (string, bool) {
	if c.req == nil || !c.req.Options.FTP.DirectCWD || !strings.HasPrefix(c.pwd, "/") || !plainDirs(pl.cwd) {
		return "", false
	}
	full := strings.TrimSuffix(c.pwd, "/") + "/" + strings.Join(pl.cwd, "/")
	return full, proto.CheckArg(full) == nil
}

// enterFile prepares the retrieval of pl's file: where fullPath allows
// and the connection is elsewhere, pl.arg becomes the file's absolute
// path and no CWD is sent; else enter.
func (c *conn) enterFile(pl *plan) (warnings []string, err error) {
	if c.atKnown && slices.Equal(c.at, pl.cwd) || pl.arg == "" || strings.Contains(pl.arg, "/") {
		return c.enter(*pl)
	}
	if full, ok := c.fullPath(*pl); ok && proto.CheckArg(full+"/"+pl.arg) == nil {
		c.w.note("retrieving by the absolute path: no CWD")
		pl.arg = full + "/" + pl.arg
		return nil, nil
	}
	return c.enter(*pl)
}

// plainDirs reports whether segs are CWD arguments that are all plain
// names (not empty, ".", ".." and without "/"), and at least one.
func plainDirs(segs []string) bool {
	for _, s := range segs {
		if s == "" || s == "." || s == ".." || strings.Contains(s, "/") || proto.CheckArg(s) != nil {
			return false
		}
	}
	return len(segs) > 0
}

// enterFull changes into pl's directory with one CWD to full, sent with
// the commands of ahead. done is false when the server refused the CWD:
// the connection's place is then not known.
func (c *conn) enterFull(pl plan, full string, ahead []string) (done bool, err error) {
	_, err = c.cwdAtOnce([]string{full}, false, ahead)
	if err == nil {
		c.at, c.atKnown = slices.Clone(pl.cwd), true
		return true, nil
	}
	if replyCode(err) == 0 {
		return false, err // the connection failed
	}
	c.w.note("CWD %s refused: entering the directory one segment at a time", full)
	c.dirty = false
	return false, nil
}

// leadCWD makes the CWD into pl's directory go in the write of the
// listing command (c.lead, sent by pipelinedList): one round trip, not
// two. Only for vsftpd, on a pipelining connection whose EPSV went ahead,
// for a mirror (DirectCWD), when one CWD (the last segment, or the full
// path) gets there and nothing else goes first. It reports whether it did.
func (c *conn) leadCWD(pl plan, ahead []string) bool {
	if !c.vsftpd || !c.pipeCWD || c.noPipeline || c.activePort() != nil || len(ahead) > 0 || !c.hasEPSV() ||
		!c.req.Options.FTP.DirectCWD || c.atKnown && slices.Equal(c.at, pl.cwd) {
		return false
	}
	arg, ok := c.fullPath(pl)
	if c.atKnown && len(pl.cwd) == len(c.at)+1 && slices.Equal(c.at, pl.cwd[:len(c.at)]) {
		arg, ok = pl.cwd[len(c.at)], pl.cwd[len(c.at)] != ""
	}
	if !ok || proto.CheckArg(arg) != nil {
		return false
	}
	c.lead, c.moved = "CWD "+arg, true
	c.at, c.atKnown = slices.Clone(pl.cwd), true
	return true
}

// btoi is 1 for true, 0 for false.
func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// stayThen is enterThen when c is already in the directory of pl: only
// the commands of ahead are sent (listAhead leaves EPSV out when one was
// sent after the last transfer).
func (c *conn) stayThen(pl plan, ahead []string) ([]string, error) {
	if len(pl.cwd) > 0 {
		c.w.note("already in the directory of the previous URL")
	}
	return c.cwdAtOnce(nil, false, ahead) // nothing sent when ahead is empty
}

// sharedDirs is how many of the CWDs of pl c has already made: those of
// the previous URL, when they begin pl's.
func (c *conn) sharedDirs(pl plan) int {
	if c.atKnown && len(c.at) > 0 && len(pl.cwd) > len(c.at) && slices.Equal(c.at, pl.cwd[:len(c.at)]) {
		c.w.note("already in the first %d of its %d directories (the previous URL's)", len(c.at), len(pl.cwd))
		return len(c.at)
	}
	return 0
}

// cwdEach makes the CWDs of args one after another (cwdAtOnce of each),
// after a return to the login directory when home.
func (c *conn) cwdEach(args []string, home bool) (warnings []string, err error) {
	if home {
		if _, err := c.cwdAtOnce([]string{c.pwd}, true, nil); err != nil {
			return nil, err
		}
		c.moved = false
	}
	for _, a := range args {
		w, err := c.cwdAtOnce([]string{a}, false, nil)
		warnings = append(warnings, w...)
		if err != nil {
			return warnings, err
		}
	}
	return warnings, nil
}
