package telnet

import (
	"bytes"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	ztelnet "github.com/ziutek/telnet"

	"github.com/rfc1738/fetch/proto"
)

// dialPeer connects an optionConn (and ziutek's Conn over it) to p.
func dialPeer(t *testing.T, p *peer, termType string, trace io.Writer) (*optionConn, *ztelnet.Conn) {
	t.Helper()
	c, err := net.DialTimeout("tcp", p.addr(), 5*time.Second)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	p.accept()
	oc := newOptionConn(c, termType, trace)
	zc, err := ztelnet.NewConn(oc)
	if err != nil {
		t.Fatalf("ztelnet.NewConn: %v", err)
	}
	return oc, zc
}

// readN reads exactly n data bytes from r within 5 s.
func readN(t *testing.T, c net.Conn, r io.Reader, n int) []byte {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		t.Fatalf("reading %d data bytes: %v (got %q)", n, err, b)
	}
	return b
}

// TestNegotiation checks the exact replies to each request (RFC 854
// "GENERAL CONSIDERATIONS": a request for a mode already in force is not
// acknowledged; RFC 1143 for the refusals).
func TestNegotiation(t *testing.T) {
	tests := []struct {
		name     string
		termType string
		in       []byte // server -> client
		want     []byte // client -> server
	}{
		// RFC 1091: DO TTYPE is accepted when there is a terminal type.
		{"do ttype", "xterm", iac(cmdDO, optTTYPE), iac(cmdWILL, optTTYPE)},
		// ... and refused without one.
		{"do ttype, no type", "", iac(cmdDO, optTTYPE), iac(cmdWONT, optTTYPE)},
		// A terminal type that is not 1-40 printable characters is none.
		{"do ttype, bad type", "xterm\r\n", iac(cmdDO, optTTYPE), iac(cmdWONT, optTTYPE)},
		// RFC 1073: WILL NAWS then the size at once, well formed.
		{"do naws", "", iac(cmdDO, optNAWS), cat(iac(cmdWILL, optNAWS), iac(cmdSB, optNAWS, 0, 80, 0, 24, cmdIAC, cmdSE))},
		// RFC 857: the server echoes; the client never does (DO ECHO refused).
		{"will echo", "", iac(cmdWILL, optEcho), iac(cmdDO, optEcho)},
		{"do echo", "", iac(cmdDO, optEcho), iac(cmdWONT, optEcho)},
		// RFC 858: SGA both ways.
		{"will sga", "", iac(cmdWILL, optSGA), iac(cmdDO, optSGA)},
		{"do sga", "", iac(cmdDO, optSGA), iac(cmdWILL, optSGA)},
		// RFC 856: BINARY refused both ways; unknown options refused.
		{"will binary", "", iac(cmdWILL, optBinary), iac(cmdDONT, optBinary)},
		{"do binary", "", iac(cmdDO, optBinary), iac(cmdWONT, optBinary)},
		{"do linemode", "", iac(cmdDO, 34), iac(cmdWONT, 34)},
		{"will status", "", iac(cmdWILL, 5), iac(cmdDONT, 5)},
		// RFC 854: no acknowledgement of a mode already in force.
		{"repeated will echo", "", cat(iac(cmdWILL, optEcho), iac(cmdWILL, optEcho)), iac(cmdDO, optEcho)},
		{"repeated do sga", "", cat(iac(cmdDO, optSGA), iac(cmdDO, optSGA)), iac(cmdWILL, optSGA)},
		// Turning off what is on is acknowledged once; what is off, never.
		{"wont echo after will", "", cat(iac(cmdWILL, optEcho), iac(cmdWONT, optEcho), iac(cmdWONT, optEcho)), cat(iac(cmdDO, optEcho), iac(cmdDONT, optEcho))},
		{"dont sga after do", "", cat(iac(cmdDO, optSGA), iac(cmdDONT, optSGA), iac(cmdDONT, optSGA)), cat(iac(cmdWILL, optSGA), iac(cmdWONT, optSGA))},
		{"wont and dont unasked", "", cat(iac(cmdWONT, optEcho), iac(cmdDONT, optNAWS)), nil},
		// RFC 1091: SEND answered with IS and the type.
		{"ttype send", "vt100", cat(iac(cmdDO, optTTYPE), iac(cmdSB, optTTYPE, ttypeSEND, cmdIAC, cmdSE)),
			cat(iac(cmdWILL, optTTYPE), iac(cmdSB, optTTYPE, ttypeIS), []byte("vt100"), iac(cmdSE))},
		// SEND before the option is agreed is not answered.
		{"ttype send unagreed", "vt100", iac(cmdSB, optTTYPE, ttypeSEND, cmdIAC, cmdSE), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newPeer(t)
			oc, zc := dialPeer(t, p, tt.termType, nil)
			oc.setSize(80, 24)
			// The marker after the commands makes Read process them.
			p.send(cat(tt.in, []byte("."))...)
			if got := readN(t, oc.Conn, zc, 1); string(got) != "." {
				t.Fatalf("data = %q, want %q", got, ".")
			}
			if len(tt.want) > 0 {
				p.expect(tt.want...)
			}
			p.expectNothing(100 * time.Millisecond)
		})
	}
}

