package uri

import "fmt"

// Error is a malformed URL: what is wrong, in which component, and at which
// byte offset of the input. It never holds the input itself, which may carry
// a password.
type Error struct {
	// Offset is the 0-based byte offset in the input where the problem is.
	Offset int
	// Component names the part being parsed: "scheme", "userinfo", "host",
	// "port", "path", "query", "fragment", or a scheme-specific part such as
	// "ftp typecode".
	Component string
	// Err is the cause; an EscapeError for a bad "%" escape.
	Err error
}

func (e *Error) Error() string {
	return fmt.Sprintf("uri: %v at offset %d in %s", e.Err, e.Offset, e.Component)
}

func (e *Error) Unwrap() error { return e.Err }

// Reason is a leaf parse error: a short description of the problem.
type Reason string

func (r Reason) Error() string { return string(r) }

func errAt(off int, comp string, err error) *Error {
	return &Error{Offset: off, Component: comp, Err: err}
}

func reasonf(format string, args ...any) error { return Reason(fmt.Sprintf(format, args...)) }
