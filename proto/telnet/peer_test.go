package telnet

import (
	"bytes"
	"io"
	"net"
	"testing"
	"time"
)

// peer is a scripted telnet server on 127.0.0.1:0 for one connection: the
// test says what it sends and what it must receive, byte for byte.
type peer struct {
	t    *testing.T
	ln   net.Listener
	conn net.Conn
}

func newPeer(t *testing.T) *peer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	p := &peer{t: t, ln: ln}
	t.Cleanup(func() {
		ln.Close()
		if p.conn != nil {
			p.conn.Close()
		}
	})
	return p
}

func (p *peer) addr() string { return p.ln.Addr().String() }

// accept waits (bounded) for the client.
func (p *peer) accept() {
	p.t.Helper()
	p.ln.(*net.TCPListener).SetDeadline(time.Now().Add(5 * time.Second))
	c, err := p.ln.Accept()
	if err != nil {
		p.t.Fatalf("peer: accept: %v", err)
	}
	p.conn = c
}

func (p *peer) send(b ...byte) {
	p.t.Helper()
	p.conn.SetWriteDeadline(time.Now().Add(5 * time.Second))
	if _, err := p.conn.Write(b); err != nil {
		p.t.Fatalf("peer: write: %v", err)
	}
}

func (p *peer) sendString(s string) { p.t.Helper(); p.send([]byte(s)...) }

// expect reads exactly len(want) bytes and compares them with want.
func (p *peer) expect(want ...byte) {
	p.t.Helper()
	got := make([]byte, len(want))
	p.conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.ReadFull(p.conn, got); err != nil {
		p.t.Fatalf("peer: reading %d bytes (want % x): %v (got % x)", len(want), want, err, got)
	}
	if !bytes.Equal(got, want) {
		p.t.Fatalf("peer received % x, want % x", got, want)
	}
}

func (p *peer) expectString(s string) { p.t.Helper(); p.expect([]byte(s)...) }

// expectNothing checks that the client sends nothing for d.
func (p *peer) expectNothing(d time.Duration) {
	p.t.Helper()
	p.conn.SetReadDeadline(time.Now().Add(d))
	var b [64]byte
	n, err := p.conn.Read(b[:])
	if n > 0 {
		p.t.Fatalf("peer received unexpected % x", b[:n])
	}
	if ne, ok := err.(net.Error); !ok || !ne.Timeout() {
		p.t.Fatalf("peer: read = %v, want a timeout", err)
	}
}

// expectEOF checks that the client closes the connection.
func (p *peer) expectEOF() {
	p.t.Helper()
	p.conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	var b [64]byte
	n, err := p.conn.Read(b[:])
	if n > 0 || err != io.EOF {
		p.t.Fatalf("peer: read = % x, %v, want EOF", b[:n], err)
	}
}

// iac builds IAC-prefixed command bytes.
func iac(b ...byte) []byte { return append([]byte{cmdIAC}, b...) }

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
