package uri

import (
	"errors"
	"strings"
	"testing"
)

// The base URL of every resolution table below.
const resolveBase = "http://a/b/c/d;p?q"

type resolveTest struct{ ref, want string }

// rfc1808Tests is seed 001 (draft-fielding-uri-url-00) Appendix C, line for
// line, with its base "Content-Base: http://a/b/c/d;p?q".
var rfc1808Tests = []resolveTest{
	// Seed 001 Appendix C.1, Normal Examples.
	{"g:h", "g:h"},                      // seed 001 App. C.1
	{"g", "http://a/b/c/g"},             // seed 001 App. C.1
	{"./g", "http://a/b/c/g"},           // seed 001 App. C.1
	{"g/", "http://a/b/c/g/"},           // seed 001 App. C.1
	{"/g", "http://a/g"},                // seed 001 App. C.1
	{"//g", "http://g"},                 // seed 001 App. C.1
	{"?y", "http://a/b/c/d;p?y"},        // seed 001 App. C.1
	{"g?y", "http://a/b/c/g?y"},         // seed 001 App. C.1
	{"g?y/./x", "http://a/b/c/g?y/./x"}, // seed 001 App. C.1
	{"#s", "http://a/b/c/d;p?q#s"},      // seed 001 App. C.1
	{"g#s", "http://a/b/c/g#s"},         // seed 001 App. C.1
	{"g#s/./x", "http://a/b/c/g#s/./x"}, // seed 001 App. C.1
	{"g?y#s", "http://a/b/c/g?y#s"},     // seed 001 App. C.1
	{";x", "http://a/b/c/d;x"},          // seed 001 App. C.1
	{"g;x", "http://a/b/c/g;x"},         // seed 001 App. C.1
	{"g;x?y#s", "http://a/b/c/g;x?y#s"}, // seed 001 App. C.1
	{".", "http://a/b/c/"},              // seed 001 App. C.1
	{"./", "http://a/b/c/"},             // seed 001 App. C.1
	{"..", "http://a/b/"},               // seed 001 App. C.1
	{"../", "http://a/b/"},              // seed 001 App. C.1
	{"../g", "http://a/b/g"},            // seed 001 App. C.1
	{"../..", "http://a/"},              // seed 001 App. C.1
	{"../../", "http://a/"},             // seed 001 App. C.1
	{"../../g", "http://a/g"},           // seed 001 App. C.1
	// Seed 001 Appendix C.2, Abnormal Examples: "An empty reference refers to the top of the current document."
	{"", "http://a/b/c/d;p?q"}, // seed 001 App. C.2: <>
	// Seed 001 Appendix C.2: more ".." than hierarchical levels.
	{"../../../g", "http://a/../g"},       // seed 001 App. C.2
	{"../../../../g", "http://a/../../g"}, // seed 001 App. C.2
	// Seed 001 Appendix C.2: "." and ".." that are not complete components.
	{"/./g", "http://a/./g"},    // seed 001 App. C.2
	{"/../g", "http://a/../g"},  // seed 001 App. C.2
	{"g.", "http://a/b/c/g."},   // seed 001 App. C.2
	{".g", "http://a/b/c/.g"},   // seed 001 App. C.2
	{"g..", "http://a/b/c/g.."}, // seed 001 App. C.2
	{"..g", "http://a/b/c/..g"}, // seed 001 App. C.2
	// Seed 001 Appendix C.2: unnecessary or nonsensical "." and "..".
	{"./../g", "http://a/b/g"},    // seed 001 App. C.2
	{"./g/.", "http://a/b/c/g/"},  // seed 001 App. C.2
	{"g/./h", "http://a/b/c/g/h"}, // seed 001 App. C.2
	{"g/../h", "http://a/b/c/h"},  // seed 001 App. C.2
	// Seed 001 Appendix C.2: the scheme name in a relative URL.
	{"http:g", "http:g"}, // seed 001 App. C.2
	{"http:", "http:"},   // seed 001 App. C.2
}

