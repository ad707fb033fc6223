//go:build linux

// Package ptytest gives tests a real pseudo-terminal: the code under test
// uses the slave side as its terminal, and the test types on the master
// side and reads what the terminal showed. It is for tests of interactive
// sessions (fetch --interactive), on Linux.
package ptytest

import (
	"bytes"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// PTY is an open pseudo-terminal. Everything the slave side writes is
// collected and can be read with Output. It is closed when the test ends.
type PTY struct {
	// Master is the side the test types on; Slave is the terminal given to
	// the code under test (as its stdin, stdout and stderr).
	Master, Slave *os.File

	masterFd, slaveFd int
	mu                sync.Mutex
	out               bytes.Buffer
	readDone          chan struct{}
}

// Open opens /dev/ptmx and its slave with a window of cols x rows, and
// starts collecting the terminal's output.
func Open(t testing.TB, cols, rows uint16) *PTY {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("ptytest: open /dev/ptmx: %v", err)
	}
	p := &PTY{Master: m, readDone: make(chan struct{})}
	p.masterFd = fd(t, m)
	if err := unix.IoctlSetPointerInt(p.masterFd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("ptytest: unlockpt: %v", err)
	}
	n, err := unix.IoctlGetUint32(p.masterFd, unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("ptytest: ptsname: %v", err)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("ptytest: open slave: %v", err)
	}
	p.Slave = s
	p.slaveFd = fd(t, s)
	p.SetSize(t, cols, rows)
	go func() {
		defer close(p.readDone)
		io.Copy(writerFunc(p.write), m) // ends with EIO when the slave closes, or on Close
	}()
	t.Cleanup(func() {
		s.Close()
		m.Close()
		select {
		case <-p.readDone:
		case <-time.After(5 * time.Second):
			t.Error("ptytest: reader did not stop")
		}
	})
	return p
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

func (p *PTY) write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.Write(b)
}

func fd(t testing.TB, f *os.File) int {
	t.Helper()
	rc, err := f.SyscallConn()
	if err != nil {
		t.Fatalf("ptytest: %v", err)
	}
	n := -1
	if err := rc.Control(func(u uintptr) { n = int(u) }); err != nil {
		t.Fatalf("ptytest: %v", err)
	}
	return n
}

// SetSize sets the window size (the code under test sees SIGWINCH when it
// is the terminal's foreground process).
func (p *PTY) SetSize(t testing.TB, cols, rows uint16) {
	t.Helper()
	if err := unix.IoctlSetWinsize(p.masterFd, unix.TIOCSWINSZ, &unix.Winsize{Col: cols, Row: rows}); err != nil {
		t.Fatalf("ptytest: TIOCSWINSZ: %v", err)
	}
}

// Termios returns the terminal's current modes.
func (p *PTY) Termios(t testing.TB) unix.Termios {
	t.Helper()
	tio, err := unix.IoctlGetTermios(p.slaveFd, unix.TCGETS)
	if err != nil {
		t.Fatalf("ptytest: TCGETS: %v", err)
	}
	return *tio
}

// Type writes keystrokes as the person would.
func (p *PTY) Type(t testing.TB, s string) {
	t.Helper()
	if _, err := p.Master.Write([]byte(s)); err != nil {
		t.Fatalf("ptytest: typing %q: %v", s, err)
	}
}

// Output returns everything the terminal has shown so far.
func (p *PTY) Output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

// WaitOutput waits, at most 10 seconds, until the terminal has shown s.
func (p *PTY) WaitOutput(t testing.TB, s string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(p.Output(), s) {
		if time.Now().After(deadline) {
			t.Fatalf("ptytest: terminal output %q never showed %q", p.Output(), s)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
