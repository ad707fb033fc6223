// Package retry holds the retry policy that "fetch get" and the mirror
// share: which failures are worth another attempt (Transient), and how
// long to wait before it (Policy.Delay: exponential backoff with jitter,
// or the server's own Retry-After).
package retry

import (
	"context"
	"errors"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/rfc1738/fetch/internal/rate"
	"github.com/rfc1738/fetch/proto"
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

// retryDelayer is an error that carries the server's own wait before the
// next attempt (an HTTP Retry-After, RFC 9110 section 10.2.3), or zero.
type retryDelayer interface{ RetryDelay() time.Duration }

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
	var ra retryDelayer
	if errors.As(err, &ra) && ra.RetryDelay() > 0 {
		return min(ra.RetryDelay(), limit)
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
func Wait(ctx context.Context, d time.Duration) error { return rate.Sleep(ctx, d) }

// Transient reports whether err is worth another attempt: it is
// proto.Transient, the one classifier of failures, which the drivers
// feed by wrapping proto's sentinels for their own reply codes (FTP 421,
// 425, 426, 450, 451 and vsftpd's "500 OOPS"; NNTP 400; HTTP 408, 429
// and 5xx). This package keeps the policy and the backoff only.
func Transient(err error) bool { return proto.Transient(err) }

// ErrTooSlow is wrapped by a SpeedError. It is proto.ErrTooSlow, which
// proto.Transient counts.
var ErrTooSlow = proto.ErrTooSlow

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
