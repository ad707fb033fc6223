package gopher

import (
	"bufio"
	"errors"
	"io"
)

// textReader streams a gopher text item (RFC 1436 section 3.8 and the
// "TextBlock"/"Lastline" of the Gopher+ BNF): a line holding only "." ends
// the data and is removed, and a line starting with ".." loses its first
// dot. A server that closes the connection without the "." line (pygopherd
// does) ends the text just as well. Lines of any length pass through without
// being buffered whole: only the start of each line is inspected.
type textReader struct {
	r       *bufio.Reader
	unstuff bool   // undo dot-stuffing
	bol     bool   // the next byte starts a line
	rest    []byte // bytes of the current chunk not yet returned
	err     error  // sticky error, returned once rest is empty
}

// NewTextReader returns a reader that removes the terminating "." line and
// undoes dot-stuffing in the gopher text read from r. Reading stops at the
// "." line; anything the server sends after it is ignored.
func NewTextReader(r io.Reader) io.Reader {
	return newDotReader(r, true)
}

// newDotReader is NewTextReader, with unstuffing only when unstuff is set
// (a dot-terminated Gopher+ binary, "+-1", is only cut at its "." line).
func newDotReader(r io.Reader, unstuff bool) io.Reader {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReader(r)
	}
	return &textReader{r: br, bol: true, unstuff: unstuff}
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
			t.rest, t.err = nil, io.EOF
			return
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

// isDotLine reports whether chunk, read at the start of a line, is the
// terminating "." line: ".\r\n", ".\n", or "." (or ".\r") cut off by the end
// of the stream.
func isDotLine(chunk []byte, err error) bool {
	switch string(chunk) {
	case ".\r\n", ".\n":
		return true
	case ".", ".\r":
		return err != nil
	}
	return false
}
