package http

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"sync/atomic"

	"github.com/rfc1738/fetch/proto"
)

// net/http reports a response it cannot read (a status line that is not
// one, a header line without a colon, a head over MaxResponseHeaderBytes)
// as a plain error, with no type to tell it from other failures. A head
// watches the round trip to tell them apart: once the first byte of the
// response has arrived, an error that is not the connection's (reset,
// timeout, end of stream) is the server breaking the protocol (RFC 9112
// sections 4 and 5), unless the connection had ended by then: net/textproto
// reads the part of a line before the end of stream as a line, so a head
// cut in the middle of a line looks malformed while it was only lost.
//
// The body is read alike (bodyErr): a chunked body whose framing cannot be
// read (RFC 9112 section 7.1) is the server breaking the protocol, one cut
// by the end of the connection is lost.
type head struct {
	ct    httptrace.ClientTrace
	ctx   context.Context         // the Fetch's: once done, errors are its
	conn  atomic.Pointer[recConn] // the connection the request went on
	first atomic.Bool             // a byte of the response arrived
	// The request, traced with t once it has a connection (the
	// protocol version is the connection's).
	t   tracer
	req *http.Request
	x   *exchange // recorded on the connection, when not nil
}

// watch returns ctx with a trace that fills h, and attaches h.x to the
// connection.
func (h *head) watch(ctx context.Context) context.Context {
	h.ctx = ctx
	h.ct.GotConn = func(info httptrace.GotConnInfo) {
		if c, ok := info.Conn.(*recConn); ok {
			h.conn.Store(c)
			h.x.attach(c)
		}
		if h.t.w != nil && h.req != nil {
			h.t.request(h.req, connProto(info.Conn))
		}
	}
	h.ct.GotFirstResponseByte = func() { h.first.Store(true) }
	return httptrace.WithClientTrace(ctx, &h.ct)
}

// classify returns err, the failure of the round trip, as a lost
// connection (io.ErrUnexpectedEOF) or a protocol error (proto.ErrProtocol)
// where it is one of those; otherwise err itself.
func (h *head) classify(err error) error {
	if errors.Is(err, io.EOF) {
		// The connection ended before a response (net/http's bare EOF):
		// lost (exit 5, retried), said so.
		return fmt.Errorf("the server closed the connection before its response: %w", io.ErrUnexpectedEOF)
	}
	if !h.first.Load() {
		if streamCut(err) {
			return fmt.Errorf("the server reset the stream before its response: %w (%w)", io.ErrUnexpectedEOF, err)
		}
		return err
	}
	return h.broken(err, "the response head")
}

// bodyErr returns err, the failure of a read of the body, as classify
// does for the head.
func (h *head) bodyErr(err error) error {
	if err == io.EOF || errors.Is(err, http.ErrBodyReadAfterClose) {
		return err
	}
	return h.broken(err, "the body")
}

// broken returns err, a failure once the response had begun, as a lost
// connection when the connection had ended, as a protocol error when it
// is no failure of the connection or the caller, else as it is.
func (h *head) broken(err error, where string) error {
	if connFailure(err) || h.ctx != nil && h.ctx.Err() != nil {
		return err
	}
	if streamCut(err) {
		return fmt.Errorf("the server reset the stream in the middle of %s: %w (%w)", where, io.ErrUnexpectedEOF, err)
	}
	if c := h.conn.Load(); c != nil && c.ended.Load() {
		return fmt.Errorf("the server closed the connection in the middle of %s: %w (%w)", where, io.ErrUnexpectedEOF, err)
	}
	return fmt.Errorf("%w: %w", proto.ErrProtocol, err)
}

// connFailure reports an error of the connection or of the caller rather
// than of what the server sent.
func connFailure(err error) bool {
	var (
		ne net.Error
		re tls.RecordHeaderError
		ae tls.AlertError
	)
	return errors.As(err, &ne) || errors.As(err, &re) || errors.As(err, &ae) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// streamError has the fields of an HTTP/2 stream error (RST_STREAM, RFC
// 9113 section 6.4): net/http's own type is unexported, and its As method
// fills any struct of these fields.
type streamError struct {
	StreamID uint32
	Code     uint32
	Cause    error
}

func (e streamError) Error() string {
	return fmt.Sprintf("stream %d reset, code %#x", e.StreamID, e.Code)
}

// streamCut reports an HTTP/2 stream reset with a code that gives the
// transfer up (RFC 9113 section 7: NO_ERROR, INTERNAL_ERROR,
// REFUSED_STREAM, CANCEL, ENHANCE_YOUR_CALM): for the stream what a
// connection reset is for HTTP/1.1, a lost transfer worth another attempt.
// The other codes say the framing was broken.
func streamCut(err error) bool {
	var se streamError
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code {
	case 0x0, 0x2, 0x7, 0x8, 0xb:
		return true
	}
	return false
}
