package uri

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
)

// Mode selects the document whose algorithm Resolve follows. The zero value
// is RFC3986.
type Mode int

const (
	// RFC3986 resolves as RFC 3986 section 5.2 does (what current software
	// does): dot segments are removed from every path, ".." never climbs
	// above the root, and a reference with only a query keeps the base
	// path ("?y" against http://a/b/c/d;p?q is http://a/b/c/d;p?y).
	RFC3986 Mode = iota
	// RFC2396 resolves as RFC 2396 section 5.2 does (seed 003; its Appendix
	// C table): the base query is never used, so "?y" gives
	// http://a/b/c/?y and ";x" gives http://a/b/c/;x; dot segments are
	// removed only when merging a relative path, and ".." segments that
	// would climb above the root are kept ("../../../g" gives
	// http://a/../g). "http:g" is absolute ("for validating parsers").
	RFC2396
	// RFC1808 resolves as the 1996 URL draft section 6 does (seed 001; its
	// Appendix C table), which is RFC 1808's algorithm: ";params" (from the
	// first ";" of the path) are a component of their own, so ";x" gives
	// http://a/b/c/d;x and "?y" gives http://a/b/c/d;p?y; ".." segments
	// above the root are kept as in RFC2396.
	RFC1808
)

// modeNames are the String forms of the modes.
var modeNames = [...]string{RFC3986: "RFC3986", RFC2396: "RFC2396", RFC1808: "RFC1808"}

// String returns "RFC3986", "RFC2396" or "RFC1808".
func (m Mode) String() string {
	if m < 0 || int(m) >= len(modeNames) {
		return fmt.Sprintf("Mode(%d)", int(m))
	}
	return modeNames[m]
}

// ParseMode returns the Mode named by s: "3986", "2396" or "1808", with or
// without an "RFC" prefix in any case.
func ParseMode(s string) (Mode, error) {
	n := s
	if len(n) > 3 && strings.EqualFold(n[:3], "rfc") {
		n = n[3:]
	}
	if i := slices.Index(modeNames[:], "RFC"+n); i >= 0 {
		return Mode(i), nil
	}
	return 0, fmt.Errorf("uri: unknown resolution mode %q (want 1808, 2396 or 3986)", s)
}

// Resolve returns the absolute URL that ref names when it appears in a
// document whose base URL is base, by the algorithm of mode. base must
// have a scheme; an error is an *Error with Component "base" (or an unknown
// mode). Neither argument is modified; the result shares no mutable state
// with them.
//
// All three modes treat an opaque URL ("mailto:a?b") as the path "a" with
// the query "b", and, when the base has a server part and an empty path,
// merge a relative path as if the base path were "/" (RFC 3986 section
// 5.2.3; RFC 2396 and seed 001 would glue it to the host).
func Resolve(base, ref *URL, mode Mode) (*URL, error) {
	if base == nil || base.Scheme == "" {
		return nil, errAt(0, "base", Reason("base URL is not absolute"))
	}
	if ref == nil {
		return nil, errAt(0, "reference", Reason("no reference"))
	}
	b, r := split(base), split(ref)
	var t comps
	switch mode {
	case RFC3986:
		t = resolve3986(&b, &r)
	case RFC2396:
		t = resolve2396(&b, &r)
	case RFC1808:
		t = resolve1808(&b, &r)
	default:
		return nil, fmt.Errorf("uri: unknown resolution mode %d", int(mode))
	}
	return t.url(), nil
}

// ResolveString parses base and ref and returns Resolve(base, ref, mode)
// as a string. A parse error is the *Error of Parse.
func ResolveString(base, ref string, mode Mode) (string, error) {
	b, err := Parse(base)
	if err != nil {
		return "", err
	}
	r, err := Parse(ref)
	if err != nil {
		return "", err
	}
	t, err := Resolve(b, r, mode)
	if err != nil {
		return "", err
	}
	return t.String(), nil
}

// comps are the five components of a reference as RFC 2396 and RFC 3986
// see them, each with whether it is defined.
type comps struct {
	scheme    string
	hasAuth   bool
	user      *Userinfo
	host      string
	port      string
	emptyPort bool
	path      string
	query     string
	hasQuery  bool
	frag      string
	hasFrag   bool
}