// rfc1808Derived are not in seed 001's table; they follow from its section
// 6 steps, and show where it differs from RFC 2396.
var rfc1808Derived = []resolveTest{
	// Seed 001 section 4.3.3: parameters start at the first ";" of the
	// path, so dot segments after it are not path segments (RFC 2396 gives
	// http://a/b/c/y).
	{"g;x=1/../y", "http://a/b/c/g;x=1/../y"}, // seed 001 section 4.3.3
	// Seed 001 section 6 step 5b: a reference with an empty query inherits the base query.
	{"?", "http://a/b/c/d;p?q"}, // seed 001 section 6 step 5b
	// Seed 001 section 6 step 3: an empty <server> is inherited.
	{"///g", "http://a/g"}, // seed 001 section 6 step 3
	// Seed 001 section 6 step 5a: parameters with a query.
	{";x?y", "http://a/b/c/d;x?y"}, // seed 001 section 6 step 5a
}

// rfc2396Tests is seed 003 (RFC 2396) Appendix C, line for line, with the
// base http://a/b/c/d;p?q (which this copy of the seed lost; the English
// text interleaved gives the rest).
var rfc2396Tests = []resolveTest{
	// Seed 003 Appendix C.1, Normal Examples.
	{"g:h", "g:h"},                      // seed 003 App. C.1
	{"g", "http://a/b/c/g"},             // seed 003 App. C.1
	{"./g", "http://a/b/c/g"},           // seed 003 App. C.1
	{"g/", "http://a/b/c/g/"},           // seed 003 App. C.1
	{"/g", "http://a/g"},                // seed 003 App. C.1
	{"//g", "http://g"},                 // seed 003 App. C.1
	{"?y", "http://a/b/c/?y"},           // seed 003 App. C.1: differs from seed 001 (http://a/b/c/d;p?y) and RFC 3986
	{"g?y", "http://a/b/c/g?y"},         // seed 003 App. C.1
	{"#s", "http://a/b/c/d;p?q#s"},      // seed 003 App. C.1: "(current document)#s"
	{"g#s", "http://a/b/c/g#s"},         // seed 003 App. C.1
	{"g?y#s", "http://a/b/c/g?y#s"},     // seed 003 App. C.1
	{";x", "http://a/b/c/;x"},           // seed 003 App. C.1: differs from seed 001 (http://a/b/c/d;x)
	{"g;x", "http://a/b/c/g;x"},         // seed 003 App. C.1
	{"g;x?y#s", "http://a/b/c/g;x?y#s"}, // seed 003 App. C.1
	{".", "http://a/b/c/"},              // seed 003 App. C.1
	{"./", "http://a/b/c/"},             // seed 003 App. C.1
	{"..", "http://a/b/"},               // seed 003 App. C.1
	{"../", "http://a/b/"},              // seed 003 App. C.1
	{"../g", "http://a/b/g"},            // seed 003 App. C.1
	{"../..", "http://a/"},              // seed 003 App. C.1
	{"../../", "http://a/"},             // seed 003 App. C.1
	{"../../g", "http://a/g"},           // seed 003 App. C.1
	// Seed 003 Appendix C.2, Abnormal Examples: "An empty reference refers to the start of the current document."
	{"", "http://a/b/c/d;p?q"}, // seed 003 App. C.2: <> = (current document)
	// Seed 003 Appendix C.2: more ".." than levels ("some implementations" give http://a/g).
	{"../../../g", "http://a/../g"},       // seed 003 App. C.2
	{"../../../../g", "http://a/../../g"}, // seed 003 App. C.2
	// Seed 003 Appendix C.2: "." and ".." that are not complete components.
	{"/./g", "http://a/./g"},    // seed 003 App. C.2
	{"/../g", "http://a/../g"},  // seed 003 App. C.2
	{"g.", "http://a/b/c/g."},   // seed 003 App. C.2
	{".g", "http://a/b/c/.g"},   // seed 003 App. C.2
	{"g..", "http://a/b/c/g.."}, // seed 003 App. C.2
	{"..g", "http://a/b/c/..g"}, // seed 003 App. C.2
	// Seed 003 Appendix C.2: unnecessary or nonsensical "." and "..".
	{"./../g", "http://a/b/g"},            // seed 003 App. C.2
	{"./g/.", "http://a/b/c/g/"},          // seed 003 App. C.2
	{"g/./h", "http://a/b/c/g/h"},         // seed 003 App. C.2
	{"g/../h", "http://a/b/c/h"},          // seed 003 App. C.2
	{"g;x=1/./y", "http://a/b/c/g;x=1/y"}, // seed 003 App. C.2
	{"g;x=1/../y", "http://a/b/c/y"},      // seed 003 App. C.2
	// Seed 003 Appendix C.2: query and fragment are separated before merging.
	{"g?y/./x", "http://a/b/c/g?y/./x"},   // seed 003 App. C.2
	{"g?y/../x", "http://a/b/c/g?y/../x"}, // seed 003 App. C.2
	{"g#s/./x", "http://a/b/c/g#s/./x"},   // seed 003 App. C.2
	{"g#s/../x", "http://a/b/c/g#s/../x"}, // seed 003 App. C.2
	// Seed 003 Appendix C.2: "http:g = http:g ; for validating parsers"
	// (http://a/b/c/g "for backwards compatibility" is not this mode).
	{"http:g", "http:g"}, // seed 003 App. C.2
}

