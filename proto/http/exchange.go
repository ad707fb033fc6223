package http

import (
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/rfc1738/fetch/proto"
)

// With Request.Options.HTTP.Exchange the driver records the exchange as it
// passed on the connection, for an archive record (package warc; WARC 1.1
// section 6.3 and 6.4: a request record holds the request as sent, a
// response record the response as received). Every connection of the
// driver's transports is a recConn, under TLS where there is one, so that
// it sees the plaintext; a Fetch attaches its exchange to the connection
// the transport picks for it (httptrace's GotConn, which comes before the
// request is written). The connection then copies to the exchange what it
// writes (the request) and what it reads (the response), until the body
// has been read, closed, or, when it is not transfer-coded, reached: from
// there on the body the caller reads is the body received.
//
// Interim responses (1xx other than 101, which the transport reads past)
// are left out: the record holds the final response, from its status line.

// recConn is a connection of the driver's transports; see above.
type recConn struct {
	net.Conn
	mu    sync.Mutex
	x     *exchange   // nil: nothing recorded
	ended atomic.Bool // a read failed: end of stream, reset, timeout (see head)
}

// attach makes c copy its traffic to x (nil: to nothing).
func (c *recConn) attach(x *exchange) {
	c.mu.Lock()
	c.x = x
	c.mu.Unlock()
}

func (c *recConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if err != nil {
		c.ended.Store(true)
	}
	if n > 0 {
		c.mu.Lock()
		if c.x != nil {
			c.x.read(p[:n])
		}
		c.mu.Unlock()
	}
	return n, err
}

// Write records p before it is written: the response that p brings about
// may be read (and the request looked up) before Write returns.
func (c *recConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	x := c.x
	var mark int
	if x != nil {
		mark = x.wrote(p)
	}
	c.mu.Unlock()
	n, err := c.Conn.Write(p)
	if n < len(p) && x != nil {
		x.unwrite(mark + n)
	}
	return n, err
}

// exchange states.
const (
	recHead = iota // recording the request and the response's head
	recBody        // recording a transfer-coded body's bytes as received
	recOff         // done
)

// maxUnattached bounds what an exchange keeps of a transfer-coded body
// while no one takes it (see attachBody): the caller attaches a writer
// before it reads the body, so at most one buffer of the transport
// (4 KiB) waits; more means nobody will, and recording stops.
const maxUnattached = 1 << 20

// maxHead bounds the response head recorded (interim responses included):
// twice the transport's MaxResponseHeaderBytes.
const maxHead = 2 << 20

// errNotRecorded: the exchange could not be recorded as it passed.
var errNotRecorded = errors.New("http: the exchange's bytes were not recorded")

// exchange is the recording of one request and its response.
type exchange struct {
	mu       sync.Mutex
	attached bool   // to a connection (GotConn)
	state    int    // recHead, recBody, recOff
	req      []byte // what was written
	resp     []byte // what was read, while there is no sink
	sink     io.Writer
	lost     bool // bytes were dropped (a bound was reached)
	// buf holds the memory of req and resp, from exchangeBufs, given
	// back by stop.
	buf *[2][]byte
}

// exchangeBufs holds the buffers of finished exchanges, for the next
// ones: a mirror of small files would take fresh memory for each.
var exchangeBufs = sync.Pool{New: func() any { return &[2][]byte{make([]byte, 0, 512), make([]byte, 0, 2048)} }}

// maxPooledBuf: a buffer that grew past it is not kept.
const maxPooledBuf = 64 << 10

// newExchange returns an exchange that records into buffers of
// exchangeBufs.
func newExchange() *exchange {
	x := &exchange{buf: exchangeBufs.Get().(*[2][]byte)}
	x.req, x.resp = x.buf[0][:0], x.buf[1][:0]
	return x
}

// attach makes c, the connection x's request is sent on (head.watch),
// copy its traffic to x. Nothing is recorded on a nil *exchange.
func (x *exchange) attach(c *recConn) {
	if x == nil {
		return
	}
	x.mu.Lock()
	x.attached = true
	x.mu.Unlock()
	c.attach(x)
}

// wrote records p, written to the connection, and returns where it starts.
func (x *exchange) wrote(p []byte) int {
	x.mu.Lock()
	defer x.mu.Unlock()
	mark := len(x.req)
	if x.state == recHead {
		x.req = append(x.req, p...)
	}
	return mark
}

// unwrite cuts the request recorded at end: the bytes after it, recorded
// by wrote, did not go out.
func (x *exchange) unwrite(end int) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.state == recHead && end < len(x.req) {
		x.req = x.req[:end]
	}
}

