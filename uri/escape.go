package uri

import (
	"strconv"
	"strings"
)

// Character classes of RFC 1738 section 2.2 (the BNF of seed 002 section 5)
// and seed 001 section 2. A URL is in escaped form: an octet outside these
// sets, or one with a reserved meaning in a component, is written as
// "%" HEX HEX.

// Reserved characters may have a special meaning inside a scheme
// (RFC 1738 section 2.2: ";", "/", "?", ":", "@", "=" and "&"). Seed 001
// section 2.1 adds "+", which PartQuery escapes.
const reservedChars = ";/?:@=&"

// isUnreserved reports the characters RFC 1738 section 2.2 allows unencoded
// for any purpose: "alphanumerics, the special characters "$-_.+!*'(),""
// (BNF: unreserved = alpha | digit | safe | extra).
func isUnreserved(c byte) bool {
	return isAlnum(c) || strings.IndexByte("$-_.+!*'(),", c) >= 0
}

// IsUnsafe reports whether c is one of the characters RFC 1738 section 2.2
// calls unsafe: space, <, >, ", #, %, {, }, |, \, ^, ~, [, ] and `, which must
// always be encoded. "#" and "%" are unsafe as data but structural in a URL,
// so callers checking already split components look at the others.
func IsUnsafe(c byte) bool {
	return strings.IndexByte(" <>\"#%{}|\\^~[]`", c) >= 0
}

// IsReserved reports whether c is reserved by RFC 1738 section 2.2 (";",
// "/", "?", ":", "@", "=" and "&"). Which of them are actually reserved
// depends on the component; see Part.
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

const upperHex = "0123456789ABCDEF"

// EscapeError reports a "%" not followed by two hexadecimal digits; it holds
// the offending text (at most three bytes; only "%" inside user
// information, which may be a password).
type EscapeError string

func (e EscapeError) Error() string {
	return "uri: invalid escape " + strconv.Quote(string(e))
}

// Unescape decodes every "%XX" in s (upper- or lower-case hex, RFC 1738
// section 2.2). It is applied once, to one component already split from
// its URL (seed 001 section 2.3.2): decoded text is never decoded again, so
// "%2541" becomes "%41", not "A". A "%" not followed by two hex digits is an
// EscapeError.
func Unescape(s string) (string, error) {
	d, bad := unescape(s)
	if bad >= 0 {
		return "", EscapeError(s[bad:min(bad+3, len(s))])
	}
	return d, nil
}

// unescape decodes s; on a bad escape it returns the escape's index.
func unescape(s string) (string, int) {
	i := strings.IndexByte(s, '%')
	if i < 0 {
		return s, -1
	}
	b := make([]byte, 0, len(s))
	b = append(b, s[:i]...)
	for ; i < len(s); i++ {
		c := s[i]
		if c != '%' {
			b = append(b, c)
			continue
		}
		if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
			return "", i
		}
		b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
		i += 2
	}
	return string(b), -1
}

// Escape encodes s for use as one component: every octet that is neither
// unreserved (RFC 1738 section 2.2: alphanumerics and "$-_.+!*'(),") nor
// listed in extraSafe is written as "%XX" with upper-case hex. Use
// extraSafe for characters that the component's syntax allows unencoded
// (for example "/" in an HTTP path), or use EscapePart. A "%" in s is data
// and becomes "%25": never escape a string that is already escaped.
func Escape(s, extraSafe string) string {
	return escape(s, func(c byte) bool { return isUnreserved(c) || strings.IndexByte(extraSafe, c) >= 0 })
}

// escape writes each octet of s that keep refuses as "%XX"; s itself
// when keep takes every one.
func escape(s string, keep func(c byte) bool) string {
	n := 0
	for i := 0; i < len(s); i++ {
		if !keep(s[i]) {
			n++
		}
	}
	if n == 0 {
		return s
	}
	b := make([]byte, 0, len(s)+2*n)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if keep(c) {
			b = append(b, c)
			continue
		}
		b = append(b, '%', upperHex[c>>4], upperHex[c&15])
	}
	return string(b)
}

// Part names a component whose escaping rules differ. Every Part escapes
// control characters, space, the unsafe characters of RFC 1738 section 2.2
// (including "~", which seed 001 section 2.2 made unreserved: %7E is
// equivalent and safe under both), "%", "#", and octets 80-FF.
type Part int

const (
	// PartUser is a user name or password (seed 002 section 5: user =
	// *[ uchar | ";" | "?" | "&" | "=" ]; seed 001 section 4.3.1 adds "+").
	// ":", "@", "/" and "?" are escaped (RFC 2396 section G.2 removed "?"
	// because parsers end the server part there).
	PartUser Part = iota
	// PartSegment is one path segment of ftp, http, file or prospero (seed
	// 002 section 5: fsegment, hsegment, psegment): "/", ";" and "?" are
	// escaped, ":", "@", "&" and "=" are kept.
	PartSegment
	// PartPath is a whole path of segments: like PartSegment but "/" is kept.
	PartPath
	// PartQuery is an http or wais search (seed 002 section 5: search =
	// *[ uchar | ";" | ":" | "@" | "&" | "=" ]): "/", "?" and "+" are escaped
	// ("+" is reserved in queries, seed 001 section 2.1).
	PartQuery
	// PartFragment is a fragment identifier (seed 001 section 3: fragment =
	// *urlchar): every reserved character is kept.
	PartFragment
	// PartSelector is a gopher selector, search or gopher+_string (RFC 1738
	// section 3.4: "Within the <gopher-path>, no characters are reserved"):
	// reserved characters, "?" included, are kept; a tab becomes %09.
	PartSelector
	// PartOpaque is the address of a mailto URL or the group or message-id
	// of a news URL (RFC 1738 sections 3.5 and 3.6: no reserved
	// characters): reserved characters are kept, except "/" and "?".
	PartOpaque
)

// partSafe lists, per Part, the characters kept besides the unreserved ones.
var partSafe = [...]string{
	PartUser:     ";&=+",
	PartSegment:  ":@&=+",
	PartPath:     ":@&=+/",
	PartQuery:    ";:@&=",
	PartFragment: ";/?:@&=+",
	PartSelector: ";/?:@&=+",
	PartOpaque:   ";:@&=+",
}

// EscapePart encodes the data string s for use as component p: the one
// time a URL may be escaped is when it is built from its parts (seed 001
// section 2.3.2). s is data: a "%" in it becomes "%25".
func EscapePart(s string, p Part) string {
	safe := ""
	if int(p) >= 0 && int(p) < len(partSafe) {
		safe = partSafe[p]
	}
	return escape(s, func(c byte) bool {
		return (isUnreserved(c) || strings.IndexByte(safe, c) >= 0) && !(p == PartQuery && c == '+')
	})
}
