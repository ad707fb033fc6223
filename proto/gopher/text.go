package gopher

import (
	"bufio"
	"errors"
	"io"
)

// textReader streams dot-terminated data. Lines of any length pass
// through without being buffered whole: only the start of each line is
// inspected.
//
// For a gopher text item (RFC 1436 section 3.8: "Lastline", and lines
// beginning with "." doubled) the reader looks ahead at a "." line: it is
// the terminator when the stream ends there, as it does with servers that
// follow the RFC (they close after it). When more data follows, the server
// is one that sends files raw and ends by closing (pygopherd): the "." line
// is data, and from then on nothing is unstuffed. A server that closes
// without any "." line ends the text just as well.
//
// For Gopher+ data announced by "+-1" (gopherplus.txt section 2.3) the "."
// line always ends the data (strict).
type textReader struct {
	r       *bufio.Reader
	unstuff bool   // undo dot-stuffing
	strict  bool   // a "." line ends the data whatever follows
	bol     bool   // the next byte starts a line
	rest    []byte // bytes of the current chunk not yet returned
	err     error  // sticky error, returned once rest is empty
}

// NewTextReader returns a reader of the gopher text read from r (RFC 1436
// section 3.8): the terminating "." line is removed and lines starting with
// ".." lose one dot. A "." line followed by more data is not the
// terminator but data, from a server that does not dot-stuff; the rest of
// the text is then passed as it comes. Anything a server sends after the
// terminator is ignored.
func NewTextReader(r io.Reader) io.Reader {
	return &textReader{r: bufReader(r), bol: true, unstuff: true}
}

// newDotReader reads Gopher+ data announced by "+-1": cut at the first "."
// line, unstuffed only when unstuff is set (a text, not a binary).
func newDotReader(r io.Reader, unstuff bool) io.Reader {
	return &textReader{r: bufReader(r), bol: true, unstuff: unstuff, strict: true}
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

// next reads the next chunk (a line, or a part of a long line) into rest.
func (t *textReader) next() {
	chunk, err := t.r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		err = nil // a long line: the rest follows in the next chunk
	}
	if t.bol && len(chunk) > 0 && chunk[0] == '.' {
		if isDotLine(chunk, err) {
			// ends may read more, which reuses the buffer chunk is in.
			dot := append([]byte(nil), chunk...)
			if t.ends(err) {
				t.rest, t.err = nil, io.EOF
				return
			}
			chunk = dot
		}
		if t.unstuff && len(chunk) > 1 && chunk[1] == '.' {
			chunk = chunk[1:]
		}
	}
	if len(chunk) > 0 {
		t.bol = chunk[len(chunk)-1] == '\n'
	}
	t.rest, t.err = chunk, err
}

// ends decides whether a "." line just read ends the data. In strict mode
// it always does. Otherwise it does when nothing follows: the stream ended
// with it, or waiting for more ended in an error (the server closed, reset
// or fell silent after the "." line). When data follows, the "." line is
// data and unstuffing stops.
func (t *textReader) ends(err error) bool {
	if t.strict || err != nil {
		return true
	}
	if t.r.Buffered() == 0 {
		if _, err := t.r.Peek(1); err != nil {
			return true
		}
	}
	t.unstuff = false
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