// rfc3986Tests is RFC 3986 section 5.4, line for line, base http://a/b/c/d;p?q.
var rfc3986Tests = []resolveTest{
	// RFC 3986 section 5.4.1, Normal Examples.
	{"g:h", "g:h"},                      // RFC 3986 5.4.1
	{"g", "http://a/b/c/g"},             // RFC 3986 5.4.1
	{"./g", "http://a/b/c/g"},           // RFC 3986 5.4.1
	{"g/", "http://a/b/c/g/"},           // RFC 3986 5.4.1
	{"/g", "http://a/g"},                // RFC 3986 5.4.1
	{"//g", "http://g"},                 // RFC 3986 5.4.1
	{"?y", "http://a/b/c/d;p?y"},        // RFC 3986 5.4.1
	{"g?y", "http://a/b/c/g?y"},         // RFC 3986 5.4.1
	{"#s", "http://a/b/c/d;p?q#s"},      // RFC 3986 5.4.1
	{"g#s", "http://a/b/c/g#s"},         // RFC 3986 5.4.1
	{"g?y#s", "http://a/b/c/g?y#s"},     // RFC 3986 5.4.1
	{";x", "http://a/b/c/;x"},           // RFC 3986 5.4.1
	{"g;x", "http://a/b/c/g;x"},         // RFC 3986 5.4.1
	{"g;x?y#s", "http://a/b/c/g;x?y#s"}, // RFC 3986 5.4.1
	{"", "http://a/b/c/d;p?q"},          // RFC 3986 5.4.1
	{".", "http://a/b/c/"},              // RFC 3986 5.4.1
	{"./", "http://a/b/c/"},             // RFC 3986 5.4.1
	{"..", "http://a/b/"},               // RFC 3986 5.4.1
	{"../", "http://a/b/"},              // RFC 3986 5.4.1
	{"../g", "http://a/b/g"},            // RFC 3986 5.4.1
	{"../..", "http://a/"},              // RFC 3986 5.4.1
	{"../../", "http://a/"},             // RFC 3986 5.4.1
	{"../../g", "http://a/g"},           // RFC 3986 5.4.1
	// RFC 3986 section 5.4.2, Abnormal Examples.
	{"../../../g", "http://a/g"},          // RFC 3986 5.4.2
	{"../../../../g", "http://a/g"},       // RFC 3986 5.4.2
	{"/./g", "http://a/g"},                // RFC 3986 5.4.2
	{"/../g", "http://a/g"},               // RFC 3986 5.4.2
	{"g.", "http://a/b/c/g."},             // RFC 3986 5.4.2
	{".g", "http://a/b/c/.g"},             // RFC 3986 5.4.2
	{"g..", "http://a/b/c/g.."},           // RFC 3986 5.4.2
	{"..g", "http://a/b/c/..g"},           // RFC 3986 5.4.2
	{"./../g", "http://a/b/g"},            // RFC 3986 5.4.2
	{"./g/.", "http://a/b/c/g/"},          // RFC 3986 5.4.2
	{"g/./h", "http://a/b/c/g/h"},         // RFC 3986 5.4.2
	{"g/../h", "http://a/b/c/h"},          // RFC 3986 5.4.2
	{"g;x=1/./y", "http://a/b/c/g;x=1/y"}, // RFC 3986 5.4.2
	{"g;x=1/../y", "http://a/b/c/y"},      // RFC 3986 5.4.2
	{"g?y/./x", "http://a/b/c/g?y/./x"},   // RFC 3986 5.4.2
	{"g?y/../x", "http://a/b/c/g?y/../x"}, // RFC 3986 5.4.2
	{"g#s/./x", "http://a/b/c/g#s/./x"},   // RFC 3986 5.4.2
	{"g#s/../x", "http://a/b/c/g#s/../x"}, // RFC 3986 5.4.2
	{"http:g", "http:g"},                  // RFC 3986 5.4.2: for strict parsers
}

