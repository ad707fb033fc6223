package proto

import (
	"errors"
	"io"
	"net"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// pumpAt is how many bytes readToFile gathers in its pipe before it
// writes them to the file: a TCP socket gives splice(2) one or a few
// packets' worth at a time (often 16 to 64 KiB), and a file system pays a
// fixed cost per write (the inode lock, the times), so that writing each
// small batch at once is slower than a read and write of 256 KiB.
const pumpAt = 256 << 10

// readToFile moves at most max bytes from tc into f with splice(2),
// through a pipe of its own: socket to pipe until the pipe holds pumpAt
// bytes or the socket has no more for now, then pipe to file. Waiting for
// the socket goes through the runtime's poller, so that tc's read
// deadline and Close end it.
func readToFile(tc *net.TCPConn, f *os.File, max int64) (int64, error) {
	src, err := tc.SyscallConn()
	if err != nil {
		return 0, err
	}
	dst, err := f.SyscallConn()
	if err != nil {
		return 0, err
	}
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC|unix.O_NONBLOCK); err != nil {
		return 0, os.NewSyscallError("pipe2", err)
	}
	defer unix.Close(p[0])
	defer unix.Close(p[1])
	unix.FcntlInt(uintptr(p[1]), unix.F_SETPIPE_SZ, 1<<20) // a smaller pipe works too

	var total int64
	for total < max {
		inPipe, eof, err := fillPipe(src, p[1], max-total)
		n, werr := drainPipe(dst, p[0], inPipe)
		total += n
		if werr != nil {
			return total, werr
		}
		if err != nil || eof {
			return total, err
		}
	}
	return total, nil
}

// fillPipe splices from the socket src into the pipe w until the pipe
// holds pumpAt bytes or left, or the socket has no more for now; it
// waits for the socket while the pipe is empty. It returns the bytes
// spliced, and whether the socket reached its end.
func fillPipe(src syscall.RawConn, w int, left int64) (inPipe int64, eof bool, err error) {
	var serr error
	rerr := src.Read(func(fd uintptr) bool {
		for inPipe < pumpAt && inPipe < left {
			n, err := unix.Splice(int(fd), nil, w, nil, int(min(left, pumpAt)-inPipe), unix.SPLICE_F_MOVE|unix.SPLICE_F_NONBLOCK)
			switch {
			case errors.Is(err, unix.EINTR):
				continue
			case errors.Is(err, unix.EAGAIN):
				return inPipe > 0 // nothing yet: wait for the socket
			case err != nil:
				serr = os.NewSyscallError("splice", err)
				return true
			case n == 0:
				eof = true
				return true
			}
			inPipe += n
		}
		return true
	})
	if serr != nil {
		return inPipe, eof, serr
	}
	return inPipe, eof, rerr
}

// drainPipe splices the inPipe bytes in the pipe r into the file dst and
// returns how many it moved.
func drainPipe(dst syscall.RawConn, r int, inPipe int64) (int64, error) {
	var moved int64
	for inPipe > 0 {
		var (
			n   int64
			err error
		)
		werr := dst.Write(func(fd uintptr) bool {
			for {
				n, err = unix.Splice(r, nil, int(fd), nil, int(inPipe), unix.SPLICE_F_MOVE)
				if !errors.Is(err, unix.EINTR) {
					return true
				}
			}
		})
		switch {
		case err == nil && werr != nil:
			err = werr
		case err == nil && n == 0:
			err = io.ErrShortWrite
		}
		if err != nil {
			return moved, os.NewSyscallError("splice", err)
		}
		inPipe -= n
		moved += n
	}
	return moved, nil
}
