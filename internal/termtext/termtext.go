// Package termtext makes text from a server safe to show on a terminal:
// the one family of sanitizers of the module. What a terminal may act on
// is the same for all (C0 controls, DEL, the C1 controls, bytes that are
// not UTF-8, and for listings the runes that reorder the line); the forms
// differ by where the text goes:
//
//   - Escape: trace lines and error messages (FTP): unsafe text is
//     written with Go escapes, so that the bytes can be read back;
//   - Mask: a gopher menu's display strings: each control becomes "?",
//     and a byte that is not UTF-8 above the C1 range (Latin-1 text) is
//     left as it is;
//   - Strip: a warning line: the controls are dropped;
//   - Quote: one value in a line (a mail address, a telnet user name):
//     the whole value quoted when any rune is not printable;
//   - Listing: a name in a directory listing: controls become "?", bytes
//     that are not UTF-8 "\xNN" (as "ls -b"), reordering runes "\uXXXX".
package termtext

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// control reports a C0 control, DEL or a C1 control.
func control(r rune) bool {
	return r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0
}

// Escape cuts s at max bytes and, when it holds a C0 control other than
// TAB, DEL or a byte that is not UTF-8, writes it as strconv.Quote does,
// without the quotes.
func Escape(s string, max int) string {
	if len(s) > max {
		s = s[:max]
	}
	clean := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 && c != '\t' || c == 0x7f {
			clean = false
			break
		}
	}
	if clean && utf8.ValidString(s) {
		return s
	}
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
}

// Mask replaces control characters (C0, DEL, C1, and bytes that are not
// UTF-8 in the C1 range) with "?".
func Mask(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x7f {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	return rewrite(s, 0, func(b *strings.Builder, r rune, raw string) {
		switch {
		case r == utf8.RuneError && len(raw) == 1 && !control(rune(raw[0])):
			b.WriteString(raw) // a Latin-1 byte above the C1 range
		case control(r) || r == utf8.RuneError && len(raw) == 1:
			b.WriteByte('?')
		default:
			b.WriteString(raw)
		}
	})
}

// Strip removes the control characters of s (C0, DEL and C1, line ends
// and escape sequences' introducers among them).
func Strip(s string) string {
	return strings.Map(func(r rune) rune {
		if control(r) {
			return -1
		}
		return r
	}, s)
}

// Quote returns s, or s quoted when it holds bytes a terminal might
// interpret (escape sequences, control characters, invalid UTF-8).
func Quote(s string) string {
	for _, r := range s {
		if !strconv.IsPrint(r) || r == '\ufffd' {
			return strconv.Quote(s)
		}
	}
	return s
}

// Listing replaces control characters other than newline and tab with
// '?', so that a hostile listing cannot drive the terminal, and writes
// each byte that is not UTF-8 (a Latin-1 name of an old archive) as \xNN,
// as "ls -b" does, so that two such names are told apart. The runes that
// reorder (a name "x\u202egpj.exe" shows as "xexe.jpg") are written as
// \uXXXX, so that what is shown is what the name holds.
func Listing(s string) string {
	ok := func(r rune, size int) bool {
		return !(control(r) && r != '\n' && r != '\t' || r == utf8.RuneError && size == 1 || Reorders(r))
	}
	i := 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !ok(r, size) {
			break
		}
		i += size
	}
	if i == len(s) {
		return s
	}
	return rewrite(s, i, func(b *strings.Builder, r rune, raw string) {
		switch {
		case r == utf8.RuneError && len(raw) == 1:
			fmt.Fprintf(b, "\\x%02x", raw[0])
		case Reorders(r):
			fmt.Fprintf(b, "\\u%04x", r)
		case !ok(r, len(raw)):
			b.WriteByte('?')
		default:
			b.WriteString(raw)
		}
	})
}

// rewrite returns s[:i] and then each rune of s[i:] as put writes it: r
// is the rune and raw its bytes (one byte, with r utf8.RuneError, for a
// byte that is not UTF-8).
func rewrite(s string, i int, put func(b *strings.Builder, r rune, raw string)) string {
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		put(&b, r, s[i:i+size])
		i += size
	}
	return b.String()
}

// Reorders reports the runes that change how a terminal lays out the text
// around them: the bidirectional marks, embeddings, overrides and isolates
// (Unicode Standard Annex #9: U+061C, U+200E, U+200F, U+202A to U+202E,
// U+2066 to U+2069) and the line and paragraph separators (U+2028, U+2029).
func Reorders(r rune) bool {
	switch {
	case r == 0x061c, r == 0x200e, r == 0x200f:
		return true
	case r >= 0x2028 && r <= 0x202e:
		return true
	case r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}
