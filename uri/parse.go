package uri

import (
	"strconv"
	"strings"
)

// Parse parses a URL reference: an absolute URL of any scheme
// ("scheme:scheme-specific-part", RFC 1738 section 2.1) or a relative
// reference (the 1996 draft, seed 001 section 2.4). It splits the reference
// into its generic components (scheme, "//" user:password@host:port, path,
// "?" query, "#" fragment) and keeps each in escaped form.
//
// Parse rejects, with an *Error naming the byte offset: ASCII control
// characters anywhere (RFC 1738 section 2.2: they "must be encoded"), a "%"
// that does not start a valid escape, a host with characters no host name
// may have, an unencoded "@" in the user information, and a port that is not
// a decimal number from 0 to 65535. Unsafe printable characters (space in a
// path, "{", "|", ...) are accepted here and reported by package safety.
//
// Parse decodes nothing; the scheme-specific views (FTP, Gopher, ...) do that.
func Parse(s string) (*URL, error) {
	u := new(URL)
	rest := s
	off := 0 // offset of rest within s

	// Fragment first: "#" is never data in an escaped URL (seed 001 section 4.1).
	if i := strings.IndexByte(rest, '#'); i >= 0 {
		if err := checkChars(s, i+1, len(s), "fragment"); err != nil {
			return nil, err
		}
		u.Fragment = rest[i+1:]
		u.HasFragment = true
		rest = rest[:i]
	}

	if n := schemeLen(rest); n > 0 {
		u.Scheme = strings.ToLower(rest[:n])
		rest = rest[n+1:]
		off = n + 1
	} else if n < 0 {
		return nil, errAt(0, "scheme", Reason("scheme must start with a letter"))
	}

	if u.Scheme != "" && !strings.HasPrefix(rest, "/") {
		if err := checkChars(s, off, off+len(rest), "opaque part"); err != nil {
			return nil, err
		}
		u.Opaque = rest
		return u, nil
	}

	if strings.HasPrefix(rest, "//") {
		u.HasAuthority = true
		rest = rest[2:]
		off += 2
		end := strings.IndexAny(rest, "/?")
		if end < 0 {
			end = len(rest)
		}
		if err := u.parseAuthority(s, off, rest[:end]); err != nil {
			return nil, err
		}
		rest = rest[end:]
		off += end
	}

	path := rest
	if i := strings.IndexByte(rest, '?'); i >= 0 {
		path = rest[:i]
		if err := checkChars(s, off+i+1, off+len(rest), "query"); err != nil {
			return nil, err
		}
		u.RawQuery = rest[i+1:]
		u.ForceQuery = u.RawQuery == ""
	}
	if err := checkChars(s, off, off+len(path), "path"); err != nil {
		return nil, err
	}
	u.Path = path
	return u, nil
}

// MustParse is like Parse but panics on error. It is meant for tests and
// package-level variables holding constant URLs.
func MustParse(s string) *URL {
	u, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return u
}

// schemeLen returns the length of the scheme name at the start of s when s
// starts with "name:", 0 when s has no scheme, and -1 when s starts with ":".
// RFC 1738 section 2.1: scheme = 1*[ lowalpha | digit | "+" | "-" | "." ];
// the 1996 draft and RFC 2396 require a leading letter.
func schemeLen(s string) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isAlpha(c):
		case isDigit(c) || c == '+' || c == '-' || c == '.':
			if i == 0 {
				return 0
			}
		case c == ':':
			if i == 0 {
				return -1
			}
			return i
		default:
			return 0
		}
	}
	return 0
}

// checkChars validates s[from:to] as escaped component text: no control
// characters and no malformed escapes.
func checkChars(s string, from, to int, comp string) error {
	for i := from; i < to; i++ {
		c := s[i]
		switch {
		case IsControl(c):
			return errAt(i, comp, reasonf("invalid control character %q", c))
		case c == '%':
			if i+2 >= to || !isHex(s[i+1]) || !isHex(s[i+2]) {
				end := min(i+3, to)
				return errAt(i, comp, EscapeError(s[i:end]))
			}
			i += 2
		}
	}
	return nil
}

func (u *URL) parseAuthority(s string, off int, auth string) error {
	if i := strings.LastIndexByte(auth, '@'); i >= 0 {
		ui := auth[:i]
		if j := strings.IndexByte(ui, '@'); j >= 0 {
			return errAt(off+j, "userinfo", Reason(`unencoded "@" (write it as %40)`))
		}
		if err := checkChars(s, off, off+i, "userinfo"); err != nil {
			return err
		}
		if name, pass, ok := strings.Cut(ui, ":"); ok {
			u.User = UserPassword(name, pass)
		} else {
			u.User = User(ui)
		}
		auth = auth[i+1:]
		off += i + 1
	}
	host := auth
	port := ""
	portOff := -1
	if strings.HasPrefix(auth, "[") {
		end := strings.IndexByte(auth, ']')
		if end < 0 {
			return errAt(off, "host", Reason(`IPv6 literal without closing "]"`))
		}
		for i := 1; i < end; i++ {
			if c := auth[i]; !isHex(c) && c != ':' && c != '.' {
				return errAt(off+i, "host", reasonf("invalid character %q in IPv6 literal", c))
			}
		}
		host = auth[:end+1]
		switch after := auth[end+1:]; {
		case after == "":
		case after[0] == ':':
			port, portOff = after[1:], off+end+2
		default:
			return errAt(off+end+1, "host", reasonf("unexpected %q after IPv6 literal", after[0]))
		}
	} else if i := strings.LastIndexByte(auth, ':'); i >= 0 {
		host, port, portOff = auth[:i], auth[i+1:], off+i+1
	}
	for i := 0; i < len(host) && host[0] != '['; i++ {
		c := host[i]
		if !isAlnum(c) && c != '-' && c != '.' && c != '_' && c < 0x80 {
			return errAt(off+i, "host", reasonf("invalid character %q in host name", c))
		}
	}
	if port != "" {
		for i := 0; i < len(port); i++ {
			if !isDigit(port[i]) {
				return errAt(portOff+i, "port", reasonf("invalid character %q in port", port[i]))
			}
		}
		if n, err := strconv.Atoi(port); err != nil || n > 65535 {
			return errAt(portOff, "port", reasonf("port %s out of range 0-65535", port))
		}
	}
	u.Host = host
	u.Port = port
	return nil
}
