package ftp

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"
	"syscall"

	"github.com/rfc1738/fetch/internal/termtext"
	"github.com/rfc1738/fetch/proto"
)

// errBodyClosed is returned by Read after Close.
var errBodyClosed = errors.New("ftp: read on closed body")

// copyBuffers holds WriteTo's buffers: one per transfer would cost more
// than the bytes when thousands of small files go through one Driver.
var copyBuffers = sync.Pool{New: func() any { b := make([]byte, 256<<10); return &b }}

// body streams one RETR. At the data connection's end it reads the
// completion reply (226) and, when SIZE gave the length, checks that
// every byte came; only then does Read return io.EOF, so that a transfer
// cut short is an error, and the control connection goes back.
type body struct {
	d    *Driver
	c    *conn          // nil once given back
	r    *pipedTransfer // the data side, which counts the bytes read
	src  io.Reader
	want int64 // bytes expected from the data connection; -1 unknown
	err  error // sticky: io.EOF or the failure
	done bool
}

func newBody(d *Driver, c *conn, r *pipedTransfer, ascii bool, want int64) *body {
	b := &body{d: d, c: c, r: r, want: want}
	b.src = r
	if ascii && runtime.GOOS != "windows" {
		b.src = newCRLFReader(r)
	}
	return b
}

func (b *body) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	n, err := b.src.Read(p)
	switch {
	case err == io.EOF:
		b.err = b.finish()
	case err != nil:
		b.err = b.abort(err)
	}
	if b.err != nil && b.err != io.EOF && n > 0 {
		// Deliver the bytes now and the error on the next call.
		return n, nil
	}
	return n, b.err
}

// WriteTo copies the body to w in large reads, so that io.Copy moves a big
// file with few system calls.
func (b *body) WriteTo(w io.Writer) (int64, error) {
	if fw, ok := w.(proto.FileWriter); ok && b.err == nil && b.src == io.Reader(b.r) && (b.want < 0 || b.want >= spliceMin) {
		if f := fw.WriterFile(); f != nil {
			if dc := b.spliceConn(); dc != nil {
				return b.readToFile(dc, f, fw)
			}
		}
	}
	bp := copyBuffers.Get().(*[]byte)
	defer copyBuffers.Put(bp)
	buf := *bp
	if b.want >= 0 && b.want < int64(len(buf)) {
		// A small file needs no more than its size (and one more read
		// for the end).
		buf = buf[:max(b.want, 512)]
	}
	var total int64
	for {
		n, err := b.Read(buf)
		if n > 0 {
			m, werr := w.Write(buf[:n])
			total += int64(m)
			if werr != nil {
				b.Close()
				return total, werr
			}
		}
		if err == io.EOF {
			return total, nil
		}
		if err != nil {
			return total, err
		}
	}
}

// spliceChunk is the most readToFile moves per call: the progress of a
// big file is told at least this often.
const spliceChunk = 256 << 10

// spliceMin is the smallest known size that takes readToFile: below it,
// the pipe that splice(2) needs costs more system calls than it saves.
const spliceMin = 64 << 10

// spliceConn returns the data connection when its bytes can go to a file
// without being read here: plain TCP (no TLS), not captured.
func (b *body) spliceConn() *proto.DeadlineConn {
	d, ok := b.r.data.(*dataConn)
	if !ok || d.cap != nil {
		return nil
	}
	dc, ok := d.Conn.(*proto.DeadlineConn)
	if !ok || !dc.CanReadToFile() {
		return nil
	}
	return dc
}

// readToFile is WriteTo's path into a file (proto.FileWriter): the kernel
// moves the bytes (splice(2) on Linux), counted as Read counts them, and
// the transfer ends as after Read.
func (b *body) readToFile(dc *proto.DeadlineConn, f *os.File, fw proto.FileWriter) (int64, error) {
	var total int64
	for {
		n, err := dc.ReadToFile(f, spliceChunk)
		total += n
		b.r.n += n
		if n > 0 {
			fw.Wrote(n)
		}
		switch {
		case err == nil && n == 0:
			if b.err = b.finish(); b.err == io.EOF {
				return total, nil
			}
			return total, b.err
		case err != nil && fileError(err):
			b.abort(nil)
			b.err = errBodyClosed
			return total, fw.FileError(err)
		case err != nil:
			b.err = b.abort(err)
			return total, b.err
		}
	}
}

// fileError reports whether err, from a move into a file, is the file's
// (the device is full, the file too big, the file system read-only) rather
// than the connection's.
func fileError(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) ||
		errors.Is(err, syscall.EFBIG) || errors.Is(err, syscall.EROFS) || errors.Is(err, syscall.EIO)
}

