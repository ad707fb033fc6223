package fetch

import (
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/retry"
)

// Retry is the retry policy of "fetch get" and of the mirror
// (MirrorOptions.Retry): how many more attempts, for how long, and the
// backoff between them (exponential with jitter, or the server's
// Retry-After, bounded). The zero value tries nothing again.
type Retry = retry.Policy

// SpeedError is a transfer cut by Client.SpeedLimit: it names the rate
// seen and the limit. It wraps ErrTooSlow.
type SpeedError = retry.SpeedError

// ErrTooSlow is wrapped by every SpeedError.
var ErrTooSlow = retry.ErrTooSlow

// Transient reports whether err is worth another attempt: a connection
// refused, reset, cut or timed out, a transfer cut short or too slow, a
// server busy or saying "try later" (FTP 421, 425, 426, 450, 451; NNTP
// 400; HTTP 408, 429, 5xx). A malformed URL, a safety refusal, a login
// failure, not found and permission denied never are.
func Transient(err error) bool { return proto.Transient(err) }
