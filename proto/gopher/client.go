package gopher

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"

	"github.com/rfc1738/fetch/internal/lineproto"
	"github.com/rfc1738/fetch/proto"
)

// wireRequest is what a gopher client sends on a new connection (RFC 1738
// section 3.4: "the Gopher selector, followed by a tab and the search string
// (which may be empty), followed by a tab and the Gopher+ commands"):
//
//	selector [TAB search [TAB gopher+_string]] CRLF
//
// A nil Search with a non-nil Plus sends an empty search field. A Plus that
// is a filled +ASK form ends with its own data block and CRLF (RFC 1738
// section 3.4.9) and is sent as is.
type wireRequest struct {
	Selector string
	Search   *string
	Plus     *string
	// again marks the second asking of a menu whose data ended in the
	// middle of a line (Driver.do); it is not sent.
	again bool
}

// encode returns the bytes to send. Every field is checked first (the wire
// check of DESIGN.md "Safety"): CR, LF and NUL are refused everywhere, and
// TAB in the selector and search, where it would shift the fields; the one
// CR/LF structure let through is a filled +ASK form that matches
// RFC 1738 section 3.4.9 exactly. Errors wrap proto.ErrUnsafeArgument.
func (r wireRequest) encode() ([]byte, error) {
	if err := checkField("selector", r.Selector); err != nil {
		return nil, err
	}
	b := make([]byte, 0, len(r.Selector)+16)
	b = append(b, r.Selector...)
	if r.Search != nil || r.Plus != nil {
		var s string
		if r.Search != nil {
			s = *r.Search
		}
		if err := checkField("search", s); err != nil {
			return nil, err
		}
		b = append(b, '\t')
		b = append(b, s...)
	}
	if r.Plus != nil {
		p := *r.Plus
		b = append(b, '\t')
		if _, ok := checkForm(p); ok {
			return append(b, p...), nil
		}
		if err := proto.CheckArg(p); err != nil {
			return nil, fmt.Errorf("gopher: gopher+ string is not a well-formed +ASK form: %w", err)
		}
		b = append(b, p...)
	}
	return append(b, '\r', '\n'), nil
}

func checkField(name, s string) error {
	if err := proto.CheckArg(s); err != nil {
		return fmt.Errorf("gopher: %s: %w", name, err)
	}
	if i := strings.IndexByte(s, '\t'); i >= 0 {
		return fmt.Errorf("gopher: %s: tab at offset %d: %w", name, i, proto.ErrUnsafeArgument)
	}
	return nil
}

// traceRequest writes the request to the trace, a TAB shown as "\t". The
// lines of a form's data block are not shown (an AskP answer is a
// password): only their number.
func traceRequest(t lineproto.Trace, b []byte) {
	first, rest, _ := bytes.Cut(b, []byte("\r\n"))
	t.SentData(strings.ReplaceAll(string(first), "\t", `\t`))
	if len(rest) == 0 {
		return
	}
	n := bytes.Count(rest, []byte("\r\n")) - 2 // "+-1" and "."
	t.SentData("+-1")
	t.SentData(fmt.Sprintf("(%d form lines not shown)", max(n, 0)))
	t.SentData(".")
}

// conn is one gopher connection: a request, then a response the server
// ends by closing (RFC 1436 section 2).
type conn struct {
	c     net.Conn
	br    *bufio.Reader
	trace lineproto.Trace
}

// open dials addr with req.DialContext (idle deadlines, closed when ctx is
// done) and sends the request line b.
func open(ctx context.Context, req *proto.Request, addr string, b []byte, bufSize int) (*conn, error) {
	c, err := req.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err // a dial error names what it dialled
	}
	trace := lineproto.Trace{W: req.Trace}
	traceRequest(trace, b)
	if _, err := c.Write(b); err != nil {
		c.Close()
		return nil, fmt.Errorf("gopher: sending request: %w", err)
	}
	return &conn{c: c, br: bufio.NewReaderSize(c, bufSize), trace: trace}, nil
}

// tracef writes a line received, or what the client made of the
// response, to the trace.
func (c *conn) tracef(format string, args ...any) {
	c.trace.Received(fmt.Sprintf(format, args...), 0)
}

// peekLine returns the first line buffered in br (line end included)
// without consuming it, reading no more than needed and at most limit
// bytes. At the end of the stream it returns what there is with io.EOF.
func peekLine(br *bufio.Reader, limit int) ([]byte, error) {
	n := 1
	for {
		p, err := br.Peek(n)
		if i := bytes.IndexByte(p, '\n'); i >= 0 {
			return p[:i+1], nil
		}
		if err != nil {
			return p, err
		}
		if len(p) >= limit {
			return p, bufio.ErrBufferFull
		}
		// Look at everything already buffered before waiting for more.
		if b := br.Buffered(); b > n {
			n = b
		} else {
			n++
		}
		n = min(n, limit)
	}
}

