package uri

import (
	"strings"

	"github.com/rfc1738/fetch/internal/secret"
)

// URL is a parsed URL reference. Every component is kept in its escaped form,
// exactly as written (RFC 1738 section 2.2: "a URL is always in an encoded
// form"); components are decoded only by the scheme-specific views, after
// the URL has been split.
//
// The zero value is the empty relative reference. A URL is not modified by
// any method of this package and is safe for concurrent reads.
type URL struct {
	// Scheme is the scheme name in lower case (RFC 1738 section 2.1: "programs
	// interpreting URLs should treat upper case letters as equivalent to
	// lower case"). Empty for a relative reference.
	Scheme string

	// Opaque is the escaped text after "scheme:" for URLs that have no "//"
	// authority and whose rest does not start with "/" (mailto:, news:, and
	// any other "scheme:data" form), up to but not including a "#" fragment.
	// Empty otherwise.
	Opaque string

	// HasAuthority reports whether the reference contains "//" introducing a
	// server part, even an empty one (file:///etc has an empty host).
	HasAuthority bool

	// User holds the user name and password; nil when the URL has no "@".
	User *Userinfo

	// Host is the host in escaped form as written: a domain name, an IPv4
	// address, or an IPv6 literal including its brackets. Empty when absent.
	Host string

	// Port is the port digits as written, without the colon. Empty when
	// absent (a trailing ":" with no digits is also absent).
	Port string

	// Path is the escaped path, including the "/" that separates it from the
	// server part when there is one, and any ";params".
	Path string

	// RawQuery is the escaped query after "?", without the "?".
	RawQuery string

	// ForceQuery reports a "?" with an empty query.
	ForceQuery bool

	// Fragment is the escaped fragment after "#", without the "#".
	Fragment string

	// HasFragment reports a "#", even with an empty fragment.
	HasFragment bool

	// emptyPort records a ":" after the host with no digits, which String
	// writes back so that it reproduces the parsed input exactly.
	emptyPort bool
}

// Userinfo is the user name and optional password of a URL, in escaped form.
// A nil *Userinfo means no "@" was present; an empty user name with no
// password ("ftp://@host/") differs from no user.
type Userinfo struct {
	username    string
	password    string
	passwordSet bool
}

// User returns a Userinfo holding the given escaped user name and no password.
func User(escapedName string) *Userinfo { return &Userinfo{username: escapedName} }

// UserPassword returns a Userinfo holding the given escaped name and password.
func UserPassword(escapedName, escapedPassword string) *Userinfo {
	return &Userinfo{username: escapedName, password: escapedPassword, passwordSet: true}
}

// Username returns the decoded user name. A malformed escape is returned as written.
func (u *Userinfo) Username() string {
	if u == nil {
		return ""
	}
	s, err := Unescape(u.username)
	if err != nil {
		return u.username
	}
	return s
}

// Password returns the decoded password and whether one was present
// ("user:@host" has an empty password that is present).
func (u *Userinfo) Password() (string, bool) {
	if u == nil {
		return "", false
	}
	s, err := Unescape(u.password)
	if err != nil {
		return u.password, u.passwordSet
	}
	return s, u.passwordSet
}

// EscapedUsername returns the user name as written in the URL.
func (u *Userinfo) EscapedUsername() string {
	if u == nil {
		return ""
	}
	return u.username
}

// EscapedPassword returns the password as written in the URL and whether one was present.
func (u *Userinfo) EscapedPassword() (string, bool) {
	if u == nil {
		return "", false
	}
	return u.password, u.passwordSet
}

// String reassembles the URL from its escaped components. For a URL returned
// by Parse, String returns the input with the scheme name in lower case, and
// Parse(u.String()) yields an equal URL.
//
// For URLs built by hand, String keeps the reference meaning what the fields
// say: a path starting with "//" without an authority is written as "/.//"
// (RFC 3986 section 5.2.4), and a relative path whose first segment looks
// like a scheme name is written with a leading "./" (seed 001 section 4.3.2).
func (u *URL) String() string { return u.format(false) }

// Redacted is like String but replaces any password with "xxxxx". Use it for
// every message, trace and log line that names a URL.
func (u *URL) Redacted() string {
	if u == nil {
		return ""
	}
	return u.format(true)
}

