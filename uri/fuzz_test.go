package uri

import (
	"errors"
	"net/url"
	"reflect"
	"strings"
	"testing"
)

// viewSchemes are the schemes with a view, and the view.
var viewSchemes = []struct {
	scheme string
	view   func(*URL) error
}{
	{"ftp", func(u *URL) error { _, err := u.FTP(); return err }},
	{"http", func(u *URL) error { _, err := u.HTTP(); return err }},
	{"https", func(u *URL) error { _, err := u.HTTP(); return err }},
	{"gopher", func(u *URL) error { _, err := u.Gopher(); return err }},
	{"mailto", func(u *URL) error { _, err := u.Mailto(); return err }},
	{"news", func(u *URL) error { _, err := u.News(); return err }},
	{"nntp", func(u *URL) error { _, err := u.NNTP(); return err }},
	{"telnet", func(u *URL) error { _, err := u.Telnet(); return err }},
	{"wais", func(u *URL) error { _, err := u.WAIS(); return err }},
	{"file", func(u *URL) error { _, err := u.File(); return err }},
	{"prospero", func(u *URL) error { _, err := u.Prospero(); return err }},
}

// checkError asserts that err, if any, is an *Error inside s.
func checkError(t *testing.T, what, s string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("%s of %q = %v, want *Error", what, s, err)
	}
	if e.Offset < 0 || e.Offset > len(s) || e.Err == nil || e.Component == "" {
		t.Fatalf("%s of %q = %#v: offset outside the input or no cause", what, s, e)
	}
	if !strings.HasPrefix(err.Error(), "uri: ") {
		t.Fatalf("%s of %q: error %q lacks the \"uri: \" prefix", what, s, err)
	}
}

// FuzzParse checks that Parse never panics, that its errors point into
// the input, that String gives the input back (scheme in lower case) and
// re-parses to an equal URL, that every view never panics and reports
// offsets inside the URL, and that Normalize is stable.
func FuzzParse(f *testing.F) {
	for _, tt := range parseTests {
		f.Add(tt.in)
	}
	for _, tt := range parseErrorTests {
		f.Add(tt.in)
	}
	for _, tt := range ftpTests {
		f.Add(tt.in)
	}
	for _, tt := range gopherTests {
		f.Add(tt.in)
	}
	for _, tt := range normalizeTests {
		f.Add(tt.in)
	}
	for _, s := range []string{
		"news://news.example.org:1119/*", "nntp://h/g/12a", "wais://h/db/t/p?s",
		"prospero://h/x;a=b;=v", "telnet://u:@h:/", "file:foo", "mailto:", "ftp://h/a;b/c",
		"http://[::1]:/", "x:/.//g", "./a:b", "HTTP://U:P@H:/%7e?%7E#%7e",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := Parse(s)
		if err != nil {
			checkError(t, "Parse", s, err)
			return
		}
		want := s
		if n := schemeLen(s); n > 0 {
			want = strings.ToLower(s[:n]) + s[n:]
		}
		str := u.String()
		if str != want {
			t.Fatalf("Parse(%q).String() = %q, want %q", s, str, want)
		}
		v, err := Parse(str)
		if err != nil || !reflect.DeepEqual(u, v) {
			t.Fatalf("Parse(%q) = %#v, %v; want %#v", str, v, err, u)
		}
		if _, err := Parse(u.Redacted()); err != nil {
			t.Fatalf("Parse(%q.Redacted()) = %v", s, err)
		}
		for _, vs := range viewSchemes {
			if u.Scheme == vs.scheme {
				checkError(t, vs.scheme+" view", s, vs.view(u))
			}
			w := *u
			w.Scheme = vs.scheme
			checkError(t, vs.scheme+" view", w.String(), vs.view(&w))
		}
		n := Normalize(u)
		ns := n.String()
		nu, err := Parse(ns)
		if err != nil {
			t.Fatalf("Parse(Normalize(%q)) = %v", s, err)
		}
		if again := Normalize(nu).String(); again != ns {
			t.Fatalf("Normalize(%q) = %q, but Normalize(Parse(%q)) = %q", s, ns, ns, again)
		}
		if !Equal(u, u) || !Equal(u, nu) {
			t.Fatalf("Equal(%q, itself or its normal form) = false", s)
		}
	})
}

