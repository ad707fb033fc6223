package ftp

import (
	"bytes"
	"io"
	"net"
	"net/textproto"
	"strconv"
	"strings"

	"github.com/rfc1738/fetch/internal/lineproto"
	"github.com/rfc1738/fetch/proto"
)

// traceMax bounds one line of the transcript, and the text of a reply
// quoted in an error.
const traceMax = lineproto.TraceMax

// wire is the control connection under the engine's reader and writer.
// It writes the transcript through lineproto.Trace (which hides the PASS
// and ACCT arguments and any echo of the password), bounds one reply line
// and the replies to one command (net/textproto has no line limit: a
// hostile server could make the client buffer without end), and keeps
// the last command and final reply for errors. One goroutine uses it at
// a time (its conn is checked out of the pool).
type wire struct {
	net.Conn
	trace    io.Writer
	secret   string // the password; never written anywhere
	maxLine  int
	maxReply int64

	in       []byte // the incoming line being assembled for the transcript
	inLen    int    // its full length (in holds at most traceMax bytes)
	out      []byte // the outgoing line being assembled
	replyN   int64  // reply bytes read since the last command
	lastCmd  string // display form of the last command sent
	lastVerb string
	last     *textproto.Error // the last final reply line received
	lastText string           // the whole text of that reply, its lines joined by "\n"
	prelim   *textproto.Error // the last preliminary (1yz) reply since the last command
	cur      []string         // the lines of the reply being read (at most maxReplyLines)
	err      error            // sticky: a limit was broken
	ended    bool             // a read of the connection failed (end of stream, reset)

	// iac: the server reads Telnet, and each byte 0xff written goes
	// twice, as IAC IAC (telnet.go); the transcript shows it once.
	iac bool
}

// maxReplyLines bounds the lines of one reply kept for wire.lastText.
const maxReplyLines = 64

// tr is the transcript of the current request.
func (w *wire) tr() lineproto.Trace { return lineproto.Trace{W: w.trace, Secret: w.secret} }

// note writes an informational line ("* ...") to the transcript.
func (w *wire) note(format string, args ...any) { w.tr().Note(format, args...) }

func (w *wire) Read(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	n, err := w.Conn.Read(p)
	if err != nil {
		w.ended = true
	}
	for _, c := range p[:n] {
		w.replyN++
		if c == '\n' {
			w.endLine()
			continue
		}
		w.inLen++
		if len(w.in) < traceMax+1 {
			w.in = append(w.in, c)
		}
		if w.inLen > w.maxLine {
			w.err = &proto.ProtocolError{Proto: "ftp", Msg: "reply line longer than " + strconv.Itoa(w.maxLine) + " bytes"}
			break
		}
	}
	if w.err == nil && w.replyN > w.maxReply {
		w.err = &proto.ProtocolError{Proto: "ftp", Msg: "reply longer than " + strconv.FormatInt(w.maxReply, 10) + " bytes"}
	}
	if w.err != nil {
		w.note("%v", w.err)
		return 0, w.err
	}
	return n, err
}

// endLine finishes one incoming line: transcript, and the last reply.
func (w *wire) endLine() {
	raw := bytes.TrimSuffix(w.in, []byte("\r"))
	line := string(raw)
	if len(w.cur) < maxReplyLines {
		w.cur = append(w.cur, line)
	}
	// A final reply line: the code, a space and text (RFC 959 section 4.2).
	if code, msg, ok := lineproto.ParseStatus(raw); ok && len(raw) >= 4 && w.inLen <= traceMax {
		w.last = &textproto.Error{Code: code, Msg: msg}
		if code/100 == 1 {
			w.prelim = w.last
		}
		w.lastText = strings.Join(w.cur, "\n")
		w.cur = w.cur[:0]
	}
	w.tr().Received(line, w.inLen)
	w.in = w.in[:0]
	w.inLen = 0
}

func (w *wire) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	for _, c := range p {
		if c == '\n' {
			w.endCommand()
			continue
		}
		if len(w.out) < 64<<10 {
			w.out = append(w.out, c)
		}
	}
	if w.iac && bytes.IndexByte(p, 0xff) >= 0 {
		if _, err := w.Conn.Write(bytes.ReplaceAll(p, []byte{0xff}, []byte{0xff, 0xff})); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	return w.Conn.Write(p)
}

// endCommand finishes one outgoing command line: the transcript, the
// reply budget, the command remembered for errors.
func (w *wire) endCommand() {
	line := strings.TrimSuffix(string(w.out), "\r")
	w.out = w.out[:0]
	w.replyN = 0
	w.prelim = nil
	verb, arg, hasArg := strings.Cut(line, " ")
	verb = strings.ToUpper(verb)
	switch shown := lineproto.Shown(line); {
	case shown != line: // PASS, ACCT: the argument hidden
		w.lastCmd = shown
	case hasArg:
		w.lastCmd = displayCmd(verb, arg)
	default:
		w.lastCmd = verb
	}
	w.lastVerb = verb
	w.tr().Sent(line)
}

// redact hides the password wherever it appears (a server that echoes it
// back), as the transcript does.
func (w *wire) redact(s string) string { return w.tr().Redact(s) }

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// capture records the bytes of a listing as they are read, up to a
// limit, in chunks of whole lines (text): one buffer grown to the
// listing's size would leave each smaller buffer behind, about four times
// a large listing in all. With a sink, each whole line goes to it
// instead, and text is only a last line without an end.
type capture struct {
	chunks text
	cur    []byte // the bytes read after the last chunk
	n      int64  // the bytes read
	max    int64
	sink   func(line []byte) error
}

// captureChunk is the size from which the lines read become a chunk.
const captureChunk = 1 << 20

// write records p, or gives its whole lines to the sink; an error is
// the sink's.
func (c *capture) write(p []byte) error {
	c.n += int64(len(p))
	c.cur = append(c.cur, p...)
	if c.sink != nil {
		return c.lines()
	}
	if len(c.cur) < captureChunk {
		return nil
	}
	i := bytes.LastIndexByte(c.cur, '\n')
	if i < 0 {
		return nil // a line longer than a chunk, which cur grows to hold
	}
	c.chunks = append(c.chunks, string(c.cur[:i+1]))
	c.cur = c.cur[:copy(c.cur, c.cur[i+1:])]
	return nil
}

// lines gives the whole lines of cur to the sink.
func (c *capture) lines() error {
	start := 0
	defer func() { c.cur = c.cur[:copy(c.cur, c.cur[start:])] }()
	for {
		i := bytes.IndexByte(c.cur[start:], '\n')
		if i < 0 {
			return nil
		}
		if err := c.sink(c.cur[start : start+i+1]); err != nil {
			return err
		}
		start += i + 1
	}
}

// text returns what was read.
func (c *capture) text() text {
	if len(c.cur) > 0 {
		c.chunks = append(c.chunks, string(c.cur))
	}
	c.cur = nil
	return c.chunks
}

// dataConn is a data connection; when cap is set it records what is read.
type dataConn struct {
	net.Conn
	cap *capture
}

func (d *dataConn) Read(p []byte) (int, error) {
	n, err := d.Conn.Read(p)
	if d.cap != nil && n > 0 {
		if d.cap.n+int64(n) > d.cap.max {
			return 0, &proto.ProtocolError{Proto: "ftp", Msg: "listing longer than " + strconv.FormatInt(d.cap.max, 10) + " bytes"}
		}
		if err := d.cap.write(p[:n]); err != nil {
			return 0, err
		}
	}
	return n, err
}