// read records p, read from the connection.
func (x *exchange) read(p []byte) {
	x.mu.Lock()
	defer x.mu.Unlock()
	switch {
	case x.state == recOff:
	case x.sink != nil:
		x.sink.Write(p)
	case x.state == recHead && len(x.resp)+len(p) > maxHead,
		x.state == recBody && len(x.resp)+len(p) > maxUnattached:
		x.lost = true
		x.state = recOff
		x.release()
	default:
		x.resp = append(x.resp, p...)
	}
}

// headDone is called once the transport has parsed the response's head:
// it sets resp.Exchange and, for a transfer-coded body, goes on recording
// it.
func (x *exchange) headDone(resp *proto.Response, hreq *http.Request, hresp *http.Response) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if !x.attached || x.lost {
		x.state = recOff
		return errNotRecorded
	}
	start, end, ok := finalHead(x.resp)
	if !ok {
		x.state = recOff
		return errNotRecorded
	}
	// One copy of both, out of the buffers that go back to the pool.
	b := make([]byte, 0, len(x.req)+end-start)
	b = append(append(b, x.req...), x.resp[start:end]...)
	resp.Exchange = &proto.Exchange{Request: b[:len(x.req):len(x.req)], Response: b[len(x.req):], Status: hresp.StatusCode}
	if hreq.Method != http.MethodHead && len(hresp.TransferEncoding) > 0 {
		// The body as received is not the payload: its framing
		// (chunk sizes, extensions, trailer) is recorded apart.
		x.state = recBody
		x.resp = append(x.resp[:0], x.resp[end:]...)
		resp.Exchange.Framed = x.attachBody
		return nil
	}
	x.state = recOff
	x.release()
	return nil
}

// attachBody writes the transfer-coded body's bytes received so far to w,
// and the rest to w as they arrive, until the body is read or closed. It
// fails when some were dropped already.
func (x *exchange) attachBody(w io.Writer) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.lost || x.state != recBody {
		return errNotRecorded
	}
	if len(x.resp) > 0 {
		w.Write(x.resp)
	}
	x.resp = x.resp[:0]
	x.sink = w
	return nil
}

// stop ends the recording: the body was read or closed. It may be
// called more than once, and on a nil *exchange (nothing recorded).
func (x *exchange) stop() {
	if x == nil {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	x.release()
	x.state, x.sink = recOff, nil
}

// release gives the buffers back (resp.Info holds copies).
func (x *exchange) release() {
	if x.buf != nil && cap(x.req) <= maxPooledBuf && cap(x.resp) <= maxPooledBuf {
		x.buf[0], x.buf[1] = x.req[:0], x.resp[:0]
		exchangeBufs.Put(x.buf)
	}
	x.buf, x.req, x.resp = nil, nil, nil
}

// finalHead returns where the head of the final response in b starts and
// ends (through the empty line): the interim responses (1xx but 101) the
// transport reads past are skipped. A line ends with LF, a CR before it
// optional, as the transport reads it (RFC 9112 section 2.2).
func finalHead(b []byte) (start, end int, ok bool) {
	for start < len(b) {
		end, ok = headEnd(b[start:])
		if !ok {
			return 0, 0, false
		}
		end += start
		code, ok := statusCode(b[start:end])
		if !ok {
			return 0, 0, false
		}
		if code < 100 || code > 199 || code == 101 {
			return start, end, true
		}
		start = end
	}
	return 0, 0, false
}

// headEnd returns the length of the head at the start of b, through the
// empty line that ends it.
func headEnd(b []byte) (int, bool) {
	nl := bytes.IndexByte(b, '\n') // the status line's
	if nl < 0 {
		return 0, false
	}
	for i := nl + 1; ; {
		nl = bytes.IndexByte(b[i:], '\n')
		if nl < 0 {
			return 0, false
		}
		empty := nl == 0 || nl == 1 && b[i] == '\r'
		i += nl + 1
		if empty {
			return i, true
		}
	}
}

// statusCode reads the code of a status line ("HTTP/1.1 200 OK").
func statusCode(head []byte) (int, bool) {
	sp := bytes.IndexByte(head, ' ')
	if sp < 0 || len(head) < sp+4 || !bytes.HasPrefix(head, []byte("HTTP/")) {
		return 0, false
	}
	code := 0
	for _, c := range head[sp+1 : sp+4] {
		if c < '0' || c > '9' {
			return 0, false
		}
		code = code*10 + int(c-'0')
	}
	return code, true
}
