package fetch

import (
	"context"
	"errors"
	"net"
	"os"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/safety"
	"github.com/rfc1738/fetch/uri"
)

// Error is the error of every Client operation: what was being done, to
// which URL, and why.
type Error struct {
	// Op is "parse", "check", "get", "redirect" (the target of a
	// redirect), "gateway" (the gateway URL a scheme is fetched through),
	// "mirror" or "warc".
	Op string
	// URL is the URL concerned, always redacted (no password).
	URL string
	// Err is the cause.
	Err error
}

// Error names the URL and the cause; the operation too, but for "get" and
// "mirror", which the URL says.
func (e *Error) Error() string {
	if e.Op == "get" || e.Op == "mirror" {
		return "fetch: " + e.URL + ": " + e.Err.Error()
	}
	return "fetch: " + e.Op + " " + e.URL + ": " + e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// Timeout reports whether the operation failed because a time limit ran
// out (connect, idle or total).
func (e *Error) Timeout() bool {
	var ne net.Error
	return errors.Is(e.Err, context.DeadlineExceeded) || errors.Is(e.Err, os.ErrDeadlineExceeded) ||
		errors.As(e.Err, &ne) && ne.Timeout()
}

var (
	// ErrUnsupportedScheme is wrapped, with the scheme name, when the
	// registry has no driver for a URL's scheme.
	ErrUnsupportedScheme = errors.New("fetch: unsupported scheme")

	// ErrTooManyRedirects is wrapped when a chain of redirects is longer
	// than Client.MaxRedirects.
	ErrTooManyRedirects = errors.New("fetch: too many redirects")
)

// RuleRedirectToFile is the rule id of a redirect from a network URL to a
// file URL, which the client refuses (it would read this machine's files
// on a remote server's say).
const RuleRedirectToFile = "redirect-to-file"

// RedirectError is a redirect the client refuses to follow; nothing was
// sent to its target. It satisfies errors.Is(err, safety.ErrRefused).
type RedirectError struct {
	// Rule is the rule id: RuleRedirectToFile, RuleRedirectProtocol,
	// RuleRedirectToPrivate or RuleRedirectOffMirror.
	Rule string
	// From and To are the redacted URLs.
	From, To string
	// Address and Reason are, for RuleRedirectToPrivate, the address
	// ("ip:port") the target resolved to and its range ("loopback",
	// "private (RFC 1918)", ...). Empty for the other rules.
	Address, Reason string
}

func (e *RedirectError) Error() string {
	s := "fetch: refused redirect from " + e.From + " to " + e.To + ": " + e.Rule
	if e.Address != "" {
		s += " (" + e.Address + " is " + e.Reason + ")"
	}
	return s
}

// Unwrap returns safety.ErrRefused.
func (e *RedirectError) Unwrap() error { return safety.ErrRefused }

// Exit codes of the fetch command, by error class (DESIGN.md):
//
//	0 ExitOK        success
//	1 ExitError     any other failure
//	2 ExitUsage     usage error; a request that needs input nobody can give
//	3 ExitMalformed malformed URL
//	4 ExitRefused   refused by the safety policy (nothing was sent)
//	5 ExitNetwork   network failure: connect, DNS, timeout, connection lost;
//	                a server that cannot serve now (NNTP 400)
//	6 ExitServer    the server refused: not found, permission denied, login failed
//	7 ExitNoAccess  no access method (wais/prospero without gateway,
//	                file: on another host, unsupported scheme)
//	8 ExitPartial   some of several URLs, or some mirror entries, failed
//	9 ExitProtocol  the server broke the protocol (proto.ErrProtocol)
const (
	ExitOK        = 0
	ExitError     = 1
	ExitUsage     = 2
	ExitMalformed = 3
	ExitRefused   = 4
	ExitNetwork   = 5
	ExitServer    = 6
	ExitNoAccess  = 7
	ExitPartial   = 8
	ExitProtocol  = 9
)

// ExitCode maps err onto the exit codes above. It never returns ExitUsage
// for anything but proto.ErrNeedInput, nor ExitPartial: those are the
// command's own decisions. A nil error is ExitOK. ExitNetwork is
// proto.Unreachable, which knows no scheme: the drivers wrap proto's
// sentinels for their own reply codes. The codes and this mapping stay in
// the library, not in the command: they are its documented API
// (docs/exit-codes.md, docs/library.md), and programs that embed the
// library exit with them.
func ExitCode(err error) int {
	var ue *uri.Error
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &ue):
		return ExitMalformed
	case errors.Is(err, safety.ErrRefused), errors.Is(err, proto.ErrUnsafeArgument):
		return ExitRefused
	case errors.Is(err, proto.ErrNeedInput):
		return ExitUsage
	case errors.Is(err, proto.ErrNotFound), errors.Is(err, proto.ErrPermission), errors.Is(err, proto.ErrLogin):
		return ExitServer
	case errors.Is(err, proto.ErrNoAccessMethod), errors.Is(err, ErrUnsupportedScheme):
		return ExitNoAccess
	case errors.Is(err, proto.ErrProtocol):
		return ExitProtocol
	case proto.Unreachable(err):
		return ExitNetwork
	}
	return ExitError
}
