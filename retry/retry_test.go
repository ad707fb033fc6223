package retry

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/textproto"
	"os"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/proto/ftp"
	"github.com/rfc1738/fetch/proto/http"
	"github.com/rfc1738/fetch/proto/nntp"
	"github.com/rfc1738/fetch/safety"
	"github.com/rfc1738/fetch/uri"
)

func reply(code int) error { return &textproto.Error{Code: code, Msg: "text"} }

var transientTests = []struct {
	name string
	err  error
	want bool
}{
	{"ftp 421", &ftp.CommandError{Cmd: "RETR f", Err: reply(421)}, true},             // RFC 959 4.2: service not available, closing
	{"ftp 425", &ftp.CommandError{Cmd: "RETR f", Err: reply(425)}, true},             // can't open data connection
	{"ftp 426", &ftp.CommandError{Cmd: "RETR f", Err: reply(426)}, true},             // connection closed; transfer aborted
	{"ftp 450", &ftp.CommandError{Cmd: "RETR f", Err: reply(450)}, true},             // file unavailable (busy)
	{"ftp 451", &ftp.CommandError{Cmd: "RETR f", Err: reply(451)}, true},             // local error in processing
	{"ftp 452", reply(452), false},                                                   // insufficient storage: not in the list
	{"ftp 530", reply(530), false},                                                   // not logged in
	{"ftp 550", reply(550), false},                                                   // file unavailable
	{"nntp 400", fmt.Errorf("%w: %w", nntp.ErrServiceUnavailable, reply(400)), true}, // RFC 3977 3.2.1
	{"http 408", &http.StatusError{Code: 408}, true},                                 // RFC 9110 15.5.9
	{"http 429", &http.StatusError{Code: 429}, true},                                 // RFC 6585 4
	{"http 500", &http.StatusError{Code: 500}, true},
	{"http 503", &http.StatusError{Code: 503}, true},
	{"http 404", fmt.Errorf("x: %w", &http.StatusError{Code: 404}), false},
	{"http 400", &http.StatusError{Code: 400}, false},
	{"reset", &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}, true},
	{"refused", &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}, true},
	{"short", fmt.Errorf("short transfer: %w", io.ErrUnexpectedEOF), true},
	{"eof", fmt.Errorf("reply: %w", io.EOF), true},
	{"deadline", fmt.Errorf("read: %w", os.ErrDeadlineExceeded), true},
	{"too slow", &SpeedError{Limit: 10, Time: time.Second, Rate: 1}, true},
	{"busy", fmt.Errorf("%w: %w", proto.ErrBusy, reply(421)), true},
	{"login with 421", fmt.Errorf("%w: %w", proto.ErrLogin, reply(421)), false}, // a login failure is never retried
	{"not found", proto.ErrNotFound, false},
	{"permission", proto.ErrPermission, false},
	{"refused by policy", fmt.Errorf("x: %w", safety.ErrRefused), false},
	{"unsafe argument", proto.ErrUnsafeArgument, false},
	{"malformed", &uri.Error{Component: "port", Err: uri.Reason("bad")}, false},
	{"need input", proto.ErrNeedInput, false},
	{"certificate", &tls.CertificateVerificationError{Err: errors.New("x")}, false},
	{"cancelled", fmt.Errorf("read: %w (%w)", context.Canceled, net.ErrClosed), false},
	{"protocol error", &proto.ProtocolError{Proto: "nntp", Msg: "malformed reply"}, false},
	{"protocol error with a 421", fmt.Errorf("%w: %w", proto.ErrProtocol, reply(421)), false},
	{"protocol error of a timed-out reader", fmt.Errorf("%w (%w)", &proto.ProtocolError{Proto: "ftp"}, os.ErrDeadlineExceeded), false},
	{"other", errors.New("something else"), false},
	{"nil", nil, false},
}

func TestTransient(t *testing.T) {
	for _, tt := range transientTests {
		if got := Transient(tt.err); got != tt.want {
			t.Errorf("Transient(%s: %v) = %v, want %v", tt.name, tt.err, got, tt.want)
		}
	}
}