func runResolve(t *testing.T, mode Mode, tests []resolveTest) {
	t.Helper()
	base := MustParse(resolveBase)
	for _, tt := range tests {
		t.Run(mode.String()+"/"+tt.ref, func(t *testing.T) {
			u, err := Resolve(base, MustParse(tt.ref), mode)
			if err != nil {
				t.Fatalf("Resolve(%q, %q, %v) = %v", resolveBase, tt.ref, mode, err)
			}
			if got := u.String(); got != tt.want {
				t.Errorf("Resolve(%q, %q, %v) = %q, want %q", resolveBase, tt.ref, mode, got, tt.want)
			}
			// The result is in the form Parse gives.
			if v, err := Parse(u.String()); err != nil || v.String() != u.String() || *v != *u {
				t.Errorf("Parse(%q) = %#v, %v, want %#v", u.String(), v, err, u)
			}
			s, err := ResolveString(resolveBase, tt.ref, mode)
			if err != nil || s != tt.want {
				t.Errorf("ResolveString(%q, %q, %v) = %q, %v, want %q", resolveBase, tt.ref, mode, s, err, tt.want)
			}
		})
	}
}

func TestResolveRFC1808(t *testing.T) {
	runResolve(t, RFC1808, rfc1808Tests)
	runResolve(t, RFC1808, rfc1808Derived)
}

func TestResolveRFC2396(t *testing.T) { runResolve(t, RFC2396, rfc2396Tests) }

func TestResolveRFC3986(t *testing.T) { runResolve(t, RFC3986, rfc3986Tests) }

// The issue's acceptance line, at library level: fetch resolve --rfc 2396
// 'http://a/b/c/d;p?q' '?y' prints http://a/b/c/?y.
func TestResolveIssueExample(t *testing.T) {
	m, err := ParseMode("2396")
	if err != nil {
		t.Fatal(err)
	}
	got, err := ResolveString("http://a/b/c/d;p?q", "?y", m)
	if err != nil || got != "http://a/b/c/?y" {
		t.Errorf("ResolveString(..., \"?y\", %v) = %q, %v, want http://a/b/c/?y", m, got, err)
	}
}

// The zero Mode is RFC3986.
func TestResolveZeroMode(t *testing.T) {
	var m Mode
	got, err := ResolveString(resolveBase, "../../../g", m)
	if err != nil || got != "http://a/g" {
		t.Errorf("ResolveString(%q, \"../../../g\", zero) = %q, %v, want http://a/g", resolveBase, got, err)
	}
}

