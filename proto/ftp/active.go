package ftp

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"net/textproto"
	"strconv"
	"strings"
	"time"

	"github.com/rfc1738/fetch/internal/termtext"
	"github.com/rfc1738/fetch/proto"
)

// Active mode (RFC 959 PORT, RFC 2428 EPRT), for servers whose passive
// mode is broken.
//
// With Request.Options.FTP.Port set, every transfer is made in active
// mode: the client listens, sends EPRT (or PORT, once the server refuses
// EPRT), REST when resuming and the transfer command, and accepts the
// server's connection while it reads the preliminary reply (servers
// differ on which comes first). A connection from anywhere but the
// control connection's peer is closed unread: *DataPeerError (RFC 2577
// section 3: a third party could race the server to the port). Nothing
// is sent ahead in active mode.

// maxPortTries bounds the ports of a range tried for one listener.
const maxPortTries = 100

// DataPeerError is a data connection, in active mode, that came from
// another address than the control connection's peer. It was closed
// without reading from it, and the transfer failed.
type DataPeerError struct {
	From string // the address the connection came from
	Want string // the control connection's peer
}

func (e *DataPeerError) Error() string {
	return fmt.Sprintf("ftp: active mode: refused a data connection from %s: only the server %s may connect (RFC 2577 section 3)", e.From, e.Want)
}

// activeSpec is a parsed Options.FTP.Port.
type activeSpec struct {
	ip        netip.Addr // invalid: the control connection's local address
	low, high int        // the port range; 0, 0 means any port
}

// ParseActivePort checks a value of proto.FTPOptions.Port (curl's
// --ftp-port): "-" (listen on the control connection's local address), or
// an IP address, optionally with a port or a port range: "192.0.2.7",
// "192.0.2.7:40000", "192.0.2.7:40000-40009", "[2001:db8::7]:40000". Host
// and interface names are not accepted. It returns an error that names
// what is wrong.
func ParseActivePort(s string) error {
	_, err := parseActive(s)
	return err
}

func parseActive(s string) (activeSpec, error) {
	bad := func(why string) (activeSpec, error) {
		return activeSpec{}, fmt.Errorf("ftp: active address %q: %s", termtext.Escape(s, 80), why)
	}
	if err := proto.CheckArg(s); err != nil {
		return bad(err.Error())
	}
	if s == "-" {
		return activeSpec{}, nil
	}
	host, ports, hasPort, why := splitActive(s)
	if why != "" {
		return bad(why)
	}
	var sp activeSpec
	if host != "-" {
		ip, why := activeIP(host)
		if why != "" {
			return bad(why)
		}
		sp.ip = ip
	}
	if !hasPort {
		return sp, nil
	}
	l, h, ok := activePorts(ports)
	if !ok {
		return bad("want a port from 1 to 65535, or a range LOW-HIGH")
	}
	sp.low, sp.high = l, h
	return sp, nil
}

// splitActive splits a value of ParseActivePort into its host and its
// port or range; why says what is wrong.
func splitActive(s string) (host, ports string, hasPort bool, why string) {
	if ip, err := netip.ParseAddr(s); err == nil && ip.Zone() == "" {
		return s, "", false, "" // a bare IPv6 address has colons of its own
	}
	if strings.HasPrefix(s, "[") {
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return "", "", false, "no ] after the IPv6 address"
		}
		host, ports = s[1:end], s[end+1:]
		if ports != "" && !strings.HasPrefix(ports, ":") {
			return "", "", false, "want [IPv6]:PORT"
		}
		ports, hasPort = strings.CutPrefix(ports, ":")
		return host, ports, hasPort, ""
	}
	if i := strings.LastIndexByte(s, ':'); i >= 0 {
		return s[:i], s[i+1:], true, ""
	}
	return s, "", false, ""
}

