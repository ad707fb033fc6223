package telnet

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rfc1738/fetch/internal/testrig/notify"
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/proto/prototest"
	"github.com/rfc1738/fetch/uri"
)

// fakeTerm is a Terminal in memory: keys are typed with press, output is
// collected, and every mode change is counted.
type fakeTerm struct {
	keys chan []byte
	wake chan struct{}
	typ  string

	mu       sync.Mutex
	out      bytes.Buffer
	deadline time.Time
	raw      int // MakeRaw calls
	restored int // restore calls that restored something
	isRaw    bool
	w, h     int
	resized  chan struct{}
	panicOn  string // Write panics when output contains it

	written notify.Signal // notified at each Write
}

func newFakeTerm() *fakeTerm {
	return &fakeTerm{keys: make(chan []byte, 16), wake: make(chan struct{}, 1), typ: "xterm", w: 80, h: 24}
}

func (f *fakeTerm) press(s string) { f.keys <- []byte(s) }

func (f *fakeTerm) Read(p []byte) (int, error) {
	for {
		f.mu.Lock()
		dl := f.deadline
		f.mu.Unlock()
		var timeout <-chan time.Time
		if !dl.IsZero() {
			d := time.Until(dl)
			if d <= 0 {
				return 0, os.ErrDeadlineExceeded
			}
			tm := time.NewTimer(d)
			defer tm.Stop()
			timeout = tm.C
		}
		select {
		case k, ok := <-f.keys:
			if !ok {
				return 0, io.EOF
			}
			return copy(p, k), nil
		case <-f.wake:
		case <-timeout:
		}
	}
}

func (f *fakeTerm) Write(p []byte) (int, error) {
	defer f.written.Notify()
	f.mu.Lock()
	defer f.mu.Unlock()
	f.out.Write(p)
	if f.panicOn != "" && strings.Contains(f.out.String(), f.panicOn) {
		panic("fakeTerm: " + f.panicOn)
	}
	return len(p), nil
}

func (f *fakeTerm) SetReadDeadline(t time.Time) error {
	f.mu.Lock()
	f.deadline = t
	f.mu.Unlock()
	select {
	case f.wake <- struct{}{}:
	default:
	}
	return nil
}

func (f *fakeTerm) MakeRaw() (func() error, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.raw++
	f.isRaw = true
	return func() error {
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.isRaw {
			f.isRaw = false
			f.restored++
		}
		return nil
	}, nil
}

func (f *fakeTerm) Size() (int, int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.w, f.h, nil
}

func (f *fakeTerm) TermType() string { return f.typ }

func (f *fakeTerm) output() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.out.String()
}

// waitOutput waits (bounded) until the terminal shows s.
func (f *fakeTerm) waitOutput(t *testing.T, s string) {
	t.Helper()
	if !f.written.Until(5*time.Second, func() bool { return strings.Contains(f.output(), s) }) {
		t.Fatalf("terminal output %q never showed %q", f.output(), s)
	}
}

// checkRestored checks that the terminal was made raw once and restored.
func (f *fakeTerm) checkRestored(t *testing.T) {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.raw != 1 || f.restored != 1 || f.isRaw {
		t.Errorf("terminal made raw %d times, restored %d times, raw now %v; want 1, 1, false", f.raw, f.restored, f.isRaw)
	}
}

// resizableTerm adds Resizer to fakeTerm.
type resizableTerm struct{ *fakeTerm }

func (r resizableTerm) Resized() <-chan struct{} { return r.resized }

func (f *fakeTerm) resize(w, h int) {
	f.mu.Lock()
	f.w, f.h = w, h
	f.mu.Unlock()
	f.resized <- struct{}{}
}

type outcome struct {
	err      error
	panicked any
}

// start runs Interactive in a goroutine against p.
func start(t *testing.T, ctx context.Context, p *peer, rawURL string, req *proto.Request, term Terminal, notice io.Writer) <-chan outcome {
	t.Helper()
	done := make(chan outcome, 1)
	go func() {
		defer func() {
			if v := recover(); v != nil {
				done <- outcome{panicked: v}
			}
		}()
		done <- outcome{err: Interactive(ctx, uri.MustParse(rawURL), req, term, notice)}
	}()
	p.accept()
	return done
}

func wait(t *testing.T, done <-chan outcome) outcome {
	t.Helper()
	select {
	case o := <-done:
		return o
	case <-time.After(5 * time.Second):
		t.Fatal("Interactive did not return")
		return outcome{}
	}
}

