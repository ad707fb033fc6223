package proto

import (
	"context"
	"errors"
	"io"
	"net"
	"testing"
	"time"
)

// CloseWrite half-closes a TCP connection: the peer reads the end of the
// stream, and the connection still reads what the peer sends afterwards
// (RFC 9293 section 3.6). A connection that cannot half-close says so
// with errors.ErrUnsupported.
func TestDeadlineConnCloseWrite(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	served := make(chan error, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			served <- err
			return
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(5 * time.Second))
		if n, err := c.Read(make([]byte, 1)); n != 0 || err != io.EOF {
			served <- errors.New("the peer did not see the end of the stream")
			return
		}
		_, err = c.Write([]byte("after"))
		served <- err
	}()
	raw, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c := NewDeadlineConn(context.Background(), raw, 5*time.Second)
	defer c.Close()
	if err := c.CloseWrite(); err != nil {
		t.Fatalf("CloseWrite: %v", err)
	}
	b, err := io.ReadAll(c)
	if err != nil || string(b) != "after" {
		t.Fatalf("read after the half-close: %q, %v", b, err)
	}
	if err := <-served; err != nil {
		t.Fatal(err)
	}

	p1, p2 := net.Pipe()
	defer p2.Close()
	pc := NewDeadlineConn(context.Background(), p1, time.Second)
	defer pc.Close()
	if err := pc.CloseWrite(); !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("CloseWrite on a pipe: %v, want errors.ErrUnsupported", err)
	}
}