// activeIP reads the address of an active value: an IP address without
// a zone that a server can connect to; why says what is wrong.
func activeIP(host string) (ip netip.Addr, why string) {
	ip, err := netip.ParseAddr(host)
	if err != nil || ip.Zone() != "" {
		return netip.Addr{}, "want -, or an IP address (host and interface names are not accepted), with :PORT or :LOW-HIGH"
	}
	ip = ip.Unmap()
	if ip.IsUnspecified() || ip.IsMulticast() {
		return netip.Addr{}, "not an address a server can connect to"
	}
	return ip, ""
}

// activePorts reads a port or a range LOW-HIGH of ports from 1 to 65535.
func activePorts(ports string) (low, high int, ok bool) {
	lo, hi, isRange := strings.Cut(ports, "-")
	if !isRange {
		hi = lo
	}
	l, err1 := strconv.Atoi(lo)
	h, err2 := strconv.Atoi(hi)
	if err1 != nil || err2 != nil || !isDigits(lo) || !isDigits(hi) || l < 1 || h > 65535 || l > h {
		return 0, 0, false
	}
	return l, h, true
}

// activePort returns the request's parsed Options.FTP.Port, or nil in
// passive mode (the value was checked when the connection was opened).
func (c *conn) activePort() *activeSpec {
	s := c.req.Options.FTP.Port
	if s == "" {
		return nil
	}
	sp, err := parseActive(s)
	if err != nil {
		return nil
	}
	return &sp
}

