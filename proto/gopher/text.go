package gopher

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/rfc1738/fetch/internal/lineproto"
)

// textReader streams dot-terminated data. Lines of any length pass
// through without being buffered whole: only the start of each line is
// inspected.
//
// For a gopher text item (RFC 1436 section 3.8: "Lastline", and lines
// beginning with "." doubled) the servers differ: some follow the RFC
// (UMN gopherd and many of today's), others send the file as it is on disk
// and end by closing (pygopherd, Gophernicus). The reader tells them apart
// by what the text holds, so that neither loses or gains a byte:
//
//   - A "." line is the terminator when the stream ends there. When more
//     data follows, it is data: the server does not stuff.
//   - A line that begins with "." but not ".." (".profile") is one a
//     stuffing server would have doubled: the server does not stuff.
//   - A line that begins with ".." is held back, with everything after it,
//     until the text tells: a terminator at the end (then every such line
//     loses one dot), or either sign above, or the end of the stream without
//     a terminator (then they are data as sent). A text with no such line
//     streams without delay. Over maxHeld bytes held, the lines go out as
//     sent, and a terminator at the end is then an error (errUnsureStuffing):
//     the reader cannot tell whether their dots were doubled.
type textReader struct {
	r         *bufio.Reader
	bol       bool   // the next byte starts a line
	undecided bool   // whether the server stuffs is not known yet
	held      []byte // from the first ".." line on, until known
	gaveUp    bool   // more than maxHeld was held: sent as it came
	rest      []byte // bytes of the current chunk not yet returned
	err       error  // sticky error, returned once rest is empty
}

// errNoDotLine: data announced by "+-1" ended before its "." line.
var errNoDotLine = fmt.Errorf(`gopher: data announced "+-1" ended before its "." line: %w`, io.ErrUnexpectedEOF)

// maxHeld bounds what a textReader holds back to decide whether lines that
// begin with ".." were stuffed.
var maxHeld = 4 << 20 // a mirror of -j 8 holds 32 MiB at the most

// errUnsureStuffing: a text whose lines beginning with ".." were too long
// to hold ended with a terminator.
var errUnsureStuffing = errors.New(`gopher: a text with lines beginning with ".." ended with a "." line after more than could be held: whether the server doubled their dots (RFC 1436 section 3.8) cannot be told`)

// NewTextReader returns a reader of the gopher text read from r (RFC 1436
// section 3.8): the terminating "." line is removed and, when the text
// shows the server doubled the dots of lines that begin with one, such
// lines lose one dot. Text from a server that sends files as they are and
// closes (a "." line followed by more data, a line like ".profile", or no
// "." line at the end) is passed as it came. Anything a server sends after
// the terminator is ignored.
func NewTextReader(r io.Reader) io.Reader {
	return &textReader{r: bufReader(r), bol: true, undecided: true}
}

// newDotReader reads Gopher+ data announced by "+-1" (gopherplus.txt
// section 2.3: "the data is terminated by a period on a line by itself"):
// cut at the first "." line, a line that begins with ".." losing one dot
// only when unstuff is set (a text, not a binary). The "." line is the
// only end: a stream that ends before it, even at the end of a line, was
// cut, and the reader returns errNoDotLine, which wraps
// io.ErrUnexpectedEOF. A "." that the close leaves without its line end
// is no "." line: in stuffed data it may be the first byte of "..".
func newDotReader(r io.Reader, unstuff bool) io.Reader {
	s := lineproto.Raw
	if unstuff {
		s = lineproto.DoubleDots
	}
	d := lineproto.NewDotReader(bufReader(r), s)
	d.Cut = errNoDotLine
	return d
}

func bufReader(r io.Reader) *bufio.Reader {
	if br, ok := r.(*bufio.Reader); ok {
		return br
	}
	return bufio.NewReader(r)
}

func (t *textReader) Read(p []byte) (int, error) {
	for len(t.rest) == 0 {
		if t.err != nil {
			return 0, t.err
		}
		t.next()
	}
	n := copy(p, t.rest)
	t.rest = t.rest[n:]
	return n, nil
}

// next reads the next chunk (a line, or a part of a long line) into rest,
// or into held.
func (t *textReader) next() {
	chunk, err := t.r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		err = nil // a long line: the rest follows in the next chunk
	}
	start := t.bol
	if len(chunk) > 0 {
		t.bol = chunk[len(chunk)-1] == '\n'
	}
	if start && len(chunk) > 0 && chunk[0] == '.' && t.dotChunk(chunk, err) {
		return
	}
	if t.held != nil {
		t.hold(chunk, err)
		return
	}
	t.rest, t.err = chunk, err
}

// dotChunk takes a line that begins with "." from a server whose
// terminator and dot stuffing are not known: a "." line with nothing
// after it ends the data, a ".." line is held until the end says whether
// the server stuffs, and any other such line says it does not. It reports
// false when chunk is left to the caller.
func (t *textReader) dotChunk(chunk []byte, err error) bool {
	switch {
	case isDotLine(chunk, err):
		// ends may read more, which reuses the buffer chunk is in.
		dot := append([]byte(nil), chunk...)
		if t.ends(err) {
			if t.gaveUp && t.undecided {
				t.rest, t.err = nil, errUnsureStuffing
				return true
			}
			t.rest, t.err = t.release(t.undecided), io.EOF
			return true
		}
		t.undecided = false // the server does not stuff
		t.rest, t.err = append(t.release(false), dot...), err
		return true
	case len(chunk) > 1 && chunk[1] == '.':
		if t.undecided && !t.gaveUp {
			t.hold(chunk, err)
			return true
		}
		return false
	default:
		t.undecided = false // the server does not stuff
		t.rest, t.err = append(t.release(false), chunk...), err
		return true
	}
}

// hold keeps chunk back; at the end of the stream (err) without a
// terminator, or past maxHeld, what is held goes out as it came.
func (t *textReader) hold(chunk []byte, err error) {
	t.held = append(t.held, chunk...)
	switch {
	case err != nil:
		t.rest, t.err = t.release(false), err
	case len(t.held) > maxHeld:
		t.gaveUp = true
		t.rest = t.release(false)
	}
}

// release returns what is held, each line that begins with ".." losing
// one dot when unstuff is set, and holds nothing more.
func (t *textReader) release(unstuff bool) []byte {
	b := t.held
	t.held = nil
	if !unstuff || len(b) == 0 {
		return b
	}
	out := b[:0]
	for line := range bytes.Lines(b) {
		if len(line) > 1 && line[0] == '.' && line[1] == '.' {
			line = line[1:]
		}
		out = append(out, line...) // out never passes b: it writes behind
	}
	return out
}

// ends decides whether a "." line just read ends the data: it does when
// nothing follows: the stream ended with it, or waiting for more ended in
// an error (the server closed, reset or fell silent after the "." line).
func (t *textReader) ends(err error) bool {
	if err != nil {
		return true
	}
	if t.r.Buffered() == 0 {
		if _, err := t.r.Peek(1); err != nil {
			return true
		}
	}
	return false
}

// isDotLine reports whether chunk, read at the start of a line, is a "."
// line: ".\r\n", ".\n", or "." (or ".\r") cut off by the end of the
// stream.
func isDotLine(chunk []byte, err error) bool {
	switch string(chunk) {
	case ".\r\n", ".\n":
		return true
	case ".", ".\r":
		return err != nil
	}
	return false
}