// TestCommandsDropped checks that NOP, DM, GA and the other commands of
// RFC 854 are taken out of the data, which goes on; ziutek's own Read
// would fail on them.
func TestCommandsDropped(t *testing.T) {
	p := newPeer(t)
	oc, zc := dialPeer(t, p, "", nil)
	in := cat([]byte("a"), iac(cmdNOP), []byte("b"), iac(cmdDM), []byte("c"), iac(cmdGA),
		iac(cmdBRK), iac(cmdIP), iac(cmdAO), iac(cmdAYT), iac(cmdEC), iac(cmdEL), iac(cmdSE),
		iac(17), []byte("d"), iac(cmdIAC), []byte("e\r\x00f\r\ng"))
	p.send(in...)
	want := "abcd\xffe\rf\r\ng"
	if got := readN(t, oc.Conn, zc, len(want)); string(got) != want {
		t.Errorf("data = %q, want %q", got, want)
	}
	p.expectNothing(100 * time.Millisecond)
}

// TestSplitCommands feeds every command split across reads.
func TestSplitCommands(t *testing.T) {
	p := newPeer(t)
	oc, zc := dialPeer(t, p, "xterm", nil)
	oc.setSize(100, 40)
	in := cat([]byte("x"), iac(cmdNOP), []byte("y\r"), []byte{0}, iac(cmdIAC),
		iac(cmdDO, optNAWS), iac(cmdSB, optTTYPE, ttypeSEND, cmdIAC, cmdSE), iac(cmdDO, optTTYPE),
		iac(cmdSB, optTTYPE, ttypeSEND, cmdIAC, cmdSE), []byte("z"))
	go func() {
		for _, b := range in {
			p.conn.Write([]byte{b})
			time.Sleep(time.Millisecond)
		}
	}()
	want := "xy\r\xffz"
	if got := readN(t, oc.Conn, zc, len(want)); string(got) != want {
		t.Errorf("data = %q, want %q", got, want)
	}
	p.expect(cat(iac(cmdWILL, optNAWS), iac(cmdSB, optNAWS, 0, 100, 0, 40, cmdIAC, cmdSE),
		iac(cmdWILL, optTTYPE), iac(cmdSB, optTTYPE, ttypeIS), []byte("xterm"), iac(cmdSE))...)
}

// TestNAWSMessage checks RFC 1073's format: 16-bit big-endian width and
// height, each 255 byte doubled.
func TestNAWSMessage(t *testing.T) {
	tests := []struct {
		w, h int
		want []byte
	}{
		{80, 24, iac(cmdSB, optNAWS, 0, 80, 0, 24, cmdIAC, cmdSE)},
		{255, 255, iac(cmdSB, optNAWS, 0, 255, 255, 0, 255, 255, cmdIAC, cmdSE)},
		{65535, 300, iac(cmdSB, optNAWS, 255, 255, 255, 255, 1, 44, cmdIAC, cmdSE)},
		{70000, -1, iac(cmdSB, optNAWS, 255, 255, 255, 255, 0, 0, cmdIAC, cmdSE)},
		{0, 0, iac(cmdSB, optNAWS, 0, 0, 0, 0, cmdIAC, cmdSE)},
	}
	for _, tt := range tests {
		if got := nawsMessage(tt.w, tt.h); !bytes.Equal(got, tt.want) {
			t.Errorf("nawsMessage(%d, %d) = % x, want % x", tt.w, tt.h, got, tt.want)
		}
	}
}

// TestSetSize checks that a new size is sent only when NAWS is in force and
// the size changed.
func TestSetSize(t *testing.T) {
	p := newPeer(t)
	oc, zc := dialPeer(t, p, "", nil)
	oc.setSize(80, 24) // NAWS not agreed: nothing sent
	p.expectNothing(50 * time.Millisecond)
	p.send(cat(iac(cmdDO, optNAWS), []byte("."))...)
	readN(t, oc.Conn, zc, 1)
	p.expect(cat(iac(cmdWILL, optNAWS), iac(cmdSB, optNAWS, 0, 80, 0, 24, cmdIAC, cmdSE))...)
	if err := oc.setSize(80, 24); err != nil {
		t.Fatal(err)
	}
	p.expectNothing(50 * time.Millisecond)
	if err := oc.setSize(255, 50); err != nil {
		t.Fatal(err)
	}
	p.expect(iac(cmdSB, optNAWS, 0, 255, 255, 0, 50, cmdIAC, cmdSE)...)
}

