package proto

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"os"
	"slices"
	"syscall"

	"github.com/rfc1738/fetch/safety"
	"github.com/rfc1738/fetch/uri"
)

// The classification of failures: which are worth another attempt
// (Transient, used by the retry policy of "fetch get" and of the mirror),
// which are a failure of the network (Unreachable, the command's exit 5),
// and which are a refusal that no attempt will change (Refused). Drivers
// take part by wrapping the sentinels below for their own reply codes;
// nothing here knows a scheme.
var (
	// ErrTransient: the server answered "not now" to a request: another
	// attempt later may succeed (FTP 421, 425, 426, 450, 451 and
	// vsftpd's "500 OOPS"; HTTP 408, 429 and 5xx). Transient counts it;
	// Unreachable does not: the server was reached.
	ErrTransient = errors.New("the server says: try again later")
	// ErrUnavailable: the server closed the session saying it cannot
	// serve now but will later (NNTP 400, RFC 3977 section 3.2.1).
	// Transient and Unreachable both count it.
	ErrUnavailable = errors.New("service temporarily unavailable")
	// ErrTooSlow: a transfer cut because it was slower than the caller's
	// speed limit. Transient and Unreachable both count it.
	ErrTooSlow = errors.New("transfer too slow")
)

// Refused reports whether err is a refusal that another attempt meets
// again: not found, permission denied, a login failure, no access
// method, input that nobody can give, an argument that would inject a
// command, or the safety policy. The mirror's single retry without a
// policy tries everything else once more.
func Refused(err error) bool {
	return slices.ContainsFunc([]error{ErrNotFound, ErrPermission, ErrLogin, ErrUnsafeArgument,
		ErrNoAccessMethod, ErrNeedInput, safety.ErrRefused}, func(permanent error) bool { return errors.Is(err, permanent) })
}

// Transient reports whether err is a failure that another attempt may not
// meet: the connection refused, reset, cut (io.EOF included) or timed
// out, a name server that failed for now, a transfer too slow
// (ErrTooSlow), the server busy (ErrBusy) or saying "try later"
// (ErrTransient, ErrUnavailable).
//
// Everything else is permanent, and these always, whatever else the error
// wraps: a refusal (Refused), a malformed URL, a certificate that does
// not verify, the caller's cancellation, and a server that broke the
// protocol (ErrProtocol): the same server gives the same malformed reply,
// and a retry only adds load. A reply cut by a lost connection is no
// protocol error (the drivers wrap io.ErrUnexpectedEOF) and is tried
// again.
func Transient(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || Refused(err) || errors.Is(err, ErrProtocol) {
		return false
	}
	var (
		ue *uri.Error
		ce *tls.CertificateVerificationError
		de *net.DNSError
	)
	switch {
	case errors.As(err, &ue), errors.As(err, &ce):
		return false
	case errors.Is(err, ErrBusy), errors.Is(err, ErrTransient), errors.Is(err, ErrUnavailable), errors.Is(err, ErrTooSlow):
		return true
	case errors.As(err, &de):
		return de.IsTemporary || de.IsTimeout
	}
	// io.EOF and ECONNABORTED are a connection ended at a point where a
	// reply was due: worth another attempt, though Unreachable does not
	// count them (a plain EOF can also be a driver's own end of input).
	return lostConnection(err) || errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNABORTED)
}

// Unreachable reports a failure to reach the server or to keep talking to
// it, or a server that said it cannot serve now (ErrBusy, ErrUnavailable),
// or a transfer too slow: the command's exit 5. It differs from Transient
// in both directions: a name that does not resolve and a certificate that
// does not verify are network failures that a retry does not mend, and a
// server's "try later" reply (ErrTransient) came from a server that was
// reached. A server that broke the protocol is not in it: the command
// gives ErrProtocol its own exit code first.
func Unreachable(err error) bool {
	var (
		de *net.DNSError
		ce *tls.CertificateVerificationError
	)
	return errors.As(err, &de) || errors.As(err, &ce) || lostConnection(err) ||
		errors.Is(err, ErrBusy) || errors.Is(err, ErrUnavailable) || errors.Is(err, ErrTooSlow)
}

// lostConnection reports a connection refused, reset, closed, cut in the
// middle of a reply or timed out. (net.Error alone is not enough: every
// syscall.Errno implements it; only its Timeout is asked.)
func lostConnection(err error) bool {
	var (
		ne net.Error
		oe *net.OpError
	)
	return errors.As(err, &oe) || errors.As(err, &ne) && ne.Timeout() ||
		errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.EPIPE)
}