// finish ends a transfer whose data connection reached its end: the
// completion reply, the length check, the connection given back.
func (b *body) finish() error {
	c := b.c
	b.done = true
	var err error
	if cerr := b.r.Close(); cerr != nil {
		code := replyCode(cerr)
		switch {
		case code >= 500 && b.want >= 0 && b.r.n < b.want:
			// Part of the file, then a permanent failure
			// (ftpserverlib's 550 when the data connection broke):
			// a cut transfer, not "not found".
			cerr = fmt.Errorf("transfer ended after %s, then %d %s: %w", b.got(), code, termtext.Escape(replyMsg(cerr), traceMax), io.ErrUnexpectedEOF)
		case code > 0 && code < 200:
			// A second preliminary reply where the completion reply
			// was due (RFC 959 section 4.2: after 1yz comes 2yz, 4yz
			// or 5yz): Pure-FTPd's "150 0.004 seconds (measured
			// here)..." when the data connection broke. Cut, as above.
			cerr = fmt.Errorf("transfer ended after %s, then %d %s where the completion reply was due: %w", b.got(), code, termtext.Escape(replyMsg(cerr), traceMax), io.ErrUnexpectedEOF)
		case code == 0 && (errors.Is(cerr, io.EOF) || errors.Is(cerr, syscall.ECONNRESET)):
			// The control connection ended where the completion
			// reply was due (a server gone, a NAT that dropped a
			// connection idle through a long transfer): even with
			// every byte counted, nothing says the file came whole;
			// the connection is lost (exit 5), and a retry resumes
			// at the end.
			how := "the server closed the control connection"
			if errors.Is(cerr, syscall.ECONNRESET) {
				how = "the control connection was reset"
			}
			cerr = fmt.Errorf("%s after %s, before its completion reply: %w", how, b.got(), io.ErrUnexpectedEOF)
		}
		err = c.fail(b.r.cmd, cerr)
	} else if b.want >= 0 && b.r.n < b.want {
		err = &CommandError{Cmd: b.r.cmd, Err: fmt.Errorf("transfer ended after %s: %w", b.got(), io.ErrUnexpectedEOF)}
	}
	b.c = nil
	b.d.release(c)
	if err != nil {
		return err
	}
	return io.EOF
}

// got is how many bytes came, and of how many when that is known.
func (b *body) got() string {
	if b.want >= 0 {
		return fmt.Sprintf("%d of %d bytes", b.r.n, b.want)
	}
	return fmt.Sprintf("%d bytes", b.r.n)
}

// abort ends a transfer that failed, or that the caller gave up: both
// connections are closed (the server's reply to a broken transfer could
// take a whole idle timeout).
func (b *body) abort(cause error) error {
	c := b.c
	b.done = true
	var err error
	if cause != nil {
		err = c.fail(b.r.cmd, cause)
	}
	c.dead = true
	if c.data != nil {
		c.data.Close()
	}
	b.c = nil
	b.d.release(c)
	return err
}

// Close ends the transfer: closed early, it closes the connections,
// unless every expected byte has arrived and the transfer can finish.
func (b *body) Close() error {
	if b.done {
		if b.err == nil {
			b.err = errBodyClosed
		}
		return nil
	}
	if b.want >= 0 && b.r.n == b.want {
		err := b.finish()
		if b.err = errBodyClosed; err == io.EOF {
			return nil
		}
		return err
	}
	b.abort(nil)
	b.err = errBodyClosed
	return nil
}

// crlfReader turns CRLF line ends into LF (TYPE A data, RFC 959 section
// 3.1.1.1, converted to the Unix convention). A CR not followed by LF is
// kept.
type crlfReader struct {
	r    io.Reader
	buf  []byte
	i, n int
	cr   bool // a CR ended the last read and waits for the next byte
	err  error
}

func newCRLFReader(r io.Reader) *crlfReader { return &crlfReader{r: r, buf: make([]byte, 64<<10)} }

func (c *crlfReader) Read(p []byte) (int, error) {
	for c.i == c.n {
		if c.err != nil {
			return 0, c.err
		}
		off := 0
		if c.cr {
			c.buf[0], off, c.cr = '\r', 1, false
		}
		n, err := c.r.Read(c.buf[off:])
		n += off
		c.err = err
		j := 0
		for i := 0; i < n; i++ {
			ch := c.buf[i]
			if ch == '\r' {
				if i+1 < n {
					if c.buf[i+1] == '\n' {
						continue
					}
				} else if err == nil {
					c.cr = true
					continue
				}
			}
			c.buf[j] = ch
			j++
		}
		c.i, c.n = 0, j
	}
	k := copy(p, c.buf[c.i:c.n])
	c.i += k
	return k, nil
}

// localLineEnds converts a whole text (a name list) to local line ends,
// as crlfReader does.
func localLineEnds(s string) []byte {
	if runtime.GOOS != "windows" {
		s = strings.ReplaceAll(s, "\r\n", "\n")
	}
	return []byte(s)
}
