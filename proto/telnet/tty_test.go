//go:build linux

package telnet

import (
	"errors"
	"io"
	"os"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// pty is a pseudo-terminal pair: the test plays the person on master, the
// code under test uses slave as its terminal.
type pty struct {
	master, slave *os.File
	masterFd      int
	slaveFd       int
	out           syncBuffer // everything read from master
	readDone      chan struct{}
}

// openPTY opens /dev/ptmx and its slave, sets the window size, and starts
// collecting what the slave side writes.
func openPTY(t *testing.T, cols, rows uint16) *pty {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open /dev/ptmx: %v", err)
	}
	p := &pty{master: m, readDone: make(chan struct{})}
	if p.masterFd, err = rawFd(m); err != nil {
		t.Fatal(err)
	}
	if err := unix.IoctlSetPointerInt(p.masterFd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlockpt: %v", err)
	}
	n, err := unix.IoctlGetUint32(p.masterFd, unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("ptsname: %v", err)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open slave: %v", err)
	}
	p.slave = s
	if p.slaveFd, err = rawFd(s); err != nil {
		t.Fatal(err)
	}
	p.setSize(t, cols, rows)
	go func() {
		defer close(p.readDone)
		io.Copy(&p.out, m) // ends with EIO when the slave closes, or on Close
	}()
	t.Cleanup(func() {
		s.Close()
		m.Close()
		select {
		case <-p.readDone:
		case <-time.After(5 * time.Second):
			t.Error("pty reader did not stop")
		}
	})
	return p
}

func (p *pty) setSize(t *testing.T, cols, rows uint16) {
	t.Helper()
	if err := unix.IoctlSetWinsize(p.masterFd, unix.TIOCSWINSZ, &unix.Winsize{Col: cols, Row: rows}); err != nil {
		t.Fatalf("TIOCSWINSZ: %v", err)
	}
}

func (p *pty) termios(t *testing.T) unix.Termios {
	t.Helper()
	tio, err := unix.IoctlGetTermios(p.slaveFd, unix.TCGETS)
	if err != nil {
		t.Fatalf("TCGETS: %v", err)
	}
	return *tio
}

// typeKeys writes keystrokes as the person would.
func (p *pty) typeKeys(t *testing.T, s string) {
	t.Helper()
	if _, err := p.master.Write([]byte(s)); err != nil {
		t.Fatalf("typing %q: %v", s, err)
	}
}

// waitOutput waits (bounded) until the terminal screen got s.
func (p *pty) waitOutput(t *testing.T, s string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(p.out.String(), s) {
		if time.Now().After(deadline) {
			t.Fatalf("terminal output %q never showed %q", p.out.String(), s)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestTTYSession runs Interactive on a real pseudo-terminal against the
// scripted server: the session runs in raw mode (CR reaches the session
// unchanged, nothing is echoed by the terminal driver), the window size
// comes from the terminal and follows SIGWINCH, IAC NOP and IAC DM do not
// end it, Ctrl-] does, and the terminal modes afterwards equal those before.
func TestTTYSession(t *testing.T) {
	pt := openPTY(t, 100, 30)
	before := pt.termios(t)
	tty, err := NewTTY(pt.slave, pt.slave, "xterm")
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()

	p := newPeer(t)
	done := start(t, t.Context(), p, "telnet://"+p.addr()+"/", nil, tty, nil)
	p.send(cat(iac(cmdDO, optTTYPE), iac(cmdDO, optNAWS), iac(cmdWILL, optEcho), iac(cmdWILL, optSGA))...)
	p.expect(cat(iac(cmdWILL, optTTYPE), iac(cmdWILL, optNAWS), iac(cmdSB, optNAWS, 0, 100, 0, 30, cmdIAC, cmdSE),
		iac(cmdDO, optEcho), iac(cmdDO, optSGA))...)

	p.send(cat([]byte("$ "), iac(cmdNOP))...)
	pt.waitOutput(t, "$ ")
	if raw := pt.termios(t); raw.Lflag&(unix.ICANON|unix.ECHO|unix.ISIG) != 0 {
		t.Errorf("terminal not in raw mode during the session: lflag %#x", raw.Lflag)
	}
	pt.typeKeys(t, "echo hello-fetch\r")
	p.expectString("echo hello-fetch\r\n")
	p.send(cat([]byte("echo hello-fetch\r\n"), iac(cmdDM), []byte("hello-fetch\r\n$ "))...)
	pt.waitOutput(t, "echo hello-fetch\r\nhello-fetch\r\n$ ")

	pt.setSize(t, 120, 40)
	syscall.Kill(os.Getpid(), syscall.SIGWINCH)
	p.expect(iac(cmdSB, optNAWS, 0, 120, 0, 40, cmdIAC, cmdSE)...)

	pt.typeKeys(t, "\x1d")
	o := wait(t, done)
	if o.err != nil || o.panicked != nil {
		t.Fatalf("Interactive = %v (panic %v), want nil", o.err, o.panicked)
	}
	p.expectEOF()
	if after := pt.termios(t); !reflect.DeepEqual(after, before) {
		t.Errorf("termios after the session = %+v, want %+v", after, before)
	}
}

// TestTTYReadDeadline: SetReadDeadline wakes a blocked Read at once.
func TestTTYReadDeadline(t *testing.T) {
	pt := openPTY(t, 80, 24)
	tty, err := NewTTY(pt.slave, pt.slave, "")
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	errc := make(chan error, 1)
	go func() {
		var b [8]byte
		_, err := tty.Read(b[:])
		errc <- err
	}()
	time.Sleep(50 * time.Millisecond)
	tty.SetReadDeadline(time.Now())
	select {
	case err := <-errc:
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("Read = %v, want os.ErrDeadlineExceeded", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Read still blocked after SetReadDeadline")
	}
	// With the deadline cleared, keys are read again.
	tty.SetReadDeadline(time.Time{})
	restore, err := tty.MakeRaw()
	if err != nil {
		t.Fatal(err)
	}
	defer restore()
	pt.typeKeys(t, "k")
	var b [8]byte
	tty.SetReadDeadline(time.Now().Add(5 * time.Second))
	if n, err := tty.Read(b[:]); err != nil || string(b[:n]) != "k" {
		t.Errorf("Read = %q, %v, want %q", b[:n], err, "k")
	}
	if w, h, err := tty.Size(); err != nil || w != 80 || h != 24 {
		t.Errorf("Size = %d, %d, %v, want 80, 24", w, h, err)
	}
}

// TestTTYNotTerminal: a session needs a terminal. Interactive connects
// before it touches the terminal (so that Ctrl-C still works while a
// connection is pending), then fails with ErrNotTerminal and closes the
// connection.
func TestTTYNotTerminal(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	tty, err := NewTTY(r, w, "")
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	if _, err := tty.MakeRaw(); !errors.Is(err, ErrNotTerminal) {
		t.Errorf("MakeRaw on a pipe = %v, want ErrNotTerminal", err)
	}
	p := newPeer(t)
	done := start(t, t.Context(), p, "telnet://"+p.addr()+"/", nil, tty, nil)
	if o := wait(t, done); !errors.Is(o.err, ErrNotTerminal) {
		t.Errorf("Interactive on a pipe = %v, want ErrNotTerminal", o.err)
	}
	p.expectEOF()
}