func (u *URL) format(redact bool) string {
	var b strings.Builder
	b.Grow(u.prefixLen() + len(u.Path) + len(u.RawQuery) + len(u.Fragment) + 8)
	u.writePrefix(&b, redact)
	if u.Opaque == "" {
		b.WriteString(u.Path)
		if u.RawQuery != "" || u.ForceQuery {
			b.WriteByte('?')
			b.WriteString(u.RawQuery)
		}
	}
	if u.HasFragment {
		b.WriteByte('#')
		b.WriteString(u.Fragment)
	}
	return b.String()
}

// OpaqueLoginEnd returns the index in opaque of the "@" that ends a login
// typed without "//", or -1. "user:pass@host/p" parses as the scheme
// "user" with the opaque part "pass@host/p": for a scheme outside RFC
// 1738's, the last "@" ahead of any "/" ends a password. The opaque parts
// of RFC 1738's schemes (mailto's address, news's message-id) hold none.
func OpaqueLoginEnd(scheme, opaque string) int {
	if LinkScheme(scheme) {
		return -1
	}
	login, _, _ := strings.Cut(opaque, "/")
	return strings.LastIndexByte(login, '@')
}

// writeOpaque writes the opaque part, with the password it may hold
// (OpaqueLoginEnd) masked when redact.
func (u *URL) writeOpaque(b *strings.Builder, redact bool) {
	at := OpaqueLoginEnd(u.Scheme, u.Opaque)
	if !redact || at < 0 {
		b.WriteString(u.Opaque)
		return
	}
	b.WriteString(secret.URLMask)
	b.WriteString(u.Opaque[at:])
}

// hasServer reports whether String writes a "//" server part.
func (u *URL) hasServer() bool {
	return u.HasAuthority || u.Host != "" || u.User != nil || u.Port != ""
}

// writePrefix writes everything String writes before Path: the scheme, the
// server part or the opaque part, and any separator String adds.
func (u *URL) writePrefix(b *strings.Builder, redact bool) {
	if u.Scheme != "" {
		b.WriteString(u.Scheme)
		b.WriteByte(':')
	}
	if u.Opaque != "" {
		u.writeOpaque(b, redact)
		return
	}
	switch {
	case u.hasServer():
		b.WriteString("//")
		if ui := u.User; ui != nil {
			b.WriteString(ui.username)
			if ui.passwordSet {
				b.WriteByte(':')
				if redact {
					b.WriteString(secret.URLMask)
				} else {
					b.WriteString(ui.password)
				}
			}
			b.WriteByte('@')
		}
		b.WriteString(u.Host)
		if u.Port != "" || u.emptyPort {
			b.WriteByte(':')
			b.WriteString(u.Port)
		}
		if u.Path != "" && u.Path[0] != '/' {
			b.WriteByte('/')
		}
	case strings.HasPrefix(u.Path, "//"):
		// Without an authority a path starting with "//" would re-parse
		// as one; RFC 3986 section 5.2.4 writes it as "/.//".
		b.WriteString("/.")
	case u.Scheme == "" && schemeLen(u.Path) > 0:
		// "this:that" would re-parse as a scheme (seed 001 section 4.3.2).
		b.WriteString("./")
	}
}

// prefixLen is the length of what writePrefix writes (unredacted): the
// byte offset at which Path starts in u.String(), which for a URL returned
// by Parse is also its offset in the input.
func (u *URL) prefixLen() int {
	n := 0
	if u.Scheme != "" {
		n += len(u.Scheme) + 1
	}
	if u.Opaque != "" {
		return n + len(u.Opaque)
	}
	switch {
	case u.hasServer():
		n += 2 + len(u.Host)
		if ui := u.User; ui != nil {
			n += len(ui.username) + 1
			if ui.passwordSet {
				n += 1 + len(ui.password)
			}
		}
		if u.Port != "" || u.emptyPort {
			n += 1 + len(u.Port)
		}
		if u.Path != "" && u.Path[0] != '/' {
			n++
		}
	case strings.HasPrefix(u.Path, "//"):
		n += 2
	case u.Scheme == "" && schemeLen(u.Path) > 0:
		n += 2
	}
	return n
}

// Hostname returns the host without IPv6 brackets, in lower case.
func (u *URL) Hostname() string {
	h := u.Host
	if len(h) >= 2 && h[0] == '[' && h[len(h)-1] == ']' {
		h = h[1 : len(h)-1]
	}
	return lowerASCII(h)
}

// IsAbs reports whether the URL has a scheme.
func (u *URL) IsAbs() bool { return u.Scheme != "" }
