package proto

import (
	"errors"
	"io"
	"net"
	"os"
	"time"
)

// FileWriter is a destination that lets a body move bytes into its file
// without reading them itself: on Linux, DeadlineConn.ReadToFile moves
// them from a TCP connection with splice(2), and they never enter user
// space (elsewhere, (*os.File).ReadFrom does what the system allows). A
// writer that must see the bytes (a hash, a rate limit, an archive copy)
// does not implement it, and a wrapper forwards it only when it does not
// need them either.
type FileWriter interface {
	io.Writer
	// WriterFile returns the file the bytes go to, at its current
	// offset, or nil when they must go through Write.
	WriterFile() *os.File
	// Wrote is told of n bytes written into WriterFile's file directly.
	Wrote(n int64)
	// FileError wraps an error of the file (disk full) as Write would
	// have returned it.
	FileError(err error) error
}

// CanReadToFile reports whether ReadToFile can move c's bytes without
// reading them: the connection underneath is a TCP connection.
func (c *DeadlineConn) CanReadToFile() bool {
	_, ok := c.Conn.(*net.TCPConn)
	return ok
}

// ReadToFile moves at most max bytes from the connection into f at f's
// offset (see FileWriter). It returns 0 and no error at the end of the
// stream. The idle timeout holds as for Read: the read deadline is moved
// forward before each call, and a deadline that passes after some bytes
// came is not an error (the caller calls again, with a fresh deadline), so
// only a silence of a whole idle timeout fails. A cancelled context closes
// the connection, which ends a call in progress with an error. It must
// only be called when CanReadToFile reports true.
func (c *DeadlineConn) ReadToFile(f *os.File, max int64) (int64, error) {
	tc := c.Conn.(*net.TCPConn)
	if c.idle > 0 {
		tc.SetReadDeadline(time.Now().Add(c.idle))
	}
	n, err := readToFile(tc, f, max)
	if n > 0 && errors.Is(err, os.ErrDeadlineExceeded) {
		err = nil
	}
	return n, err
}