// syncBuffer is a bytes.Buffer safe for concurrent use.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestSession runs a whole session against a scripted server that
// negotiates like telnetd (DO TTYPE, DO NAWS, WILL ECHO, WILL SGA) and
// sends IAC NOP and IAC DM mid-session: the replies are exact, the session
// goes on, Ctrl-] leaves it and the terminal is restored.
func TestSession(t *testing.T) {
	p := newPeer(t)
	term := newFakeTerm()
	var notice, trace syncBuffer
	done := start(t, t.Context(), p, "telnet://guest:s3cret@"+p.addr()+"/", &proto.Request{Trace: &trace}, term, &notice)

	p.send(cat(iac(cmdDO, optTTYPE), iac(cmdDO, optNAWS), iac(cmdWILL, optEcho), iac(cmdWILL, optSGA))...)
	p.expect(cat(iac(cmdWILL, optTTYPE), iac(cmdWILL, optNAWS), iac(cmdSB, optNAWS, 0, 80, 0, 24, cmdIAC, cmdSE),
		iac(cmdDO, optEcho), iac(cmdDO, optSGA))...)
	p.send(iac(cmdSB, optTTYPE, ttypeSEND, cmdIAC, cmdSE)...)
	p.expect(cat(iac(cmdSB, optTTYPE, ttypeIS), []byte("xterm"), iac(cmdSE))...)

	p.send(cat([]byte("welcome\r\n"), iac(cmdNOP), []byte("login: "))...)
	term.waitOutput(t, "welcome\r\nlogin: ")
	term.press("guest\r")
	p.expectString("guest\r\n") // typed by the person, not from the URL
	p.send(cat([]byte("guest\r\n"), iac(cmdDM), iac(cmdNOP), []byte("$ "))...)
	term.waitOutput(t, "login: guest\r\n$ ")
	term.press("echo \xff\r")
	p.expect(cat([]byte("echo "), iac(cmdIAC), []byte("\r\n"))...) // 255 doubled
	p.send(cat([]byte("echo "), iac(cmdIAC), []byte("\r\n"), iac(cmdIAC), []byte("\r\n$ "))...)
	term.waitOutput(t, "echo \xff\r\n\xff\r\n$ ")

	term.press("ls\x1dnot sent")
	p.expectString("ls")
	p.expectEOF()
	o := wait(t, done)
	if o.err != nil || o.panicked != nil {
		t.Fatalf("Interactive = %v (panic %v), want nil", o.err, o.panicked)
	}
	term.checkRestored(t)
	if strings.Contains(term.output(), "guest\r\nguest") {
		t.Errorf("typed text echoed locally although the server echoes")
	}
	wantNotice := "telnet service at " + p.addr() + "; suggested user: guest; a password was suggested (not shown)\n" +
		"connected to " + p.addr() + "; escape character is '^]'\nconnection closed\n"
	if notice.String() != wantNotice {
		t.Errorf("notices = %q, want %q", notice.String(), wantNotice)
	}
	if !strings.Contains(trace.String(), "< DO NAWS\r\n> WILL NAWS\r\n> SB NAWS 80 24\r\n") ||
		!strings.Contains(trace.String(), "< NOP\r\n") || !strings.Contains(trace.String(), "< DM\r\n") {
		t.Errorf("trace = %q, want the negotiation with CR LF line ends", trace.String())
	}
	for _, s := range []string{notice.String(), trace.String(), term.output()} {
		if strings.Contains(s, "s3cret") {
			t.Errorf("the password was shown: %q", s)
		}
	}
}

// TestSessionLocalEcho: while the server does not echo (RFC 857), typed
// characters are shown locally.
func TestSessionLocalEcho(t *testing.T) {
	p := newPeer(t)
	term := newFakeTerm()
	done := start(t, t.Context(), p, "telnet://"+p.addr(), nil, term, nil)
	term.press("ab\r")
	p.expectString("ab\r\n")
	term.waitOutput(t, "ab\r\n")
	p.send(cat(iac(cmdWILL, optEcho))...)
	p.expect(iac(cmdDO, optEcho)...)
	term.press("cd")
	p.expectString("cd")
	p.send('!')
	term.waitOutput(t, "ab\r\n!")
	if strings.Contains(term.output(), "cd") {
		t.Errorf("output %q: local echo while the server echoes", term.output())
	}
	term.press("\x1d")
	if o := wait(t, done); o.err != nil {
		t.Fatalf("Interactive = %v", o.err)
	}
	term.checkRestored(t)
}

// TestSessionServerCloses: the server ending the session returns nil.
func TestSessionServerCloses(t *testing.T) {
	p := newPeer(t)
	term := newFakeTerm()
	done := start(t, t.Context(), p, "telnet://"+p.addr(), nil, term, nil)
	p.sendString("bye\r\n")
	term.waitOutput(t, "bye\r\n")
	p.conn.Close()
	if o := wait(t, done); o.err != nil {
		t.Fatalf("Interactive = %v, want nil", o.err)
	}
	term.checkRestored(t)
}