func TestDelayBackoff(t *testing.T) {
	p := Policy{Base: 100 * time.Millisecond, Cap: time.Second}
	for n := 1; n <= 12; n++ {
		full := min(100*time.Millisecond<<(n-1), time.Second)
		for range 20 {
			if d := p.Delay(n, reply(421)); d < full/2 || d > full {
				t.Fatalf("Delay(%d) = %v, want within [%v, %v]", n, d, full/2, full)
			}
		}
	}
	// The zero policy's waits: 1 s doubled, at most a minute.
	if d := (Policy{}).Delay(1, nil); d < DefaultBase/2 || d > DefaultBase {
		t.Errorf("zero policy Delay(1) = %v", d)
	}
	if d := (Policy{}).Delay(40, nil); d < DefaultCap/2 || d > DefaultCap {
		t.Errorf("zero policy Delay(40) = %v", d)
	}
}

func TestDelayRetryAfter(t *testing.T) {
	p := Policy{Cap: 10 * time.Second}
	err := fmt.Errorf("get: %w", &http.StatusError{Code: 503, RetryAfter: 3 * time.Second})
	if d := p.Delay(1, err); d != 3*time.Second {
		t.Errorf("Delay with Retry-After 3 s = %v", d)
	}
	err = &http.StatusError{Code: 429, RetryAfter: time.Hour}
	if d := p.Delay(5, err); d != 10*time.Second {
		t.Errorf("Delay with Retry-After 1 h = %v, want the cap", d)
	}
}

func TestAllow(t *testing.T) {
	now := time.Now()
	p := Policy{Max: 2}
	if !p.Allow(1, now, time.Second) || !p.Allow(2, now, time.Second) || p.Allow(3, now, 0) {
		t.Error("Max 2 does not allow exactly two retries")
	}
	if (Policy{}).Allow(1, now, 0) {
		t.Error("the zero policy allows a retry")
	}
	p = Policy{Max: 5, MaxTime: 10 * time.Second}
	if !p.Allow(1, now.Add(-5*time.Second), 4*time.Second) {
		t.Error("a retry within MaxTime refused")
	}
	if p.Allow(1, now.Add(-5*time.Second), 6*time.Second) {
		t.Error("a retry that would start after MaxTime allowed")
	}
}

func TestWaitCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Wait(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("Wait on a cancelled context = %v", err)
	}
	if err := Wait(context.Background(), time.Millisecond); err != nil {
		t.Errorf("Wait = %v", err)
	}
}

func TestSpeedError(t *testing.T) {
	var err error = &SpeedError{Limit: 1000, Time: 2 * time.Second, Rate: 12}
	if !errors.Is(err, ErrTooSlow) {
		t.Error("SpeedError does not wrap ErrTooSlow")
	}
	if got, want := err.Error(), "transfer too slow: 12 bytes/s for 2s, below the limit of 1000 bytes/s"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

// Tried counts the attempts in the message, and the failure stays typed.
func TestTried(t *testing.T) {
	cause := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	if err := Tried(cause, 1); err != cause {
		t.Errorf("Tried(err, 1) = %v, want err itself", err)
	}
	if Tried(nil, 3) != nil {
		t.Error("Tried(nil, 3) is not nil")
	}
	err := Tried(cause, 3)
	var ae *AttemptsError
	if !errors.As(err, &ae) || ae.Attempts != 3 || !errors.Is(err, syscall.ECONNREFUSED) || !Transient(err) {
		t.Errorf("Tried(err, 3) = %#v: not typed", err)
	}
	if want := cause.Error() + " (3 attempts)"; err.Error() != want {
		t.Errorf("Tried(err, 3) = %q, want %q", err, want)
	}
}

// Announce calls OnRetry with the retry's number and the policy's Max;
// without OnRetry it does nothing.
func TestAnnounce(t *testing.T) {
	Policy{Max: 2}.Announce(1, time.Second, io.EOF) // no OnRetry: no panic
	var got []string
	p := Policy{Max: 3, OnRetry: func(n, max int, wait time.Duration, err error) {
		got = append(got, fmt.Sprintf("%d/%d %v %v", n, max, wait, err))
	}}
	p.Announce(2, 1100*time.Millisecond, io.EOF)
	if want := []string{"2/3 1.1s EOF"}; !slices.Equal(got, want) {
		t.Errorf("OnRetry got %q, want %q", got, want)
	}
}