// TestSubnegotiationLimits: an over-long subnegotiation is cut, not kept;
// one interrupted by another command ends there and the command counts.
func TestSubnegotiationLimits(t *testing.T) {
	p := newPeer(t)
	oc, zc := dialPeer(t, p, "", nil)
	long := cat(iac(cmdSB, 99), bytes.Repeat([]byte{'x'}, 10*maxSubneg), iac(cmdSE))
	p.send(cat(long, []byte("a"), iac(cmdSB, 99, 1, 2), iac(cmdWILL, optEcho), []byte("b"))...)
	if got := readN(t, oc.Conn, zc, 2); string(got) != "ab" {
		t.Errorf("data = %q, want %q", got, "ab")
	}
	if cap(oc.sb) > 2*maxSubneg {
		t.Errorf("subnegotiation buffer grew to %d bytes", cap(oc.sb))
	}
	p.expect(iac(cmdDO, optEcho)...)
}

// TestTrace checks the negotiation transcript.
func TestTrace(t *testing.T) {
	p := newPeer(t)
	var tr strings.Builder
	oc, zc := dialPeer(t, p, "xterm", &tr)
	oc.setSize(80, 24)
	p.send(cat(iac(cmdDO, optNAWS), iac(cmdNOP), iac(cmdWILL, 200), iac(cmdSB, optTTYPE, ttypeSEND, cmdIAC, cmdSE), []byte("."))...)
	readN(t, oc.Conn, zc, 1)
	want := "< DO NAWS\n> WILL NAWS\n> SB NAWS 80 24\n< NOP\n< WILL OPTION-200\n> DONT OPTION-200\n< SB TTYPE SEND\n"
	if tr.String() != want {
		t.Errorf("trace = %q, want %q", tr.String(), want)
	}
}

// TestIdleTimeout: over proto.DeadlineConn (what req.DialContext returns),
// a persistent optionConn waits through idle timeouts (an interactive
// session's server may be silent for long); a plain one reports them.
func TestIdleTimeout(t *testing.T) {
	for _, persistent := range []bool{false, true} {
		p := newPeer(t)
		c, err := net.DialTimeout("tcp", p.addr(), 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		p.accept()
		oc := newOptionConn(proto.NewDeadlineConn(t.Context(), c, 50*time.Millisecond), "", nil)
		oc.persistent = persistent
		go func() {
			time.Sleep(300 * time.Millisecond)
			p.conn.Write([]byte("late"))
		}()
		b := make([]byte, 4)
		n, err := oc.Read(b)
		if persistent {
			if err != nil || string(b[:n]) != "late" {
				t.Errorf("persistent Read = %q, %v, want %q", b[:n], err, "late")
			}
		} else {
			var ne net.Error
			if !errors.As(err, &ne) || !ne.Timeout() {
				t.Errorf("Read = %q, %v, want a timeout", b[:n], err)
			}
		}
	}
}

// TestZiutekDefects documents why optionConn exists: on its own,
// github.com/ziutek/telnet v0.1.0 ends the stream at IAC NOP and IAC DM and
// answers DO NAWS with eight unescaped 255 bytes whatever the window.
func TestZiutekDefects(t *testing.T) {
	for _, cmd := range []byte{cmdNOP, cmdDM} {
		p := newPeer(t)
		c, err := net.DialTimeout("tcp", p.addr(), 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		p.accept()
		zc, _ := ztelnet.NewConn(c)
		p.send(cat([]byte("a"), iac(cmd), []byte("b"))...)
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		b := make([]byte, 2)
		if _, err := io.ReadFull(zc, b); err == nil {
			t.Errorf("ziutek Read through IAC %s = %q, nil; the library is fixed: optionConn may be simplified", cmdNames[cmd], b)
		}
	}
	p := newPeer(t)
	c, err := net.DialTimeout("tcp", p.addr(), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	p.accept()
	zc, _ := ztelnet.NewConn(c)
	p.send(cat(iac(cmdDO, optNAWS), []byte("."))...)
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	zc.ReadByte()
	p.expect(cat(iac(cmdWILL, optNAWS), iac(cmdSB, optNAWS), bytes.Repeat([]byte{255}, 8), iac(cmdSE))...)
}
