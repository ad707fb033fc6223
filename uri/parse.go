package uri

import (
	"net/netip"
	"strconv"
	"strings"

	"github.com/rfc1738/fetch/internal/probe"
)

// Parse parses a URL reference: an absolute URL of any scheme
// ("scheme:scheme-specific-part", RFC 1738 section 2.1) or a relative
// reference (seed 001 section 4.2). It splits the reference, from the
// outside in (seed 001 section 4.3), into the fragment after the first "#",
// the scheme, the server part after "//" (user:password@host:port, up to the
// next "/" or "?"), the path and the query after the first "?", and keeps
// each in escaped form. A scheme followed by anything but "/" is an opaque
// URL (mailto:, news:, "http:g"): its whole scheme-specific part, "?" and
// all, is kept in Opaque.
//
// Parse rejects, with an *Error naming the byte offset: ASCII control
// characters anywhere (RFC 1738 section 2.2: they "must be encoded"), a "%"
// that does not start a valid escape, a scheme that does not start with a
// letter, a host with characters no host name may have (including "%"),
// an IPv6 literal that is not an IPv6 address, an unencoded "@" in the user
// information, and a port that is not a decimal number from 0 to 65535.
// Unsafe printable characters (space in a path, "{", "|", ...) are accepted
// here and reported by package safety.
//
// Parse decodes nothing; the scheme-specific views (FTP, Gopher, ...) do that.
func Parse(s string) (*URL, error) {
	probe.Parse()
	var u *URL
	var ui *Userinfo
	if strings.IndexByte(s, '@') >= 0 {
		// One allocation for the URL and its likely Userinfo.
		p := new(struct {
			u  URL
			ui Userinfo
		})
		u, ui = &p.u, &p.ui
	} else {
		u = new(URL)
	}
	if err := u.parse(s, ui); err != nil {
		return nil, err
	}
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

// parse fills u from s. ui, when not nil, is the storage for the user
// information.
func (u *URL) parse(s string, ui *Userinfo) error {
	rest := s
	// The fragment first: "#" is never data in an escaped URL (seed 001
	// section 3: "the fragment identifier (if any) is extracted first").
	if i := strings.IndexByte(s, '#'); i >= 0 {
		if err := checkChars(s, i+1, len(s), "fragment"); err != nil {
			return err
		}
		u.Fragment = s[i+1:]
		u.HasFragment = true
		rest = s[:i]
	}

	off := 0 // offset of rest within s
	switch n := schemeLen(rest); {
	case n > 0:
		u.Scheme = strings.ToLower(rest[:n])
		off = n + 1
		rest = rest[off:]
		if rest == "" || rest[0] != '/' {
			if err := checkChars(s, off, off+len(rest), "opaque part"); err != nil {
				return err
			}
			u.Opaque = rest
			return nil
		}
	case n < 0:
		return errAt(0, "scheme", Reason("scheme must start with a letter"))
	}

	if len(rest) >= 2 && rest[0] == '/' && rest[1] == '/' {
		u.HasAuthority = true
		rest = rest[2:]
		off += 2
		end := len(rest)
		for i := 0; i < len(rest); i++ {
			if c := rest[i]; c == '/' || c == '?' {
				end = i
				break
			}
		}
		if err := u.parseAuthority(s, off, rest[:end], ui); err != nil {
			return err
		}
		rest = rest[end:]
		off += end
	}

	path := rest
	if i := strings.IndexByte(rest, '?'); i >= 0 {
		path = rest[:i]
		if err := checkChars(s, off+i+1, off+len(rest), "query"); err != nil {
			return err
		}
		u.RawQuery = rest[i+1:]
		u.ForceQuery = u.RawQuery == ""
	}
	if err := checkChars(s, off, off+len(path), "path"); err != nil {
		return err
	}
	u.Path = path
	return nil
}

// schemeLen returns the length of the scheme name at the start of s when s
// starts with "name:", 0 when s has no scheme, and -1 when s starts with ":".
// RFC 1738 section 2.1 allows letters, digits, "+", "-" and "."; seed 001
// section 4.1 looks for the colon "after the first character", and RFC 2396
// section 3.1 requires a leading letter, so a reference starting with a
// digit ("1a:b") is a relative path.
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
// characters and no malformed escapes. The errors of the user information
// name no character of it, which may be part of a password.
func checkChars(s string, from, to int, comp string) error {
	secret := comp == "userinfo"
	for i := from; i < to; i++ {
		c := s[i]
		if c >= 0x20 && c != 0x7f && c != '%' {
			continue
		}
		switch {
		case c != '%' && secret:
			return errAt(i, comp, Reason("invalid control character"))
		case c != '%':
			return errAt(i, comp, reasonf("invalid control character %q", c))
		case i+2 < to && isHex(s[i+1]) && isHex(s[i+2]):
			i += 2
		case secret:
			return errAt(i, comp, EscapeError("%"))
		default:
			return errAt(i, comp, EscapeError(s[i:min(i+3, to)]))
		}
	}
	return nil
}

// parseAuthority parses the server part auth, found at offset off of s:
// [ user [ ":" password ] "@" ] host [ ":" port ] (seed 002 section 5,
// "login"; seed 001 section 4.3.1 "server").
// ui, when not nil, is the storage for the user information.
func (u *URL) parseAuthority(s string, off int, auth string, ui *Userinfo) error {
	if i := strings.IndexByte(auth, '@'); i >= 0 {
		if j := strings.IndexByte(auth[i+1:], '@'); j >= 0 {
			// Seed 001 section 4.3.1: within the user and password
			// field, any ":", "@", or "/" must be encoded.
			return errAt(off+i, "userinfo", Reason(`unencoded "@" (write it as %40)`))
		}
		if err := checkChars(s, off, off+i, "userinfo"); err != nil {
			return err
		}
		if ui == nil {
			ui = new(Userinfo)
		}
		if k := strings.IndexByte(auth[:i], ':'); k >= 0 {
			*ui = Userinfo{username: auth[:k], password: auth[k+1 : i], passwordSet: true}
		} else {
			*ui = Userinfo{username: auth[:i]}
		}
		u.User = ui
		auth = auth[i+1:]
		off += i + 1
	}
	host, port, portOff := auth, "", -1
	if auth != "" && auth[0] == '[' {
		end := strings.IndexByte(auth, ']')
		if end < 0 {
			return errAt(off, "host", Reason(`IPv6 literal without closing "]"`))
		}
		if err := checkIPv6(auth[1:end], off+1); err != nil {
			return err
		}
		host = auth[:end+1]
		switch after := auth[end+1:]; {
		case after == "":
		case after[0] == ':':
			port, portOff = after[1:], off+end+2
		default:
			return errAt(off+end+1, "host", reasonf("unexpected %q after IPv6 literal", after[0]))
		}
	} else {
		if i := strings.LastIndexByte(auth, ':'); i >= 0 {
			host, port, portOff = auth[:i], auth[i+1:], off+i+1
		}
		for i := 0; i < len(host); i++ {
			if c := host[i]; !isHostChar(c) {
				return errAt(off+i, "host", reasonf("invalid character %q in host name", c))
			}
		}
	}
	if portOff >= 0 {
		if port == "" {
			u.emptyPort = true // seed 001 section 4.3.1: port = *digit
		}
		for i := 0; i < len(port); i++ {
			if !isDigit(port[i]) {
				return errAt(portOff+i, "port", reasonf("invalid character %q in port", port[i]))
			}
		}
		if !portInRange(port) {
			return errAt(portOff, "port", reasonf("port %s out of range 0-65535", port))
		}
	}
	u.Host = host
	u.Port = port
	return nil
}

// isHostChar reports whether c may appear in a host name: the letters,
// digits, "-" and "." of RFC 1738 section 3.1, "_" (common in practice), and
// any octet from 0x80 (internationalised names, converted by the driver).
func isHostChar(c byte) bool {
	return isAlnum(c) || c == '-' || c == '.' || c == '_' || c >= 0x80
}

// checkIPv6 validates the text between "[" and "]", found at offset off.
// RFC 2396 section 3.2.2 has no IPv6 literals; the bracketed form is RFC
// 3986 section 3.2.2 (without zone identifiers or IPvFuture).
func checkIPv6(lit string, off int) error {
	for i := 0; i < len(lit); i++ {
		if c := lit[i]; !isHex(c) && c != ':' && c != '.' {
			return errAt(off+i, "host", reasonf("invalid character %q in IPv6 literal", c))
		}
	}
	a, err := netip.ParseAddr(lit)
	if err != nil || !a.Is6() {
		return errAt(off, "host", Reason("invalid IPv6 address in brackets"))
	}
	return nil
}

// portInRange reports whether p, a port of digits (leading zeros
// allowed) or none, is at most 65535.
func portInRange(p string) bool {
	n, err := strconv.Atoi(p)
	return p == "" || err == nil && n <= 65535
}