// Resolution with other bases and schemes of RFC 1738.
func TestResolveOther(t *testing.T) {
	tests := []struct {
		mode            Mode
		base, ref, want string
	}{
		// Seed 001 section 6: ";type=d" does not affect resolution of an ftp path.
		{RFC1808, "ftp://h/pub/dir;type=d", "file", "ftp://h/pub/file"},
		{RFC3986, "ftp://u:p@h:2121/pub/dir/", "../x", "ftp://u:p@h:2121/pub/x"},
		// Seed 001 Appendix D: the HTML BASE example.
		{RFC1808, "http://www.ics.uci.edu/Test/a/b/c", "../x", "http://www.ics.uci.edu/Test/a/x"},
		{RFC2396, "http://www.ics.uci.edu/Test/a/b/c", "../x", "http://www.ics.uci.edu/Test/a/x"},
		{RFC3986, "http://www.ics.uci.edu/Test/a/b/c", "../x", "http://www.ics.uci.edu/Test/a/x"},
		// RFC 3986 section 5.2.3: a base with an authority and an empty path merges as "/".
		{RFC3986, "http://a", "g", "http://a/g"},
		{RFC2396, "http://a", "g", "http://a/g"},
		{RFC1808, "http://a?q", "g", "http://a/g"},
		{RFC1808, "http://a", "?y", "http://a?y"},
		// The base fragment is never carried over.
		{RFC3986, "http://a/b#f", "", "http://a/b"},
		{RFC2396, "http://a/b#f", "", "http://a/b"},
		{RFC1808, "http://a/b#f", "#g", "http://a/b#g"},
		// Opaque bases: the opaque part is a path without "/".
		{RFC3986, "mailto:joe@example.org", "#x", "mailto:joe@example.org#x"},
		{RFC3986, "news:comp.lang.go", "comp.lang.c", "news:comp.lang.c"},
		{RFC3986, "mailto:a?subject=x", "?subject=y", "mailto:a?subject=y"},
		// A gopher base: the selector is a path like any other.
		{RFC3986, "gopher://h/1/a/b", "c", "gopher://h/1/a/c"},
		// The empty port and the user information come with the base authority.
		{RFC3986, "ftp://u@h:/a/b", "c", "ftp://u@h:/a/c"},
		// RFC 3986 section 5.2.4: a result path "//g" without authority.
		{RFC3986, "x:/a", "..//g", "x:/.//g"},
	}
	for _, tt := range tests {
		got, err := ResolveString(tt.base, tt.ref, tt.mode)
		if err != nil || got != tt.want {
			t.Errorf("ResolveString(%q, %q, %v) = %q, %v, want %q", tt.base, tt.ref, tt.mode, got, err, tt.want)
		}
	}
}

func TestResolveError(t *testing.T) {
	var e *Error
	_, err := Resolve(MustParse("/relative/base"), MustParse("g"), RFC3986)
	if !errors.As(err, &e) || e.Component != "base" {
		t.Errorf("Resolve with a relative base = %v, want *Error in base", err)
	}
	_, err = Resolve(nil, MustParse("g"), RFC3986)
	if !errors.As(err, &e) {
		t.Errorf("Resolve(nil, ...) = %v, want *Error", err)
	}
	if _, err := Resolve(MustParse("http://a/"), MustParse("g"), Mode(42)); err == nil {
		t.Errorf("Resolve with Mode(42) = nil error")
	}
	if _, err := ResolveString("http://a b/", "g", RFC3986); !errors.As(err, &e) || e.Offset != 8 {
		t.Errorf("ResolveString with a malformed base = %v, want *Error at 8", err)
	}
}

func TestParseMode(t *testing.T) {
	for in, want := range map[string]Mode{"1808": RFC1808, "2396": RFC2396, "3986": RFC3986, "RFC1808": RFC1808, "rfc2396": RFC2396} {
		if got, err := ParseMode(in); err != nil || got != want {
			t.Errorf("ParseMode(%q) = %v, %v, want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "1738", "rfc", "RFC 3986"} {
		if _, err := ParseMode(in); err == nil {
			t.Errorf("ParseMode(%q) = nil error", in)
		}
	}
}

// FuzzParseMode: ParseMode takes a Mode's String ("RFC3986"), in any
// case, or its number alone, and nothing else; what it gives names the
// same RFC.
func FuzzParseMode(f *testing.F) {
	for _, s := range []string{"1808", "rfc2396", "RFC3986", "RFC 3986", "rfc", "Mode(0)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		m, err := ParseMode(in)
		want := false
		for _, mode := range []Mode{RFC3986, RFC2396, RFC1808} {
			name := mode.String()
			if strings.EqualFold(in, name) || in == name[3:] {
				want = true
				if err != nil || m != mode {
					t.Fatalf("ParseMode(%q) = %v, %v; want %v", in, m, err, mode)
				}
			}
		}
		if !want && err == nil {
			t.Fatalf("ParseMode(%q) = %v", in, m)
		}
	})
}
