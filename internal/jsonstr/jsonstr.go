// Package jsonstr appends strings as JSON strings (RFC 8259 section 7),
// escaped byte for byte as encoding/json escapes them, for the files the
// program writes by hand (a mirror's manifest, a CDXJ index) where
// encoding/json's reflection would cost more than the rest of the line.
package jsonstr

import "unicode/utf8"

// Append appends s to b as a JSON string, escaped as encoding/json
// escapes it: '"', '\\' and control characters (\n, \r, \t, \b and \f by
// name, the others as \u00XX), U+2028 and U+2029 as \u2028 and \u2029,
// each byte that is not valid UTF-8 as \ufffd, and with html '<', '>' and
// '&' as \u003c, \u003e and \u0026 (encoding/json's default; without it,
// as an Encoder with SetEscapeHTML(false) writes them).
func Append(b []byte, s string, html bool) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && (!html || c != '<' && c != '>' && c != '&') {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
