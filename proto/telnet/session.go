package telnet

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	ztelnet "github.com/ziutek/telnet"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// EscapeChar is the key that leaves a session: Ctrl-], as in telnet(1).
const EscapeChar = 0x1d

// Session runs Interactive for u on a TTY of the terminal in and out
// (proto.Sessioner).
func (d *Driver) Session(ctx context.Context, u *uri.URL, req *proto.Request, in, out *os.File, termType string, notice io.Writer) error {
	tty, err := NewTTY(in, out, termType)
	if err != nil {
		return err
	}
	defer tty.Close()
	return Interactive(ctx, u, req, tty, notice)
}

// Terminal is the person's side of an interactive session. [TTY] implements
// it for a terminal device.
type Terminal interface {
	// Read returns what the person types. It must return an error once a
	// read deadline set with SetReadDeadline has passed, including when the
	// deadline is set while Read is blocked.
	Read(p []byte) (int, error)
	// Write shows what the server sends.
	Write(p []byte) (int, error)
	// SetReadDeadline sets the time after which Read fails; the zero time
	// means none. Interactive uses it to stop reading when the session ends.
	SetReadDeadline(t time.Time) error
	// MakeRaw puts the terminal into raw mode (no line editing, no echo, no
	// signals from keys) and returns a function that restores the previous
	// modes. The restore function may be called more than once.
	MakeRaw() (restore func() error, err error)
	// Size returns the window size in character cells (0, 0 if unknown).
	Size() (width, height int, err error)
	// TermType returns the terminal type to announce (RFC 1091), for
	// example the TERM environment variable; empty announces none.
	TermType() string
}

// Resizer is implemented by terminals that report changes of their window
// size; Interactive then sends the new size to the server (RFC 1073).
type Resizer interface {
	// Resized returns a channel that receives a value after each change.
	Resized() <-chan struct{}
}

// Interactive opens a telnet session with the service u names, on term,
// and returns when the person presses Ctrl-] ([EscapeChar]), when the
// server closes the connection (both return nil), when ctx is done
// (ctx.Err()) or on a network or terminal error.
//
// Before connecting it writes the advice of RFC 1738 section 3.8 (service,
// suggested user, whether a password was suggested; never the password) to
// notice, and after connecting a line naming the escape key; after the
// session, a line saying how it ended. A nil notice writes nothing. Nothing
// from the URL is ever typed into the session: logging in is up to the
// person at the terminal.
//
// The connection is opened with req.DialContext, so req's dialer, connect
// timeout and context cancellation apply; its idle timeout does not end the
// session (a person may be silent for long). req.Trace, when set, receives
// the option negotiation ("< DO NAWS", "> WILL NAWS", "> SB NAWS 80 24"),
// never the data. The terminal is put into raw mode after connecting and is
// restored on every way out: return, ctx cancellation, and a panic (which
// is re-raised after the terminal is restored, also when it happened in one
// of the session's goroutines).
//
// u must be a telnet URL that the caller has already checked with package
// safety. A user name or password that decodes to CR, LF or NUL is refused
// with an error wrapping proto.ErrUnsafeArgument before anything is sent.
func Interactive(ctx context.Context, u *uri.URL, req *proto.Request, term Terminal, notice io.Writer) (err error) {
	svc, err := ParseService(u)
	if err != nil {
		return err
	}
	if notice == nil {
		notice = io.Discard
	}
	if req == nil {
		req = &proto.Request{}
	}
	fmt.Fprintln(notice, svc.String())
	conn, err := req.DialContext(ctx, "tcp", svc.Addr())
	if err != nil {
		return fmt.Errorf("telnet: %w", err)
	}
	defer conn.Close()
	fmt.Fprintf(notice, "connected to %s; escape character is '^]'\n", svc.Addr())

	restore, err := term.MakeRaw()
	if err != nil {
		return fmt.Errorf("telnet: terminal: %w", err)
	}
	defer func() {
		if rerr := restore(); rerr != nil && err == nil {
			err = fmt.Errorf("telnet: restoring the terminal: %w", rerr)
		}
		switch {
		case err == nil:
			fmt.Fprintln(notice, "connection closed")
		case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
			fmt.Fprintln(notice, "session cancelled")
		}
	}()

	var trace io.Writer
	if req.Trace != nil {
		trace = &crlfWriter{w: req.Trace} // the terminal is raw: no NL -> CR NL
	}
	oc := newOptionConn(conn, term.TermType(), trace)
	oc.persistent = true
	if w, h, serr := term.Size(); serr == nil {
		oc.setSize(w, h)
	}
	tc, err := ztelnet.NewConn(oc)
	if err != nil {
		return fmt.Errorf("telnet: %w", err)
	}
	s := &session{conn: tc, opts: oc, term: term}
	return s.run(ctx)
}

