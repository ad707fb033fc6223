package lineproto

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strconv"
)

// TooLongError is a line longer than the reader's limit: the peer broke
// the protocol (or is hostile). Drivers map it to proto.ErrProtocol.
type TooLongError struct {
	Max int // the limit, in bytes before the line end
}

func (e *TooLongError) Error() string {
	return "line longer than " + strconv.Itoa(e.Max) + " bytes"
}

// Reader reads the lines of a line protocol, each at most Max bytes
// before its line end (CR LF, or LF alone as most servers also send), so
// that a peer cannot make the client buffer without limit. The lines it
// returns are valid until the next read of R.
type Reader struct {
	R   *bufio.Reader
	Max int
}

// NewReader returns a Reader of lines of at most limit bytes from r,
// which it reads through r itself when r is a *bufio.Reader able to hold
// such a line and its CR LF, else through a new one.
func NewReader(r io.Reader, limit int) *Reader {
	br, ok := r.(*bufio.Reader)
	if !ok || br.Size() < limit+2 {
		br = bufio.NewReaderSize(r, max(limit+2, 4096))
	}
	return &Reader{R: br, Max: limit}
}

// ReadRaw returns the next line with its line end. At the end of the
// stream it returns the last bytes, a line without its end, if any, with
// io.EOF. A line longer than Max is a *TooLongError.
func (r *Reader) ReadRaw() ([]byte, error) {
	line, err := r.R.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) || len(TrimEnd(line)) > r.Max {
		return nil, &TooLongError{Max: r.Max}
	}
	return line, err
}

// ReadLine returns the next line without its line end. Every line of a
// reply ends with one, so the end of the stream, before or inside a line,
// is io.ErrUnexpectedEOF.
func (r *Reader) ReadLine() ([]byte, error) {
	line, err := r.ReadRaw()
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		return nil, err
	}
	return TrimEnd(line), nil
}

// ReadBlockLine returns the next line of a multi-line data block
// (RFC 3977 section 3.1.1) without its line end, the dot that stuffs a
// line beginning with "." taken off; end is true, with no line, at the "."
// line that ends the block.
func (r *Reader) ReadBlockLine() (line []byte, end bool, err error) {
	line, err = r.ReadLine()
	switch {
	case err != nil:
		return nil, false, err
	case len(line) == 1 && line[0] == '.':
		return nil, true, nil
	case len(line) > 0 && line[0] == '.':
		line = line[1:]
	}
	return line, false, nil
}

// Cut is ReadRaw for lines in memory: the first line of b with its line
// end (all of b when it has none), and the rest. A line longer than limit
// bytes before its end is a *TooLongError.
func Cut(b []byte, limit int) (line, rest []byte, err error) {
	line, rest = b, nil
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		line, rest = b[:i+1], b[i+1:]
	}
	if len(TrimEnd(line)) > limit {
		return nil, nil, &TooLongError{Max: limit}
	}
	return line, rest, nil
}

// TrimEnd returns line without its CR LF or LF.
func TrimEnd(line []byte) []byte {
	if n := len(line); n > 0 && line[n-1] == '\n' {
		return bytes.TrimSuffix(line[:n-1], []byte("\r"))
	}
	return line
}

// ParseStatus parses the status line of a reply: three digits, then the
// end of the line or a space and text (RFC 959 section 4.2, RFC 3977
// section 3.1). ok is false for anything else, among them an FTP
// continuation line ("123-text"). The range of the code is the caller's
// to check.
func ParseStatus(line []byte) (code int, text string, ok bool) {
	if len(line) < 3 || len(line) > 3 && line[3] != ' ' {
		return 0, "", false
	}
	for _, c := range line[:3] {
		if c < '0' || c > '9' {
			return 0, "", false
		}
		code = code*10 + int(c-'0')
	}
	if len(line) > 4 {
		text = string(line[4:])
	}
	return code, text, true
}
