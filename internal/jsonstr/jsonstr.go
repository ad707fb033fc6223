// Package jsonstr appends strings as JSON strings (RFC 8259 section 7),
// escaped byte for byte as encoding/json escapes them, for the files the
// program writes by hand (a mirror's manifest, a CDXJ index) where
// encoding/json's reflection would cost more than the rest of the line.
package jsonstr

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Append appends s to b as a JSON string, escaped as encoding/json
// escapes it: '"', '\\' and control characters (\n, \r, \t, \b and \f by
// name, the others as \u00XX), U+2028 and U+2029 as \u2028 and \u2029,
// each byte that is not valid UTF-8 as \ufffd, and with html '<', '>' and
// '&' as \u003c, \u003e and \u0026 (encoding/json's default; without it,
// as an Encoder with SetEscapeHTML(false) writes them).
func Append(b []byte, s string, html bool) []byte {
	return appendString(b, s, html, false)
}

// AppendBytes appends s as Append does, except for the bytes that are not
// valid UTF-8: each is written as the escape of a lone low surrogate,
// \udc80 to \udcff for the bytes 0x80 to 0xff, as Python's surrogateescape
// (PEP 383) writes them, so that a string of bytes in another charset (a
// remote file name in Latin-1 or Shift JIS) comes back byte for byte:
// through KeepBytes and RestoreBytes here, and through Python's json and
// os.fsencode. encoding/json alone reads each such escape as U+FFFD. For
// valid UTF-8 the result is Append's.
func AppendBytes(b []byte, s string, html bool) []byte {
	return appendString(b, s, html, true)
}

const hex = "0123456789abcdef"

func appendString(b []byte, s string, html, raw bool) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && (!html || c != '<' && c != '>' && c != '&') {
				i++
				continue
			}
			b = appendEscape(append(b, s[start:i]...), c)
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r != utf8.RuneError || size != 1) && r != '\u2028' && r != '\u2029' {
			i += size
			continue
		}
		b = appendOdd(append(b, s[start:i]...), r, s[i], raw)
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendEscape appends the escape of the ASCII byte c.
func appendEscape(b []byte, c byte) []byte {
	switch c {
	case '"', '\\':
		return append(b, '\\', c)
	case '\n':
		return append(b, '\\', 'n')
	case '\r':
		return append(b, '\\', 'r')
	case '\t':
		return append(b, '\\', 't')
	case '\b':
		return append(b, '\\', 'b')
	case '\f':
		return append(b, '\\', 'f')
	}
	return append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
}

// appendOdd appends the escape of r when it is U+2028 or U+2029, else
// of c, a byte that is not valid UTF-8 (r is utf8.RuneError): \ufffd, or
// with raw its lone low surrogate (see AppendBytes).
func appendOdd(b []byte, r rune, c byte, raw bool) []byte {
	switch {
	case r == '\u2028' || r == '\u2029':
		return append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
	case raw:
		return append(b, '\\', 'u', 'd', 'c', hex[c>>4], hex[c&0xf])
	}
	return append(b, `\ufffd`...)
}

// KeepBytes rewrites a JSON document so that encoding/json keeps what
// AppendBytes wrote: in its strings, each escape \udc80 to \udcff that is
// not the second half of a surrogate pair becomes \u0000 followed by the
// byte's two hex digits, and each \u0000 becomes two. RestoreBytes undoes
// that on each string decoded. A document with no such escape is returned
// as it is, with changed false: its strings need no restoring. A document
// that is not JSON is returned too, changed or not, for the decoder to
// refuse.
func KeepBytes(doc []byte) (out []byte, changed bool) {
	if scanEscapes(doc, nil) == nil {
		return doc, false
	}
	return scanEscapes(doc, make([]byte, 0, len(doc)+len(doc)/8)), true
}

// scanEscapes walks doc's strings. With out nil it returns a non-nil
// slice at the first escaped byte and nil when there is none; otherwise
// it returns doc rewritten (see KeepBytes), appended to out.
func scanEscapes(doc, out []byte) []byte {
	inString, afterHigh := false, false
	for i := 0; i < len(doc); {
		c := doc[i]
		if !inString || c != '\\' || i+1 >= len(doc) {
			if c == '"' {
				inString = !inString
			}
			if out != nil {
				out = append(out, c)
			}
			afterHigh = false
			i++
			continue
		}
		if doc[i+1] != 'u' || i+6 > len(doc) {
			if out != nil {
				out = append(out, doc[i:i+2]...)
			}
			afterHigh = false
			i += 2
			continue
		}
		var escaped bool
		out, escaped, afterHigh = rewriteU(out, doc[i:i+6], afterHigh)
		if escaped && out == nil {
			return []byte{}
		}
		i += 6
	}
	return out
}

// rewriteU appends the escape e (\uXXXX) to out, rewritten as KeepBytes
// says, unless out is nil. It reports whether e is an escaped byte (not
// after a high surrogate, afterHigh), and whether it is a high surrogate.
func rewriteU(out, e []byte, afterHigh bool) (o []byte, escaped, high bool) {
	v, ok := hex4(e[2:6])
	switch {
	case ok && v >= 0xdc80 && v <= 0xdcff && !afterHigh:
		escaped = true
		if out != nil {
			out = append(out, `\u0000`...)
			out = append(out, hex[v>>4&0xf], hex[v&0xf])
		}
	case ok && v == 0 && out != nil:
		out = append(out, `\u0000\u0000`...)
	case out != nil:
		out = append(out, e...)
	}
	return out, escaped, ok && v >= 0xd800 && v <= 0xdbff
}

// hex4 reads four hex digits.
func hex4(p []byte) (rune, bool) {
	v, err := strconv.ParseUint(string(p), 16, 16)
	return rune(v), err == nil
}

// RestoreBytes undoes, on a string decoded from a document KeepBytes
// changed, what KeepBytes did: NUL and two hex digits is that byte, two
// NULs are one.
func RestoreBytes(s string) string {
	i := strings.IndexByte(s, 0)
	if i < 0 {
		return s
	}
	b := make([]byte, 0, len(s))
	b = append(b, s[:i]...)
	for i < len(s) {
		c := s[i]
		if c != 0 {
			b = append(b, c)
			i++
			continue
		}
		if i+1 < len(s) && s[i+1] == 0 {
			b = append(b, 0)
			i += 2
			continue
		}
		if i+2 < len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
				b = append(b, byte(v))
				i += 3
				continue
			}
		}
		b = append(b, 0)
		i++
	}
	return string(b)
}