func split(u *URL) comps {
	c := comps{scheme: u.Scheme, frag: u.Fragment, hasFrag: u.HasFragment}
	if u.Opaque != "" {
		c.path, c.query, c.hasQuery = strings.Cut(u.Opaque, "?")
		return c
	}
	if u.hasServer() {
		c.hasAuth, c.user, c.host, c.port, c.emptyPort = true, u.User, u.Host, u.Port, u.emptyPort
	}
	c.path = u.Path
	c.query, c.hasQuery = u.RawQuery, u.RawQuery != "" || u.ForceQuery
	return c
}

func (c *comps) setAuth(from *comps) {
	c.hasAuth, c.user, c.host, c.port, c.emptyPort = from.hasAuth, from.user, from.host, from.port, from.emptyPort
}

func (c *comps) url() *URL {
	u := &URL{Scheme: c.scheme, Fragment: c.frag, HasFragment: c.hasFrag}
	if !c.hasAuth && c.scheme != "" && (c.path == "" || c.path[0] != '/') {
		u.Opaque = c.path
		if c.hasQuery {
			u.Opaque += "?" + c.query
		}
		return u
	}
	if c.hasAuth {
		u.HasAuthority, u.User, u.Host, u.Port, u.emptyPort = true, c.user, c.host, c.port, c.emptyPort
		if c.path != "" && c.path[0] != '/' {
			c.path = "/" + c.path
		}
	}
	u.Path = c.path
	if c.hasQuery {
		u.RawQuery, u.ForceQuery = c.query, c.query == ""
	}
	return u
}

// baseDir is the base path up to and including its last "/": "all but the
// last segment" (RFC 2396 section 5.2 step 6a, seed 001 section 6 step 6,
// RFC 3986 section 5.2.3).
func baseDir(b *comps, path string) string {
	if b.hasAuth && path == "" {
		return "/"
	}
	return path[:strings.LastIndexByte(path, '/')+1]
}

// resolve3986 is RFC 3986 section 5.2.2 (strict).
func resolve3986(b, r *comps) comps {
	var t comps
	switch {
	case r.scheme != "":
		t = *r
		t.path = removeDotSegments(r.path)
	case r.hasAuth:
		t = *r
		t.path = removeDotSegments(r.path)
		t.scheme = b.scheme
	default:
		t.scheme = b.scheme
		t.setAuth(b)
		switch {
		case r.path == "":
			t.path = b.path
			if r.hasQuery {
				t.query, t.hasQuery = r.query, true
			} else {
				t.query, t.hasQuery = b.query, b.hasQuery
			}
		case r.path[0] == '/':
			t.path = removeDotSegments(r.path)
			t.query, t.hasQuery = r.query, r.hasQuery
		default:
			t.path = removeDotSegments(baseDir(b, b.path) + r.path)
			t.query, t.hasQuery = r.query, r.hasQuery
		}
	}
	t.frag, t.hasFrag = r.frag, r.hasFrag
	return t
}

// removeDotSegments is RFC 3986 section 5.2.4.
func removeDotSegments(in string) string {
	if !strings.Contains(in, ".") {
		return in
	}
	out := make([]byte, 0, len(in))
	for in != "" {
		switch {
		case strings.HasPrefix(in, "../"):
			in = in[3:]
		case strings.HasPrefix(in, "./"):
			in = in[2:]
		case strings.HasPrefix(in, "/./"):
			in = in[2:]
		case in == "/.":
			in = "/"
		case strings.HasPrefix(in, "/../"):
			in = in[3:]
			out = out[:max(0, bytes.LastIndexByte(out, '/'))]
		case in == "/..":
			in = "/"
			out = out[:max(0, bytes.LastIndexByte(out, '/'))]
		case in == "." || in == "..":
			in = ""
		default:
			i := 0
			if in[0] == '/' {
				i = 1
			}
			j := strings.IndexByte(in[i:], '/')
			if j < 0 {
				j = len(in)
			} else {
				j += i
			}
			out = append(out, in[:j]...)
			in = in[j:]
		}
	}
	return string(out)
}

