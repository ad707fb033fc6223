package uri

import (
	"cmp"
	"strconv"
	"strings"
)

// Normalize returns a copy of u in the normal form used by Equal. It applies
// the equivalences of RFC 2396 section 6 (seed 003), which every scheme of
// RFC 1738 with a server part shares, and the escape rules of seed 003
// section 2.4.2:
//
//   - the scheme and the host are in lower case (US-ASCII letters only);
//   - a port equal to the scheme's default port is elided, as is a ":" with
//     no port, and leading zeros of a port are dropped;
//   - an escape of an unreserved character (letters, digits, "-", ".",
//     "_", "~": the set common to RFC 2396 section 2.3 and RFC 3986
//     section 2.3) is decoded, in every component ("%7e" is "~", seed 003
//     section 2.4.2);
//   - every other escape has upper-case hex digits ("%2f" is "%2F");
//   - an empty path is "/" for http, https, ftp, gopher and telnet URLs with
//     a server part, whose syntax lets the "/" be omitted (RFC 1738
//     sections 3.2.2, 3.3, 3.4 and 3.8).
//
// It does not remove dot segments (for ftp "a/../b" is three commands, not
// one) and keeps the fragment, an empty query ("?") and the user
// information as they are apart from escapes. u is not modified.
func Normalize(u *URL) *URL {
	n := *u
	n.Scheme = strings.ToLower(u.Scheme)
	n.Host = lowerASCII(u.Host)
	n.emptyPort = false
	if p := cmp.Or(strings.TrimLeft(u.Port, "0"), "0"); u.Port != "" {
		if d, err := strconv.Atoi(p); err == nil && d == DefaultPort(n.Scheme) && d != 0 {
			p = ""
		}
		n.Port = p
	}
	if ui := u.User; ui != nil {
		n.User = &Userinfo{
			username:    normEscapes(ui.username),
			password:    normEscapes(ui.password),
			passwordSet: ui.passwordSet,
		}
	}
	n.Opaque = normEscapes(u.Opaque)
	n.Path = normEscapes(u.Path)
	n.RawQuery = normEscapes(u.RawQuery)
	n.Fragment = normEscapes(u.Fragment)
	if n.Path == "" && n.Opaque == "" && n.hasServer() {
		switch n.Scheme {
		case "http", "https", "ftp", "gopher", "telnet":
			n.Path = "/"
		}
	}
	return &n
}

// Equal reports whether a and b are equivalent URL references: whether
// their normal forms (Normalize) are the same. Two nil URLs are equal.
func Equal(a, b *URL) bool {
	if a == nil || b == nil {
		return a == b
	}
	return Normalize(a).String() == Normalize(b).String()
}

// lowerASCII maps A-Z to a-z and leaves every other byte alone (octets
// from 0x80 belong to internationalised names, which IDNA maps).
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if 'A' <= b[j] && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// isUnreserved3986 is the unreserved set that Normalize decodes.
func isUnreserved3986(c byte) bool {
	return isAlnum(c) || c == '-' || c == '.' || c == '_' || c == '~'
}

// normEscapes decodes escapes of unreserved characters and upper-cases the
// hex digits of the others. A malformed escape is left as it is.
func normEscapes(s string) string {
	i := strings.IndexByte(s, '%')
	if i < 0 {
		return s
	}
	b := make([]byte, 0, len(s))
	b = append(b, s[:i]...)
	for ; i < len(s); i++ {
		c := s[i]
		if c != '%' || i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
			b = append(b, c)
			continue
		}
		d := unhex(s[i+1])<<4 | unhex(s[i+2])
		if isUnreserved3986(d) {
			b = append(b, d)
		} else {
			b = append(b, '%', upperHex[d>>4], upperHex[d&15])
		}
		i += 2
	}
	return string(b)
}
