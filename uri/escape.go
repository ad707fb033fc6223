package uri

import (
	"strconv"
	"strings"
)

// Character classes of RFC 1738 section 2.2 and the 1996 URL draft section 2
// (seed 001). A URL is in escaped form: an octet outside these sets, or one
// with a reserved meaning in a component, is written as "%" HEX HEX.

// Reserved characters may have a special meaning inside a scheme
// (RFC 1738 section 2.2: ";", "/", "?", ":", "@", "=" and "&").
const reservedChars = ";/?:@=&"

// Unreserved characters never need encoding (the draft's "unreserved":
// alphanumerics plus the "mark" characters).
func isUnreserved(c byte) bool {
	return isAlnum(c) || strings.IndexByte("-_.!*'(),$+", c) >= 0
}

// IsUnsafe reports whether c is one of the characters RFC 1738 section 2.2
// calls unsafe: space, <, >, ", #, %, {, }, |, \, ^, ~, [, ] and `, which must
// always be encoded. "#" and "%" are unsafe as data but structural in a URL,
// so callers checking already split components look at the others.
func IsUnsafe(c byte) bool {
	return strings.IndexByte(" <>\"#%{}|\\^~[]`", c) >= 0
}

// IsReserved reports whether c is reserved by RFC 1738 section 2.2.
func IsReserved(c byte) bool { return strings.IndexByte(reservedChars, c) >= 0 }

// IsControl reports whether c is an US-ASCII control character (00-1F, 7F),
// which RFC 1738 section 2.2 says must never appear unencoded.
func IsControl(c byte) bool { return c < 0x20 || c == 0x7f }

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

func isAlpha(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isHex(c byte) bool {
	return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case isDigit(c):
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}

// EscapeError reports a "%" not followed by two hexadecimal digits; it holds
// the offending text (at most three bytes).
type EscapeError string

func (e EscapeError) Error() string {
	return "uri: invalid escape " + strconv.Quote(string(e))
}

// Unescape decodes every "%XX" in s (upper- or lower-case hex). It is applied
// once, to one component already split from its URL: decoded text is never
// decoded again, so "%2541" becomes "%41", not "A".
func Unescape(s string) (string, error) {
	n := strings.Count(s, "%")
	if n == 0 {
		return s, nil
	}
	b := make([]byte, 0, len(s)-2*n)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '%' {
			b = append(b, c)
			continue
		}
		if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
			end := min(i+3, len(s))
			return "", EscapeError(s[i:end])
		}
		b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
		i += 2
	}
	return string(b), nil
}

// Escape encodes s for use as one component: every octet that is not
// unreserved, and every octet listed in extraSafe is left alone, is
// written as "%XX" with upper-case hex. Use extraSafe for characters that the
// component's syntax allows unencoded (for example "/" in an HTTP path).
func Escape(s, extraSafe string) string {
	const hex = "0123456789ABCDEF"
	n := 0
	for i := 0; i < len(s); i++ {
		if !isUnreserved(s[i]) && strings.IndexByte(extraSafe, s[i]) < 0 {
			n++
		}
	}
	if n == 0 {
		return s
	}
	b := make([]byte, 0, len(s)+2*n)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if isUnreserved(c) || strings.IndexByte(extraSafe, c) >= 0 {
			b = append(b, c)
			continue
		}
		b = append(b, '%', hex[c>>4], hex[c&15])
	}
	return string(b)
}
