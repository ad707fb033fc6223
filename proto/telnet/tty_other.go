//go:build !unix

package telnet

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"time"
)

// ErrNotTerminal is returned by [NewTTY] and [TTY.MakeRaw] when the input
// is not a terminal that this package can drive; an interactive session
// needs one.
var ErrNotTerminal = errors.New("not a terminal")

// TTY is a [Terminal] on terminal devices. Only Unix terminals are
// supported (the session needs poll(2) on the terminal to honour read
// deadlines): here NewTTY always fails, and a program can still run a
// session on a Terminal of its own.
type TTY struct{}

var _ Terminal = (*TTY)(nil)

// NewTTY fails on this system: see [TTY].
func NewTTY(in, out *os.File, termType string) (*TTY, error) {
	return nil, fmt.Errorf("interactive telnet sessions need a Unix terminal, not %s: %w", runtime.GOOS, ErrNotTerminal)
}

func (t *TTY) Read(p []byte) (int, error)        { return 0, ErrNotTerminal }
func (t *TTY) Write(p []byte) (int, error)       { return 0, ErrNotTerminal }
func (t *TTY) SetReadDeadline(d time.Time) error { return ErrNotTerminal }
func (t *TTY) MakeRaw() (func() error, error)    { return nil, ErrNotTerminal }
func (t *TTY) Size() (int, int, error)           { return 0, 0, ErrNotTerminal }
func (t *TTY) TermType() string                  { return "" }
func (t *TTY) Close() error                      { return nil }
