package uri

import "testing"

var normalizeTests = []struct{ in, want string }{
	// Seed 003 section 6: "the URL <http://www.XEROX.com> is equivalent to <http://www.xerox.com>".
	{"http://www.XEROX.com", "http://www.xerox.com/"},
	// Seed 003 section 6: scheme and host are case-insensitive.
	{"HTTP://WWW.Example.Com/Path", "http://www.example.com/Path"},
	// Seed 003 section 6: an explicit default port is elided.
	{"http://h:80/", "http://h/"},
	{"ftp://h:21/x", "ftp://h/x"},
	{"gopher://h:70/1", "gopher://h/1"},
	{"nntp://h:119/g", "nntp://h/g"},
	{"telnet://h:23/", "telnet://h/"},
	{"wais://h:210/db", "wais://h/db"},
	{"prospero://h:1525/x", "prospero://h/x"},
	{"https://h:443/", "https://h/"},
	{"http://h:0080/", "http://h/"},
	{"http://h:/", "http://h/"},
	{"http://h:8080/", "http://h:8080/"},
	{"http://h:008080/", "http://h:8080/"},
	{"ftp://h:80/", "ftp://h:80/"},
	// Seed 003 section 2.4.2: "%7e" is "~" in an http path; unreserved escapes are decoded.
	{"http://h/%7euser/%41%62%2D%2E%5F", "http://h/~user/Ab-._"},
	// Other escapes keep their meaning, with upper-case hex.
	{"http://h/a%2fb?c%3dd#e%2a", "http://h/a%2Fb?c%3Dd#e%2A"},
	{"ftp://u%2e%3a:p%40@h/", "ftp://u.%3A:p%40@h/"},
	{"mailto:joe%25home@example.org", "mailto:joe%25home@example.org"},
	{"news:comp%2Elang.go", "news:comp.lang.go"},
	// RFC 1738 sections 3.2.2, 3.3, 3.4, 3.8: the "/" after the server may be omitted.
	{"http://h", "http://h/"},
	{"ftp://h", "ftp://h/"},
	{"gopher://h", "gopher://h/"},
	{"telnet://u@h", "telnet://u@h/"},
	{"http://h?q", "http://h/?q"},
	// Not for schemes whose path is required.
	{"nntp://h", "nntp://h"},
	// Dot segments stay (an ftp path is a series of CWD commands).
	{"ftp://h/a/../b", "ftp://h/a/../b"},
	// An empty query and the fragment stay.
	{"http://h/?", "http://h/?"},
	{"http://h/#", "http://h/#"},
	// IPv6 literals in lower case.
	{"http://[2001:DB8::A]:80/", "http://[2001:db8::a]/"},
	// The gopher tab stays encoded.
	{"gopher://h/7a%09b", "gopher://h/7a%09b"},
}

func TestNormalize(t *testing.T) {
	for _, tt := range normalizeTests {
		u := MustParse(tt.in)
		before := u.String()
		n := Normalize(u)
		if got := n.String(); got != tt.want {
			t.Errorf("Normalize(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if u.String() != before {
			t.Errorf("Normalize(%q) modified its argument to %q", tt.in, u.String())
		}
		if again := Normalize(n).String(); again != n.String() {
			t.Errorf("Normalize(Normalize(%q)) = %q, want %q", tt.in, again, n.String())
		}
		if !Equal(u, MustParse(tt.want)) {
			t.Errorf("Equal(%q, %q) = false", tt.in, tt.want)
		}
	}
}

func TestEqual(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		// Seed 003 section 6.
		{"http://www.XEROX.com", "http://www.xerox.com", true},
		{"http://h:80/x", "HTTP://H/x", true},
		// Seed 003 section 2.4.2.
		{"http://h/~u", "http://h/%7Eu", true},
		{"http://h/%7eu", "http://h/%7Eu", true},
		// A reserved character and its escape differ (seed 001 section 2.1).
		{"http://h/a/b", "http://h/a%2Fb", false},
		{"gopher://h/0a?b", "gopher://h/0a%3Fb", false},
		// Paths are case-sensitive; user names too.
		{"http://h/A", "http://h/a", false},
		{"ftp://U@h/", "ftp://u@h/", false},
		// Seed 001 section 4.3.1: no user, an empty user, an empty password differ.
		{"ftp://h/", "ftp://@h/", false},
		{"ftp://u@h/", "ftp://u:@h/", false},
		// A non-default port differs.
		{"http://h:8080/", "http://h/", false},
		{"http://h/?", "http://h/", false},
		{"http://h/#f", "http://h/", false},
	}
	for _, tt := range tests {
		if got := Equal(MustParse(tt.a), MustParse(tt.b)); got != tt.want {
			t.Errorf("Equal(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
	if !Equal(nil, nil) || Equal(nil, MustParse("http://h/")) {
		t.Errorf("Equal with nil URLs: want true only for two nils")
	}
}
