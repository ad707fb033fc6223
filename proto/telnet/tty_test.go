//go:build linux

package telnet

import (
	"errors"
	"os"
	"reflect"
	"syscall"
	"testing"
	"time"

	"github.com/rfc1738/fetch/internal/testrig/ptytest"
	"golang.org/x/sys/unix"
)

// TestTTYSession runs Interactive on a real pseudo-terminal against the
// scripted server: the session runs in raw mode (CR reaches the session
// unchanged, nothing is echoed by the terminal driver), the window size
// comes from the terminal and follows SIGWINCH, IAC NOP and IAC DM do not
// end it, Ctrl-] does, and the terminal modes afterwards equal those before.
func TestTTYSession(t *testing.T) {
	pt := ptytest.Open(t, 100, 30)
	before := pt.Termios(t)
	tty, err := NewTTY(pt.Slave, pt.Slave, "xterm")
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
	pt.WaitOutput(t, "$ ")
	if raw := pt.Termios(t); raw.Lflag&(unix.ICANON|unix.ECHO|unix.ISIG) != 0 {
		t.Errorf("terminal not in raw mode during the session: lflag %#x", raw.Lflag)
	}
	pt.Type(t, "echo hello-fetch\r")
	p.expectString("echo hello-fetch\r\n")
	p.send(cat([]byte("echo hello-fetch\r\n"), iac(cmdDM), []byte("hello-fetch\r\n$ "))...)
	pt.WaitOutput(t, "echo hello-fetch\r\nhello-fetch\r\n$ ")

	pt.SetSize(t, 120, 40)
	syscall.Kill(os.Getpid(), syscall.SIGWINCH)
	p.expect(iac(cmdSB, optNAWS, 0, 120, 0, 40, cmdIAC, cmdSE)...)

	pt.Type(t, "\x1d")
	o := wait(t, done)
	if o.err != nil || o.panicked != nil {
		t.Fatalf("Interactive = %v (panic %v), want nil", o.err, o.panicked)
	}
	p.expectEOF()
	if after := pt.Termios(t); !reflect.DeepEqual(after, before) {
		t.Errorf("termios after the session = %+v, want %+v", after, before)
	}
}

// TestTTYReadDeadline: SetReadDeadline wakes a blocked Read at once.
func TestTTYReadDeadline(t *testing.T) {
	pt := ptytest.Open(t, 80, 24)
	tty, err := NewTTY(pt.Slave, pt.Slave, "")
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	// Set the deadline once Read is about to block without one.
	blocking := make(chan struct{}, 1)
	pollHook = func(timeout int) {
		if timeout < 0 {
			select {
			case blocking <- struct{}{}:
			default:
			}
		}
	}
	t.Cleanup(func() { pollHook = nil })
	errc := make(chan error, 1)
	go func() {
		var b [8]byte
		_, err := tty.Read(b[:])
		errc <- err
	}()
	select {
	case <-blocking:
	case <-time.After(5 * time.Second):
		t.Fatal("Read did not reach poll")
	}
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
	pt.Type(t, "k")
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
