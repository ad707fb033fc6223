// Package retry holds the retry policy that "fetch get" and the mirror
// share: which failures are worth another attempt (Transient), and how
// long to wait before it (Policy.Delay: exponential backoff with jitter,
// or the server's own Retry-After).
package retry

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"net/textproto"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/proto/http"
	"github.com/rfc1738/fetch/proto/nntp"
	"github.com/rfc1738/fetch/safety"
	"github.com/rfc1738/fetch/uri"
)

// Defaults of Policy.
const (
	// DefaultBase is the first wait, doubled at each retry (as curl's).
	DefaultBase = time.Second
	// DefaultCap bounds one wait, Retry-After included.
	DefaultCap = 60 * time.Second
)

// Policy says how often and for how long a failed transfer is tried again.
// The zero value tries nothing again.
type Policy struct {
	// Max is the number of attempts after the first. Zero means none.
	Max int
	// MaxTime bounds the time from the first attempt after which no retry
	// starts (curl's --retry-max-time). Zero means no bound but Max.
	MaxTime time.Duration
	// Base is the wait before the first retry; it doubles at each one.
	// Zero means DefaultBase.
	Base time.Duration
	// Cap bounds each wait, a server's Retry-After included. Zero means
	// DefaultCap.
	Cap time.Duration
	// OnRetry, when not nil, is called before each wait for a retry: n is
	// the retry's number (1 for the first), of at most max; wait is how
	// long until it starts; err is the failure that it answers. A program
	// announces the retry with it (the library prints nothing). It may be
	// called from several goroutines at once (a mirror's workers).
	OnRetry func(n, max int, wait time.Duration, err error)
}

// Announce calls OnRetry, if set, for retry number n after err.
func (p Policy) Announce(n int, wait time.Duration, err error) {
	if p.OnRetry != nil {
		p.OnRetry(n, p.Max, wait, err)
	}
}

// AttemptsError is the last failure of an operation that was tried
// Attempts times: its message ends with the count, "(3 attempts)".
type AttemptsError struct {
	Attempts int
	Err      error
}

func (e *AttemptsError) Error() string {
	return e.Err.Error() + " (" + strconv.Itoa(e.Attempts) + " attempts)"
}

// Unwrap returns the last failure.
func (e *AttemptsError) Unwrap() error { return e.Err }

// Tried returns err, the last failure after attempts attempts, as an
// *AttemptsError when there was more than one; else err itself.
func Tried(err error, attempts int) error {
	if err == nil || attempts < 2 {
		return err
	}
	return &AttemptsError{Attempts: attempts, Err: err}
}

// Delay returns the wait before retry number n (1 for the first) after
// err: the server's Retry-After when it gave one, else Base*2^(n-1) with
// jitter (a random point in its upper half), either bounded by Cap.
func (p Policy) Delay(n int, err error) time.Duration {
	base, limit := p.Base, p.Cap
	if base <= 0 {
		base = DefaultBase
	}
	if limit <= 0 {
		limit = DefaultCap
	}
	var se *http.StatusError
	if errors.As(err, &se) && se.RetryAfter > 0 {
		return min(se.RetryAfter, limit)
	}
	d := base
	for i := 1; i < n && d < limit; i++ {
		d *= 2
	}
	d = min(d, limit)
	return d/2 + rand.N(d/2+1)
}

// Allow reports whether retry number n may start after a wait of delay,
// the first attempt having started at start.
func (p Policy) Allow(n int, start time.Time, delay time.Duration) bool {
	if n > p.Max {
		return false
	}
	return p.MaxTime <= 0 || time.Since(start)+delay <= p.MaxTime
}

// Wait sleeps d, or until ctx is done; it returns ctx's error then.
func Wait(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Transient reports whether err is a failure that another attempt may not
// meet: the connection refused, reset, cut or timed out; a transfer cut
// short or too slow (ErrTooSlow); the server busy (proto.ErrBusy) or
// saying "try later": FTP 421, 425, 426, 450, 451 (RFC 959 section 4.2)
// and vsftpd's "500 OOPS", NNTP 400 (RFC 3977 section 3.2.1), HTTP 408,
// 429 and 5xx (RFC 9110 section 15, RFC 6585 section 4).
//
// Everything else is permanent, and these always: a malformed URL, a
// safety refusal, an argument that would inject a command, a login
// failure, not found, permission denied, no access method, input that
// nobody can give, a certificate that does not verify, and the caller's
// cancellation.
func Transient(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	var (
		ue *uri.Error
		ce *tls.CertificateVerificationError
	)
	if errors.As(err, &ue) || errors.As(err, &ce) {
		return false
	}
	// A server that broke the protocol (proto.ErrProtocol, exit 9) is
	// not tried again, whatever else the error wraps: the same server
	// gives the same malformed or over-long reply, and a retry only adds
	// load and delay. A reply cut by a lost connection is no protocol
	// error (the drivers wrap io.ErrUnexpectedEOF) and is tried again.
	for _, permanent := range []error{safety.ErrRefused, proto.ErrUnsafeArgument, proto.ErrLogin,
		proto.ErrNotFound, proto.ErrPermission, proto.ErrNoAccessMethod, proto.ErrNeedInput, proto.ErrProtocol} {
		if errors.Is(err, permanent) {
			return false
		}
	}
	if errors.Is(err, proto.ErrBusy) || errors.Is(err, ErrTooSlow) || errors.Is(err, nntp.ErrServiceUnavailable) {
		return true
	}
	var se *http.StatusError
	if errors.As(err, &se) {
		return se.Code == 408 || se.Code == 429 || se.Code >= 500 && se.Code <= 599
	}
	var te *textproto.Error
	if errors.As(err, &te) {
		switch te.Code {
		case 400, 421, 425, 426, 450, 451:
			return true
		case 500:
			// vsftpd's "500 OOPS: ..." is its own failure (no free
			// passive port, a child that died), not a refusal of the
			// command: it ends the session, and a new one may work.
			return strings.HasPrefix(te.Msg, "OOPS")
		}
		return false
	}
	var (
		ne net.Error
		oe *net.OpError
		de *net.DNSError
	)
	if errors.As(err, &de) {
		return de.IsTemporary || de.IsTimeout
	}
	return errors.As(err, &oe) || errors.As(err, &ne) && ne.Timeout() ||
		errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.ECONNABORTED) || errors.Is(err, syscall.EPIPE)
}

// ErrTooSlow is wrapped by a SpeedError.
var ErrTooSlow = errors.New("transfer too slow")

// SpeedError is a transfer cut because it was slower than Limit bytes a
// second for Time (curl's --speed-limit and --speed-time).
type SpeedError struct {
	Limit int64         // bytes a second
	Time  time.Duration // how long it was slower
	Rate  int64         // the rate seen over that time, bytes a second
}

func (e *SpeedError) Error() string {
	return "transfer too slow: " + strconv.FormatInt(e.Rate, 10) + " bytes/s for " + e.Time.String() +
		", below the limit of " + strconv.FormatInt(e.Limit, 10) + " bytes/s"
}

// Unwrap returns ErrTooSlow.
func (e *SpeedError) Unwrap() error { return ErrTooSlow }
