//go:build !linux

package proto

import (
	"io"
	"net"
	"os"
)

// readToFile copies through (*os.File).ReadFrom, which moves the bytes
// without a user-space copy where the system has a way to.
func readToFile(tc *net.TCPConn, f *os.File, max int64) (int64, error) {
	return f.ReadFrom(&io.LimitedReader{R: tc, N: max})
}