// FuzzResolve checks that Resolve never panics in any mode, that its result
// is a URL that parses back to the same string, and that in mode RFC3986
// the result holds no dot segments unless it took the base path as it is
// (an empty reference path, RFC 3986 section 5.2.2).
func FuzzResolve(f *testing.F) {
	for _, tests := range [][]resolveTest{rfc1808Tests, rfc1808Derived, rfc2396Tests, rfc3986Tests} {
		for _, tt := range tests {
			for m := range 3 {
				f.Add(resolveBase, tt.ref, uint8(m))
			}
		}
	}
	for _, s := range [][2]string{
		{"ftp://h/pub/dir;type=d", "file"}, {"http://a", "g"}, {"mailto:a?b", "?c"},
		{"x:/a", "..//g"}, {"news:comp.lang.go", "../x"}, {"http://a/b", "///g"},
		{"http://u:p@a:/b/c", ";x"}, {"gopher://h/1/a/b", "../../../c"}, {"a:", "."},
	} {
		for m := range 3 {
			f.Add(s[0], s[1], uint8(m))
		}
	}
	f.Fuzz(func(t *testing.T, base, ref string, mode uint8) {
		b, err := Parse(base)
		if err != nil {
			return
		}
		r, err := Parse(ref)
		if err != nil {
			return
		}
		m := Mode(mode % 3)
		before := b.String()
		res, err := Resolve(b, r, m)
		if b.Scheme == "" {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Resolve(%q, %q, %v) = %v, want *Error for a relative base", base, ref, m, err)
			}
			return
		}
		if err != nil {
			t.Fatalf("Resolve(%q, %q, %v) = %v", base, ref, m, err)
		}
		s := res.String()
		p, err := Parse(s)
		if err != nil {
			t.Fatalf("Resolve(%q, %q, %v) = %q, which does not parse: %v", base, ref, m, s, err)
		}
		if p.String() != s || p.Scheme == "" {
			t.Fatalf("Resolve(%q, %q, %v) = %q, re-parsed as %q", base, ref, m, s, p.String())
		}
		if m == RFC3986 && (r.Path != "" || r.Opaque != "" || r.hasServer()) {
			if c := split(res); removeDotSegments(c.path) != c.path {
				t.Fatalf("Resolve(%q, %q, RFC3986) = %q: path %q has dot segments", base, ref, s, c.path)
			}
		}
		if b.String() != before {
			t.Fatalf("Resolve(%q, %q, %v) modified its base", base, ref, m)
		}
	})
}

// FuzzExtract checks that FindAll never panics, that its matches are in
// order inside the text, and that every URL parses.
func FuzzExtract(f *testing.F) {
	for _, tt := range extractTests {
		f.Add(tt.text)
	}
	f.Add("<URL:http://h/a-\n b> <x:y> http://h/(x)].")
	f.Fuzz(func(t *testing.T, text string) {
		end := 0
		for _, m := range FindAll(text) {
			if m.Start < end || m.End > len(text) || m.Start >= m.End {
				t.Fatalf("FindAll(%q): match %+v out of order or range", text, m)
			}
			end = m.End
			if _, err := Parse(m.URL); err != nil {
				t.Fatalf("FindAll(%q) = %q, which does not parse: %v", text, m.URL, err)
			}
			if m.NoHyphen != "" {
				if _, err := Parse(m.NoHyphen); err != nil {
					t.Fatalf("FindAll(%q): NoHyphen %q does not parse: %v", text, m.NoHyphen, err)
				}
			}
		}
		if u, ok := Abbreviated(text); ok {
			if _, err := Parse(u.String()); err != nil {
				t.Fatalf("Abbreviated(%q) = %q, which does not parse", text, u)
			}
		}
	})
}

// FuzzNetURL compares Parse with net/url's where both take the reference:
// the generic syntax splits it the same way (RFC 3986 section 3, and its
// appendix B's expression) into scheme, user, host, port, path, query and
// fragment, or an opaque part. Decoded, the parts are the same, hosts up
// to case (section 3.2.2).
func FuzzNetURL(f *testing.F) {
	for _, tt := range parseTests {
		f.Add(tt.in)
	}
	for _, tt := range ftpTests {
		f.Add(tt.in)
	}
	f.Add("a:0?")
	f.Add("mailto:a@b?subject=c#d")
	f.Fuzz(func(t *testing.T, s string) {
		u, err := Parse(s)
		// net/url reads "///x" with no scheme as the path "///x", where
		// section 4.2 gives an empty authority and the path "/x".
		if err != nil || u.Scheme == "" && strings.HasPrefix(s, "///") {
			return
		}
		nu, err := url.Parse(s)
		if err != nil {
			return
		}
		// An opaque URL keeps its "?" and query in Opaque (RFC 1738
		// section 2.1: the scheme-specific part is the scheme's to read).
		nuOpaque, query, force := nu.Opaque, nu.RawQuery, nu.ForceQuery
		if u.Opaque != "" && (query != "" || force) {
			nuOpaque, query, force = nuOpaque+"?"+query, "", false
		}
		fragment, ferr := url.PathUnescape(u.Fragment)
		if u.Scheme != strings.ToLower(nu.Scheme) || u.RawQuery != query || u.ForceQuery != force ||
			ferr == nil && fragment != nu.Fragment || u.Opaque != nuOpaque {
			t.Fatalf("%q: Parse gives %#v, net/url %#v", s, u, nu)
		}
		if u.Opaque != "" {
			return
		}
		path, perr := url.PathUnescape(u.Path)
		if !strings.EqualFold(u.Hostname(), nu.Hostname()) || u.Port != nu.Port() || perr == nil && path != nu.Path ||
			(u.User == nil) != (nu.User == nil) || u.User != nil && u.User.Username() != nu.User.Username() {
			t.Fatalf("%q: Parse gives %#v, net/url %#v", s, u, nu)
		}
	})
}
