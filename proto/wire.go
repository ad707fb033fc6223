package proto

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"
)

// CheckArg returns an error wrapping ErrUnsafeArgument when s holds CR, LF
// or NUL. Every driver calls it on every argument before writing a command
// line, even though package safety has checked the URL: the wire check is
// the last line of defence for callers that bypass safety.
func CheckArg(s string) error {
	if i := strings.IndexAny(s, "\r\n\x00"); i >= 0 {
		return fmt.Errorf("%w: byte %q at offset %d", ErrUnsafeArgument, s[i], i)
	}
	return nil
}

// Defaults used when Request leaves a timeout zero.
const (
	DefaultConnectTimeout = 30 * time.Second
	DefaultIdleTimeout    = 60 * time.Second
)

// DialContext opens a connection with req's dialer and connect timeout,
// and wraps it with NewDeadlineConn using req's idle timeout and ctx.
func (req *Request) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	c, err := req.dial(ctx, network, address)
	if err != nil {
		return nil, err
	}
	return NewDeadlineConn(ctx, c, req.Idle()), nil
}

// DialKept is DialContext for a connection kept open between requests (an
// HTTP keep-alive pool): ctx bounds the dial, but not the connection's
// life, which ends when its owner closes it or when it stays idle (no read
// or write) for req's idle timeout.
func (req *Request) DialKept(ctx context.Context, network, address string) (net.Conn, error) {
	c, err := req.dial(ctx, network, address)
	if err != nil {
		return nil, err
	}
	return NewDeadlineConn(context.WithoutCancel(ctx), c, req.Idle()), nil
}

// dial connects with req's dialer within its connect timeout.
func (req *Request) dial(ctx context.Context, network, address string) (net.Conn, error) {
	ct := DefaultConnectTimeout
	if req != nil && req.ConnectTimeout > 0 {
		ct = req.ConnectTimeout
	}
	dctx, cancel := context.WithTimeout(ctx, ct)
	defer cancel()
	if req != nil && req.Dial != nil {
		return req.Dial(dctx, network, address)
	}
	var d net.Dialer
	return d.DialContext(dctx, network, address)
}

// Idle returns the idle timeout to use for req.
func (req *Request) Idle() time.Duration {
	if req == nil || req.IdleTimeout <= 0 {
		return DefaultIdleTimeout
	}
	return req.IdleTimeout
}

// DeadlineConn is a net.Conn that moves its deadline forward by the idle
// timeout before every Read and Write, and closes itself when its context is
// cancelled, so that a silent peer or a cancelled caller never leaves a
// goroutine blocked forever.
type DeadlineConn struct {
	net.Conn
	idle time.Duration
	stop func() bool
	once sync.Once
}

// NewDeadlineConn wraps c. When ctx is done, c is closed. idle <= 0 means
// no idle deadline.
func NewDeadlineConn(ctx context.Context, c net.Conn, idle time.Duration) *DeadlineConn {
	dc := &DeadlineConn{Conn: c, idle: idle}
	dc.stop = context.AfterFunc(ctx, func() { c.Close() })
	return dc
}

func (c *DeadlineConn) Read(p []byte) (int, error) {
	if c.idle > 0 {
		c.Conn.SetReadDeadline(time.Now().Add(c.idle))
	}
	return c.Conn.Read(p)
}

func (c *DeadlineConn) Write(p []byte) (int, error) {
	if c.idle > 0 {
		c.Conn.SetWriteDeadline(time.Now().Add(c.idle))
	}
	return c.Conn.Write(p)
}

// CloseWrite shuts down the sending side of the connection (a TCP
// half-close) when the connection underneath can; otherwise it returns an
// error wrapping errors.ErrUnsupported.
func (c *DeadlineConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return fmt.Errorf("%T: half-close: %w", c.Conn, errors.ErrUnsupported)
}

// Close closes the connection and releases the context hook. It may be
// called more than once.
func (c *DeadlineConn) Close() error {
	var err error
	c.once.Do(func() {
		c.stop()
		err = c.Conn.Close()
	})
	return err
}