// listenActive listens for the data connection as sp asks and tells the
// server where: EPRT, or PORT when the server refuses EPRT (IPv4 only).
func (c *conn) listenActive(sp *activeSpec) (net.Listener, error) {
	ip := sp.ip
	if !ip.IsValid() {
		ip = c.local
	}
	if !ip.IsValid() {
		return nil, fmt.Errorf("ftp: active mode: the control connection's local address is unknown")
	}
	ln, err := listenRange(c.ctx, ip, sp.low, sp.high)
	if err != nil {
		return nil, fmt.Errorf("ftp: active mode: %w", err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	c.w.note("listening on %s for the data connection (active mode)", ln.Addr())
	if !c.noEPRT {
		family := "1"
		if ip.Is6() {
			family = "2"
		}
		cmd := "EPRT |" + family + "|" + ip.String() + "|" + strconv.Itoa(port) + "|"
		if err := proto.CheckArg(cmd); err != nil {
			ln.Close()
			return nil, fmt.Errorf("ftp: EPRT: %w", err)
		}
		_, _, err := c.cmd(2, cmd)
		switch code := replyCode(err); {
		case err == nil:
			return ln, nil
		case ip.Is4() && (code == StatusBadCommand || code == StatusBadArguments || code == StatusNotImplemented ||
			code == StatusNotImplementedParam || code == StatusNetProtoUnsupported):
			c.w.note("EPRT refused (%v): using PORT on this connection", err)
			c.noEPRT = true
		default:
			ln.Close()
			return nil, c.fail(cmd, err)
		}
	}
	if !ip.Is4() {
		ln.Close()
		return nil, fmt.Errorf("ftp: active mode: the server refused EPRT and PORT cannot name the IPv6 address %s", ip)
	}
	a := ip.As4()
	cmd := fmt.Sprintf("PORT %d,%d,%d,%d,%d,%d", a[0], a[1], a[2], a[3], port>>8, port&0xff)
	if _, _, err := c.cmd(2, cmd); err != nil {
		ln.Close()
		return nil, c.fail(cmd, err)
	}
	return ln, nil
}

// listenRange listens on ip at a port of low..high (any port when low is
// 0), trying at most maxPortTries ports of the range in order.
func listenRange(ctx context.Context, ip netip.Addr, low, high int) (net.Listener, error) {
	var lc net.ListenConfig
	if low == 0 {
		return lc.Listen(ctx, "tcp", netip.AddrPortFrom(ip, 0).String())
	}
	var first error
	for p, n := low, 0; p <= high && n < maxPortTries; p, n = p+1, n+1 {
		ln, err := lc.Listen(ctx, "tcp", netip.AddrPortFrom(ip, uint16(p)).String())
		if err == nil {
			return ln, nil
		}
		if first == nil {
			first = err
		}
		if ctx.Err() != nil {
			break
		}
	}
	return nil, first
}

// activeOpen runs one transfer command in active mode and returns the
// server's data connection and the offset it starts at (activeRest).
func (c *conn) activeOpen(sp *activeSpec, line, cmd string, offset int64) (net.Conn, int64, error) {
	ln, err := c.listenActive(sp)
	if err != nil {
		return nil, 0, err
	}
	defer ln.Close()
	if offset > 0 {
		if offset, err = c.activeRest(offset); err != nil {
			return nil, 0, err
		}
	}
	conn, err := c.sendAndAccept(ln, line, cmd)
	if err != nil {
		return nil, 0, err
	}
	c.w.note("data connection from %s (active mode)", conn.RemoteAddr())
	c.data = conn
	dc := &dataConn{Conn: c.tlsData(proto.NewDeadlineConn(c.ctx, conn, c.req.Idle())), cap: c.cap}
	return dc, offset, nil
}

// activeRest sends REST offset before an active transfer and returns
// the offset the transfer starts from: 0 when the server refuses REST.
func (c *conn) activeRest(offset int64) (int64, error) {
	rest := "REST " + strconv.FormatInt(offset, 10)
	if err := c.send(rest); err != nil {
		return 0, c.fail(rest, err)
	}
	_, _, err := c.reply(3)
	switch {
	case err != nil && replyCode(err) != 0:
		c.w.note("REST %d refused (%v): restarting from 0", offset, err)
		return 0, nil
	case err != nil:
		return 0, c.fail(rest, err)
	}
	return offset, nil
}

// sendAndAccept accepts the server's data connection on ln, within the
// idle timeout, while it sends the transfer command and reads its
// preliminary reply. A refusal leaves the control connection clean; a
// data connection that does not come after a preliminary reply leaves it
// dead.
func (c *conn) sendAndAccept(ln net.Listener, line, cmd string) (net.Conn, error) {
	type accepted struct {
		conn net.Conn
		err  error
	}
	got := make(chan accepted, 1)
	if tl, ok := ln.(*net.TCPListener); ok {
		tl.SetDeadline(time.Now().Add(c.req.Idle()))
	}
	stop := context.AfterFunc(c.ctx, func() { ln.Close() })
	defer stop()
	go func() {
		conn, err := c.acceptPeer(ln)
		got <- accepted{conn, err}
	}()
	// wait ends the accept and returns its result.
	wait := func(cancel bool) accepted {
		if cancel {
			ln.Close()
		}
		a := <-got
		if a.err != nil && c.ctx.Err() != nil {
			a.err = fmt.Errorf("%w (%w)", context.Cause(c.ctx), a.err)
		}
		return a
	}
	if err := c.send(line); err != nil {
		if a := wait(true); a.conn != nil {
			a.conn.Close()
		}
		return nil, c.fail(cmd, err)
	}
	code, msg, err := c.reply(0)
	if err == nil && code != StatusAlreadyOpen && code != StatusAboutToSend {
		err = &textproto.Error{Code: code, Msg: msg}
	}
	if err != nil {
		if a := wait(true); a.conn != nil {
			a.conn.Close()
		}
		return nil, c.fail(cmd, err)
	}
	a := wait(false)
	if a.err != nil {
		// The server is in the middle of a transfer that has no data
		// connection: the control connection cannot be trusted.
		c.dead = true
		return nil, c.fail(cmd, a.err)
	}
	return a.conn, nil
}

// acceptPeer accepts one connection on ln and checks that it comes from
// the control connection's peer.
func (c *conn) acceptPeer(ln net.Listener) (net.Conn, error) {
	conn, err := ln.Accept()
	if err != nil {
		return nil, fmt.Errorf("ftp: active mode: waiting for the server's data connection: %w", err)
	}
	from, _ := conn.RemoteAddr().(*net.TCPAddr)
	want := net.ParseIP(c.peer)
	if from == nil || want == nil || !from.IP.Equal(want) {
		conn.Close()
		return nil, &DataPeerError{From: conn.RemoteAddr().String(), Want: c.peer}
	}
	return conn, nil
}
