package lineproto

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// Stuffing says what a DotReader undoes of the dot-stuffing of a block.
type Stuffing int

const (
	// Raw keeps every byte as sent (NNTP's Request.Raw, binary data).
	Raw Stuffing = iota
	// DoubleDots takes one dot off a line that begins with "..": a
	// stuffed line (RFC 1436 section 3.8), while a line such as
	// ".profile", from a sender that does not stuff, is kept whole.
	DoubleDots
	// Text decodes as net/textproto's DotReader does (RFC 3977 section
	// 3.1.1): a line that begins with "." loses it, and CR LF becomes LF.
	Text
)

// DotReader streams a dot-terminated block: every byte up to the first
// line that is "." alone (with CR LF, or LF alone), which ends the block
// and is left out. Each line, or each part of a line longer than the
// buffer, is handed on as soon as it has arrived (net/textproto's
// DotReader waits for a full buffer): the lines of a block are not
// bounded. The end of the stream before the "." line is Cut.
type DotReader struct {
	// Cut is the error of a stream that ends before the "." line:
	// io.ErrUnexpectedEOF unless set.
	Cut error

	r        *bufio.Reader
	stuffing Stuffing
	midLine  bool   // the next byte does not start a line
	rest     []byte // the part of the current chunk not handed on yet
	err      error  // sticky, returned once rest is empty
}

// NewDotReader returns a DotReader of the block read from r.
func NewDotReader(r *bufio.Reader, s Stuffing) *DotReader {
	return &DotReader{r: r, stuffing: s, Cut: io.ErrUnexpectedEOF}
}

func (d *DotReader) Read(p []byte) (int, error) {
	for len(d.rest) == 0 {
		if d.err != nil {
			return 0, d.err
		}
		d.next()
	}
	n := copy(p, d.rest)
	d.rest = d.rest[n:]
	return n, nil
}

// Stuff appends text to b as a dot-terminated block (RFC 3977 section
// 3.1.1, RFC 1436 section 3.8): a line that begins with "." gets another,
// the last line a CR LF when it has no line end, and the "." line ends it.
// Line ends are kept as they are.
func Stuff(b, text []byte) []byte {
	start := len(b)
	for line := range bytes.Lines(text) {
		if line[0] == '.' {
			b = append(b, '.')
		}
		b = append(b, line...)
	}
	if len(b) > start && b[len(b)-1] != '\n' {
		b = append(b, '\r', '\n')
	}
	return append(b, ".\r\n"...)
}

// next reads the next chunk into rest; the chunk stays valid until the
// next read of r, which comes only once it has all been handed on.
func (d *DotReader) next() {
	chunk, err := d.read()
	start := !d.midLine
	if len(chunk) > 0 {
		d.midLine = chunk[len(chunk)-1] != '\n'
	}
	if start && len(chunk) > 0 && chunk[0] == '.' {
		if string(chunk) == ".\r\n" || string(chunk) == ".\n" {
			d.rest, d.err = nil, io.EOF
			return
		}
		if d.stuffing == Text || d.stuffing == DoubleDots && len(chunk) > 1 && chunk[1] == '.' {
			chunk = chunk[1:]
		}
	}
	if n := len(chunk); d.stuffing == Text && n > 1 && chunk[n-2] == '\r' && chunk[n-1] == '\n' {
		chunk = append(chunk[:n-2], '\n') // in the buffer, behind what it still holds
	}
	if err == io.EOF {
		err = d.Cut
	}
	d.rest, d.err = chunk, err
}

// read reads a line, or the part of a long line that fills the buffer. In
// Text, such a part that ends in CR leaves it to be read again with what
// follows, which may make it a CR LF.
func (d *DotReader) read() ([]byte, error) {
	chunk, err := d.r.ReadSlice('\n')
	if !errors.Is(err, bufio.ErrBufferFull) {
		return chunk, err
	}
	if d.stuffing == Text && chunk[len(chunk)-1] == '\r' {
		d.r.UnreadByte()
		chunk = chunk[:len(chunk)-1]
	}
	return chunk, nil
}
