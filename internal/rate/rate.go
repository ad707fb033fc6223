// Package rate holds the politeness machinery of fetch: the parser of
// curl's rate values ("100k"), a token bucket that paces the bytes of one
// or many bodies, a pacer that spaces the requests to one host, and a gate
// that bounds the connections to one host.
//
// Every wait honours its context. Nothing here costs anything to a caller
// that does not use it: fetch wraps a body or consults a pacer only when
// the matching limit is set.
package rate

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Parse errors, for errors.Is.
var (
	// ErrSyntax: the value is not a number of bytes with an optional
	// suffix.
	ErrSyntax = errors.New("want a number of bytes a second, optionally with a suffix k, m, g, t or p (1024-based)")
	// ErrRange: the value does not fit in an int64.
	ErrRange = errors.New("too large")
)

// Error is a rate value that could not be parsed.
type Error struct {
	Value string // the value as given
	Err   error  // ErrSyntax or ErrRange
}

func (e *Error) Error() string { return fmt.Sprintf("rate %q: %v", e.Value, e.Err) }
func (e *Error) Unwrap() error { return e.Err }

// Parse reads a rate in bytes a second as curl's --limit-rate takes it: a
// decimal number, optionally with a fraction ("1.5"), followed by an
// optional suffix k, m, g, t or p in either case, each 1024 times the one
// before (curl(1), --limit-rate: "The given speed is measured in
// bytes/second, unless a suffix is appended... 1024 based"). The result
// is rounded down to whole bytes. Zero means no limit, as with curl and
// wget.
func Parse(s string) (int64, error) {
	num := s
	var mult int64 = 1
	if n := len(s); n > 0 {
		// |0x20 lower-cases the suffix letters and changes no other byte
		// into one of them.
		if i := strings.IndexByte("kmgtp", s[n-1]|0x20); i >= 0 {
			mult, num = 1<<(10*(i+1)), s[:n-1]
		}
	}
	whole, frac, dot := strings.Cut(num, ".")
	if whole == "" || !digits(whole) || (dot && (frac == "" || !digits(frac))) {
		return 0, &Error{Value: s, Err: ErrSyntax}
	}
	n, err := strconv.ParseInt(whole, 10, 64)
	if err != nil || n > math.MaxInt64/mult {
		return 0, &Error{Value: s, Err: ErrRange}
	}
	n *= mult
	if dot {
		// The fraction's share, below mult: exact enough in float64
		// (a suffix is a power of two), rounded down.
		f, _ := strconv.ParseFloat("0."+frac, 64)
		part := min(int64(math.Floor(f*float64(mult))), mult-1)
		if n > math.MaxInt64-part {
			return 0, &Error{Value: s, Err: ErrRange}
		}
		n += part
	}
	return n, nil
}

// digits reports whether s is made of ASCII digits only.
func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Format writes n bytes a second the way Parse reads it, with the largest
// suffix that divides it exactly ("1M", "1536k", "100").
func Format(n int64) string {
	for _, u := range []struct {
		suffix string
		size   int64
	}{{"P", 1 << 50}, {"T", 1 << 40}, {"G", 1 << 30}, {"M", 1 << 20}, {"k", 1 << 10}} {
		if n != 0 && n%u.size == 0 {
			return strconv.FormatInt(n/u.size, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}