// sameOrAbsolute gives the first steps of RFC 2396 section 5.2 and seed
// 001 section 6 (steps 2 and 3, 2a and 2b): a reference with nothing but a
// fragment is the current document; one with a scheme is absolute as it
// is ("http:g" for validating parsers). ok is false for any other.
func sameOrAbsolute(b, r *comps) (t comps, ok bool) {
	switch {
	case r.scheme != "":
		return *r, true
	case r.path == "" && !r.hasAuth && !r.hasQuery:
		t = *b
		t.frag, t.hasFrag = r.frag, r.hasFrag
		return t, true
	}
	return t, false
}

// resolve2396 is RFC 2396 section 5.2 (seed 003), as a validating parser.
func resolve2396(b, r *comps) comps {
	if t, ok := sameOrAbsolute(b, r); ok {
		return t
	}
	t := comps{scheme: b.scheme, query: r.query, hasQuery: r.hasQuery, frag: r.frag, hasFrag: r.hasFrag}
	switch {
	case r.hasAuth: // step 4: a network-path
		t.setAuth(r)
		t.path = r.path
	case strings.HasPrefix(r.path, "/"): // step 5: an absolute path, as it is
		t.setAuth(b)
		t.path = r.path
	default: // step 6: merge, then remove "." and "<segment>/.."
		t.setAuth(b)
		t.path = removeDotsOld(baseDir(b, b.path) + r.path)
	}
	return t
}

// resolve1808 is seed 001 section 6, RFC 1808's algorithm.
func resolve1808(b, r *comps) comps {
	if t, ok := sameOrAbsolute(b, r); ok {
		return t
	}
	t := comps{scheme: b.scheme, frag: r.frag, hasFrag: r.hasFrag}
	// Step 3: a non-empty server part is kept with the rest of the
	// reference.
	if r.hasAuth && (r.host != "" || r.user != nil || r.port != "") {
		t.setAuth(r)
		t.path, t.query, t.hasQuery = r.path, r.query, r.hasQuery
		return t
	}
	t.setAuth(b)
	// Step 4: a path preceded by "/" is not relative.
	if strings.HasPrefix(r.path, "/") {
		t.path, t.query, t.hasQuery = r.path, r.query, r.hasQuery
		return t
	}
	rpath, rparams, rhasParams := strings.Cut(r.path, ";")
	bpath, bparams, bhasParams := strings.Cut(b.path, ";")
	// Step 5: an empty path inherits the base path, then the base
	// parameters unless the reference has some, then the base query unless
	// the reference has one.
	if rpath == "" {
		t.path = bpath
		switch {
		case rparams != "":
			t.path += ";" + rparams
			t.query, t.hasQuery = r.query, r.hasQuery
		case r.query != "":
			t.path = b.path
			t.query, t.hasQuery = r.query, true
		default:
			if bhasParams {
				t.path += ";" + bparams
			}
			t.query, t.hasQuery = b.query, b.hasQuery
		}
		return t
	}
	// Step 6: replace the last segment of the base path (parameters
	// excluded) with the reference path, then remove dot segments.
	t.path = removeDotsOld(baseDir(b, bpath) + rpath)
	if rhasParams {
		t.path += ";" + rparams
	}
	t.query, t.hasQuery = r.query, r.hasQuery
	return t
}

// removeDotsOld removes dot segments as RFC 2396 section 5.2 step 6c-6g and
// seed 001 section 6 step 6a-6d describe: every "./" and a final "." that are
// complete segments go; then "<segment>/../" (segment not "..") is removed
// leftmost first until none is left, and a final "<segment>/..". The "/"
// that starts an absolute path is not a segment, so ".." segments that
// would climb above it stay ("/b/c/../../../g" is "/../g"). A stack of
// segments gives the same result as the repeated string rewriting.
func removeDotsOld(p string) string {
	if !strings.Contains(p, ".") {
		return p
	}
	rooted := strings.HasPrefix(p, "/")
	if rooted {
		p = p[1:]
	}
	segs := strings.Split(p, "/")
	out := make([]string, 0, len(segs))
	for i, s := range segs {
		last := i == len(segs)-1
		switch s {
		case ".":
			if last {
				out = append(out, "")
			}
		case "..":
			if n := len(out); n > 0 && out[n-1] != ".." {
				out = out[:n-1]
				if last {
					out = append(out, "")
				}
			} else {
				out = append(out, "..")
			}
		default:
			out = append(out, s)
		}
	}
	j := strings.Join(out, "/")
	if rooted {
		return "/" + j
	}
	return j
}