// session is one running Interactive call.
type session struct {
	conn *ztelnet.Conn // data both ways; over opts
	opts *optionConn
	term Terminal
}

// result is how one of the session's goroutines ended.
type result struct {
	err      error
	panicked bool
	panicVal any
}

// run copies server output to the terminal and keystrokes to the server
// until one side ends, then stops the other and waits for it.
func (s *session) run(ctx context.Context) error {
	fromNet := make(chan result, 1)
	fromKeys := make(chan result, 1)
	go guard(fromNet, s.copyOutput)
	go guard(fromKeys, s.copyInput)

	var resized <-chan struct{}
	if r, ok := s.term.(Resizer); ok {
		resized = r.Resized()
	}

	netDone, keysDone := false, false
	// stop ends both goroutines and waits for them. It runs before the
	// terminal is restored (Interactive's defer), also during a panic.
	defer func() {
		s.opts.Close()
		if !netDone {
			<-fromNet
		}
		if !keysDone && s.term.SetReadDeadline(time.Now()) == nil {
			<-fromKeys
		}
		s.term.SetReadDeadline(time.Time{})
	}()

	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case r := <-fromNet:
			netDone = true
			return ended(ctx, r)
		case r := <-fromKeys:
			keysDone = true
			return ended(ctx, r)
		case <-resized:
			if w, h, err := s.term.Size(); err == nil {
				if err := s.opts.setSize(w, h); err != nil {
					return fmt.Errorf("telnet: %w", err)
				}
			}
		}
	}
}

// ended is what run returns once a side ended with r: nil for its end
// (the server closed, or Ctrl-] or the end of the person's input), the
// context's error when it was cancelled; a panic is raised again.
func ended(ctx context.Context, r result) error {
	if r.panicked {
		panic(r.panicVal)
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if r.err == nil || errors.Is(r.err, io.EOF) {
		return nil
	}
	return fmt.Errorf("telnet: %w", r.err)
}

// guard runs f and reports how it ended, turning a panic into a value that
// run re-raises on its own goroutine, after the terminal is restored.
func guard(done chan<- result, f func() error) {
	defer func() {
		if v := recover(); v != nil {
			done <- result{panicked: true, panicVal: v}
		}
	}()
	done <- result{err: f()}
}

// copyOutput writes what the server sends to the terminal.
func (s *session) copyOutput() error {
	buf := make([]byte, 4096)
	for {
		n, err := s.conn.Read(buf)
		if n > 0 {
			if _, werr := s.term.Write(buf[:n]); werr != nil {
				return werr
			}
		}
		if err != nil {
			return err
		}
	}
}

// copyInput sends what the person types to the server until Ctrl-]. The
// Return key (CR in raw mode) is sent as CR LF, the NVT end of line
// (RFC 854); 255 is doubled by ziutek's Write. While the server does not
// echo, typed characters are echoed locally.
func (s *session) copyInput() error {
	buf := make([]byte, 1024)
	for {
		n, err := s.term.Read(buf)
		if n > 0 {
			keys := buf[:n]
			i := bytes.IndexByte(keys, EscapeChar)
			if i >= 0 {
				keys = keys[:i]
			}
			if werr := s.send(keys); werr != nil {
				return werr
			}
			if i >= 0 {
				return nil
			}
		}
		if err != nil {
			return err
		}
	}
}

func (s *session) send(keys []byte) error {
	if len(keys) == 0 {
		return nil
	}
	line := bytes.ReplaceAll(keys, []byte{'\r'}, []byte{'\r', '\n'})
	if !s.opts.remoteEcho() {
		if _, err := s.term.Write(line); err != nil {
			return err
		}
	}
	_, err := s.conn.Write(line)
	return err
}

// crlfWriter turns "\n" into "\r\n", for trace lines written while the
// terminal is in raw mode.
type crlfWriter struct{ w io.Writer }

func (c *crlfWriter) Write(p []byte) (int, error) {
	if _, err := c.w.Write(bytes.ReplaceAll(p, []byte{'\n'}, []byte{'\r', '\n'})); err != nil {
		return 0, err
	}
	return len(p), nil
}
