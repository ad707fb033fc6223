package uri

import (
	"errors"
	"fmt"
	"strings"
)

// ErrOtherScheme is wrapped by the error of a scheme-specific view asked
// of a URL of another scheme (FTP of an http URL), so that a caller can
// try the views in turn and tell a URL of another scheme from a malformed
// one.
var ErrOtherScheme = errors.New("uri: URL of another scheme")

// Error is a malformed URL: what is wrong, in which component, and at which
// byte offset of the input. It never holds the input itself, which may carry
// a password, and a problem inside the user information names no character
// of it.
type Error struct {
	// Offset is the 0-based byte offset in the input where the problem is,
	// counted in the string as the caller wrote it (a scheme-specific view
	// counts in the string the URL was parsed from).
	Offset int
	// Component names the part being parsed: "scheme", "userinfo", "host",
	// "port", "path", "query", "fragment", "opaque part", or a
	// scheme-specific part such as "ftp typecode" or "gopher selector".
	Component string
	// Err is the cause: an EscapeError for a bad "%" escape, a Reason
	// otherwise.
	Err error
}

func (e *Error) Error() string {
	reason := "malformed"
	if e.Err != nil {
		reason = strings.TrimPrefix(e.Err.Error(), "uri: ")
	}
	return fmt.Sprintf("uri: %s at offset %d: %s", e.Component, e.Offset, reason)
}

func (e *Error) Unwrap() error { return e.Err }

// Reason is a leaf parse error: a short description of the problem.
type Reason string

func (r Reason) Error() string { return "uri: " + string(r) }

func errAt(off int, comp string, err error) *Error {
	return &Error{Offset: off, Component: comp, Err: err}
}

// otherScheme is the Reason of a view asked of a URL of another scheme.
type otherScheme string

func (r otherScheme) Error() string { return "uri: " + string(r) }

func (r otherScheme) Is(target error) bool { return target == ErrOtherScheme }

func reasonf(format string, args ...any) error { return Reason(fmt.Sprintf(format, args...)) }
