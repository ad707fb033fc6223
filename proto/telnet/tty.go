//go:build unix

package telnet

import (
	"errors"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
	"golang.org/x/term"
)

// ErrNotTerminal is returned by [TTY.MakeRaw] when the input is not a
// terminal; an interactive session needs one.
var ErrNotTerminal = errors.New("not a terminal")

// TTY is a [Terminal] on terminal devices: keystrokes from in, output to
// out (usually os.Stdin and os.Stdout). It also implements [Resizer]
// through SIGWINCH. Create it with NewTTY and Close it after use; Close
// does not close in or out.
//
// Read waits with poll(2) on in and on an internal pipe, so that
// SetReadDeadline interrupts a blocked Read at once, whatever the blocking
// mode of in. Read and Write are safe for use from different goroutines.
type TTY struct {
	in, out *os.File
	inFd    int
	outFd   int
	typ     string

	wakeR, wakeW int // pipe that wakes a blocked Read

	mu       sync.Mutex
	deadline time.Time
	closed   bool
	sigc     chan os.Signal
	resized  chan struct{}
	done     chan struct{}
}

var (
	_ Terminal = (*TTY)(nil)
	_ Resizer  = (*TTY)(nil)
)

// NewTTY returns a TTY reading from in and writing to out. termType is the
// terminal type announced to servers that ask (RFC 1091), usually the TERM
// environment variable; empty announces none.
func NewTTY(in, out *os.File, termType string) (*TTY, error) {
	t := &TTY{in: in, out: out, typ: termType, done: make(chan struct{})}
	var err error
	if t.inFd, err = rawFd(in); err != nil {
		return nil, err
	}
	if t.outFd, err = rawFd(out); err != nil {
		return nil, err
	}
	p := make([]int, 2)
	if err := syscall.Pipe(p); err != nil {
		return nil, os.NewSyscallError("pipe", err)
	}
	syscall.CloseOnExec(p[0])
	syscall.CloseOnExec(p[1])
	for _, fd := range p {
		if err := syscall.SetNonblock(fd, true); err != nil {
			syscall.Close(p[0])
			syscall.Close(p[1])
			return nil, os.NewSyscallError("fcntl", err)
		}
	}
	t.wakeR, t.wakeW = p[0], p[1]
	return t, nil
}

// rawFd returns f's descriptor without changing its blocking mode (unlike
// File.Fd).
func rawFd(f *os.File) (int, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return -1, err
	}
	fd := -1
	if err := rc.Control(func(u uintptr) { fd = int(u) }); err != nil {
		return -1, err
	}
	return fd, nil
}

// pollHook, when set (by a test), is called by Read with the timeout it
// is about to wait for in poll(2), -1 for none: a test learns that Read
// has read its deadline and is blocking, without sleeping.
var pollHook func(timeout int)

// Read returns keystrokes. It fails with os.ErrDeadlineExceeded once the
// read deadline has passed, and with io.EOF at the end of input.
func (t *TTY) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for {
		t.mu.Lock()
		dl, closed := t.deadline, t.closed
		t.mu.Unlock()
		if closed {
			return 0, os.ErrClosed
		}
		timeout := -1
		if !dl.IsZero() {
			d := time.Until(dl)
			if d <= 0 {
				return 0, os.ErrDeadlineExceeded
			}
			timeout = int((d + time.Millisecond - 1) / time.Millisecond)
		}
		fds := []unix.PollFd{
			{Fd: int32(t.inFd), Events: unix.POLLIN},
			{Fd: int32(t.wakeR), Events: unix.POLLIN},
		}
		if pollHook != nil {
			pollHook(timeout)
		}
		if _, err := unix.Poll(fds, timeout); err != nil {
			if errors.Is(err, unix.EINTR) {
				continue
			}
			return 0, os.NewSyscallError("poll", err)
		}
		if fds[1].Revents != 0 {
			t.drainWake()
			continue
		}
		if fds[0].Revents == 0 {
			continue // timed out: the loop reports the deadline
		}
		n, err := unix.Read(t.inFd, p)
		switch {
		case errors.Is(err, unix.EAGAIN), errors.Is(err, unix.EINTR):
			continue
		case err != nil:
			return 0, &os.PathError{Op: "read", Path: t.in.Name(), Err: err}
		case n == 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

func (t *TTY) drainWake() {
	var b [64]byte
	for {
		n, err := syscall.Read(t.wakeR, b[:])
		if n <= 0 || err != nil {
			return
		}
	}
}

// Write shows p on the terminal.
func (t *TTY) Write(p []byte) (int, error) { return t.out.Write(p) }

// SetReadDeadline sets the time after which Read fails with
// os.ErrDeadlineExceeded; it wakes a blocked Read. The zero time means none.
func (t *TTY) SetReadDeadline(d time.Time) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return os.ErrClosed
	}
	t.deadline = d
	syscall.Write(t.wakeW, []byte{0}) // a full pipe already wakes Read
	return nil
}

// MakeRaw puts the input terminal into raw mode and returns a function
// that restores its previous modes; the function may be called more than
// once. It fails with ErrNotTerminal when the input is no terminal.
func (t *TTY) MakeRaw() (func() error, error) {
	if !term.IsTerminal(t.inFd) {
		return nil, ErrNotTerminal
	}
	st, err := term.MakeRaw(t.inFd)
	if err != nil {
		return nil, err
	}
	var once sync.Once
	var rerr error
	return func() error {
		once.Do(func() { rerr = term.Restore(t.inFd, st) })
		return rerr
	}, nil
}

// Size returns the window size of the output terminal, or of the input
// terminal when the output is not one.
func (t *TTY) Size() (int, int, error) {
	w, h, err := term.GetSize(t.outFd)
	if err != nil {
		return term.GetSize(t.inFd)
	}
	return w, h, nil
}

// TermType returns the terminal type given to NewTTY.
func (t *TTY) TermType() string { return t.typ }

// Resized returns a channel that receives a value after each SIGWINCH, the
// signal a terminal sends on a change of window size. The first call starts
// listening for the signal; Close stops it.
func (t *TTY) Resized() <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.resized != nil || t.closed {
		return t.resized
	}
	t.resized = make(chan struct{}, 1)
	t.sigc = make(chan os.Signal, 1)
	signal.Notify(t.sigc, syscall.SIGWINCH)
	go func(sigc <-chan os.Signal, out chan<- struct{}) {
		for {
			select {
			case <-t.done:
				return
			case <-sigc:
				select {
				case out <- struct{}{}:
				default: // one pending notice is enough
				}
			}
		}
	}(t.sigc, t.resized)
	return t.resized
}

// Close releases the TTY's pipe and signal handler. It does not close the
// files given to NewTTY and does not restore terminal modes (the function
// returned by MakeRaw does). It may be called more than once.
func (t *TTY) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return nil
	}
	t.closed = true
	if t.sigc != nil {
		signal.Stop(t.sigc)
	}
	close(t.done)
	syscall.Write(t.wakeW, []byte{0})
	return errors.Join(syscall.Close(t.wakeW), syscall.Close(t.wakeR))
}