// TestSessionResize: a window size change is sent (RFC 1073) when NAWS is
// in force.
func TestSessionResize(t *testing.T) {
	p := newPeer(t)
	term := newFakeTerm()
	term.resized = make(chan struct{})
	done := start(t, t.Context(), p, "telnet://"+p.addr(), nil, resizableTerm{term}, nil)
	p.send(iac(cmdDO, optNAWS)...)
	p.expect(cat(iac(cmdWILL, optNAWS), iac(cmdSB, optNAWS, 0, 80, 0, 24, cmdIAC, cmdSE))...)
	term.resize(132, 255)
	p.expect(iac(cmdSB, optNAWS, 0, 132, 0, 255, 255, cmdIAC, cmdSE)...)
	term.press("\x1d")
	if o := wait(t, done); o.err != nil {
		t.Fatalf("Interactive = %v", o.err)
	}
	term.checkRestored(t)
}

// TestSessionCancel: cancelling the context ends the session with
// ctx.Err() and restores the terminal.
func TestSessionCancel(t *testing.T) {
	p := newPeer(t)
	term := newFakeTerm()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var notice syncBuffer
	done := start(t, ctx, p, "telnet://"+p.addr(), nil, term, &notice)
	p.sendString("hello")
	term.waitOutput(t, "hello")
	cancel()
	o := wait(t, done)
	if !errors.Is(o.err, context.Canceled) {
		t.Fatalf("Interactive = %v, want context.Canceled", o.err)
	}
	term.checkRestored(t)
	p.expectEOF()
	if !strings.HasSuffix(notice.String(), "session cancelled\n") {
		t.Errorf("notices = %q, want a last line saying the session was cancelled", notice.String())
	}
}

// TestSessionPanic: a panic in the session restores the terminal before it
// goes on up the stack.
func TestSessionPanic(t *testing.T) {
	p := newPeer(t)
	term := newFakeTerm()
	term.panicOn = "boom"
	done := start(t, t.Context(), p, "telnet://"+p.addr(), nil, term, nil)
	p.sendString("boom")
	o := wait(t, done)
	if o.panicked != "fakeTerm: boom" {
		t.Fatalf("Interactive panicked with %v, want %q", o.panicked, "fakeTerm: boom")
	}
	term.checkRestored(t)
}

// TestSessionIdle: the idle timeout does not end a session.
func TestSessionIdle(t *testing.T) {
	p := newPeer(t)
	term := newFakeTerm()
	done := start(t, t.Context(), p, "telnet://"+p.addr(), &proto.Request{IdleTimeout: 30 * time.Millisecond}, term, nil)
	time.Sleep(200 * time.Millisecond)
	p.sendString("still here")
	term.waitOutput(t, "still here")
	term.press("\x1d")
	if o := wait(t, done); o.err != nil {
		t.Fatalf("Interactive = %v", o.err)
	}
}

// TestSessionKeysEnd: the end of the person's input ends the session.
func TestSessionKeysEnd(t *testing.T) {
	p := newPeer(t)
	term := newFakeTerm()
	done := start(t, t.Context(), p, "telnet://"+p.addr(), nil, term, nil)
	close(term.keys)
	if o := wait(t, done); o.err != nil {
		t.Fatalf("Interactive = %v", o.err)
	}
	p.expectEOF()
	term.checkRestored(t)
}

// TestInteractiveUnsafe: a user or password that decodes to CR, LF or NUL
// is refused before anything is sent (RFC 1738 section 6); the terminal is
// left alone.
func TestInteractiveUnsafe(t *testing.T) {
	ln := prototest.Listen(t)
	for _, p := range prototest.Payloads {
		esc := uri.Escape(p, "")
		for _, u := range []*uri.URL{
			{Scheme: "telnet", HasAuthority: true, Host: "127.0.0.1", Port: portOf(ln.Addr()), User: uri.User(esc)},
			{Scheme: "telnet", HasAuthority: true, Host: "127.0.0.1", Port: portOf(ln.Addr()), User: uri.UserPassword("guest", esc)},
		} {
			term := newFakeTerm()
			err := Interactive(t.Context(), u, nil, term, nil)
			if !errors.Is(err, proto.ErrUnsafeArgument) {
				t.Errorf("Interactive(%q) = %v, want proto.ErrUnsafeArgument", u.Redacted(), err)
			}
			if term.raw != 0 {
				t.Errorf("Interactive(%q) changed the terminal modes", u.Redacted())
			}
		}
	}
	if n := ln.Accepts(); n != 0 {
		t.Errorf("%d connections were made; want none", n)
	}
}

// TestInteractiveDialError: a refused connection is a network error and
// leaves the terminal alone.
func TestInteractiveDialError(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	term := newFakeTerm()
	err = Interactive(t.Context(), uri.MustParse("telnet://"+addr+"/"), nil, term, nil)
	var oe *net.OpError
	if !errors.As(err, &oe) {
		t.Errorf("Interactive to a closed port = %v, want a *net.OpError", err)
	}
	if term.raw != 0 {
		t.Errorf("terminal modes changed without a session")
	}
}

func portOf(a net.Addr) string {
	_, port, _ := net.SplitHostPort(a.String())
	return port
}