// maxHeaderLine bounds a Gopher+ header line ("+-2\r\n", "+1234567\r\n").
const maxHeaderLine = 24

// readHeader reads the Gopher+ header line, if the response starts with
// one. A server that ignored the gopher+ string (a plain gopher server)
// sends none: then nothing is consumed and ok is false.
func (c *conn) readHeader() (h Header, ok bool, err error) {
	p, err := peekLine(c.br, maxHeaderLine)
	if len(p) == 0 {
		if err != nil && !errors.Is(err, io.EOF) {
			return Header{}, false, fmt.Errorf("gopher: reading response: %w", err)
		}
		return Header{}, false, nil
	}
	if p[0] != '+' && p[0] != '-' {
		return Header{}, false, nil
	}
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return Header{}, false, fmt.Errorf("gopher: reading response: %w", err)
	}
	h, perr := ParseHeader(string(p))
	if perr != nil {
		return Header{}, false, nil
	}
	c.tracef("%s", strings.TrimRight(string(p), "\r\n"))
	c.br.Discard(len(p))
	return h, true, nil
}

// maxErrorText bounds the text of a Gopher+ error read into memory.
const maxErrorText = 64 << 10

// serverError reads the error text announced by an error header h and
// returns the error: a *ServerError, or a *proto.Redirect for "item has
// moved" with a gopher descriptor.
func (c *conn) serverError(h Header) error {
	text, err := io.ReadAll(io.LimitReader(c.data(h, true), maxErrorText))
	if err != nil && len(text) == 0 {
		return fmt.Errorf("gopher: reading gopher+ error: %w", err)
	}
	se, moved := parseServerError(text)
	c.tracef("(error %d: %s)", se.Code, se.Msg)
	if moved != nil {
		if u := moved.URL(); u != "" {
			return &proto.Redirect{URL: u, Reason: "gopher+ item has moved"}
		}
	}
	return se
}

// data returns the reader of the response data that h announces: exactly
// its length, up to its "." line for "+-1" (unstuffed when unstuff is
// set), or all the rest ("+-2", and a response without a header, for which
// the caller passes LengthClose).
func (c *conn) data(h Header, unstuff bool) io.Reader {
	switch h.Length {
	case LengthDot:
		return newDotReader(c.br, unstuff)
	case LengthClose:
		return c.br
	}
	return &exactReader{r: c.br, n: h.Length}
}

// exactReader reads the n bytes a "+<n>" header announced; a stream that
// ends before them is an io.ErrUnexpectedEOF (the connection was lost).
type exactReader struct {
	r io.Reader
	n int64
}

func (e *exactReader) Read(p []byte) (int, error) {
	if e.n <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > e.n {
		p = p[:e.n]
	}
	k, err := e.r.Read(p)
	e.n -= int64(k)
	if errors.Is(err, io.EOF) {
		if e.n > 0 {
			return k, fmt.Errorf("gopher: connection closed %d bytes before the announced length: %w", e.n, io.ErrUnexpectedEOF)
		}
		err = nil
	}
	return k, err
}

// body is a response body that closes its connection. Close may be called
// more than once; it returns the first close's error every time.
type body struct {
	io.Reader
	c    net.Conn
	once sync.Once
	err  error
}

// WriteTo lets io.Copy use the underlying reader's WriteTo (the 64 KiB
// buffer of the connection's bufio.Reader, or a menu's bytes.Reader).
func (b *body) WriteTo(w io.Writer) (int64, error) {
	if wt, ok := b.Reader.(io.WriterTo); ok {
		return wt.WriteTo(w)
	}
	return io.Copy(w, struct{ io.Reader }{b.Reader})
}

func (b *body) Close() error {
	b.once.Do(func() {
		if b.c != nil {
			b.err = b.c.Close()
		}
	})
	return b.err
}

// readLines reads a menu or attribute response into memory, line by line,
// up to and including a "." line (a server that keeps the connection open
// after it is not waited for) or the end of the stream; dot reports which.
// A line longer than maxLine or more than maxBytes in all give a
// *proto.ProtocolError.
func readLines(r io.Reader, lim limits) (out []byte, dot bool, err error) {
	lr, maxBytes := lineproto.NewReader(r, lim.line()), lim.bytes()
	for {
		line, err := lr.ReadRaw()
		var tl *lineproto.TooLongError
		if errors.As(err, &tl) {
			return nil, false, protoErr("%v", tl)
		}
		if int64(len(out)+len(line)) > maxBytes {
			return nil, false, protoErr("response larger than %d bytes", maxBytes)
		}
		out = append(out, line...)
		if t := trimEOL(line); len(t) == 1 && t[0] == '.' && len(line) > 1 {
			return out, true, nil
		}
		if errors.Is(err, io.EOF) {
			return out, false, nil
		}
		if err != nil {
			return nil, false, fmt.Errorf("gopher: reading response: %w", err)
		}
	}
}
