package uri

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// parseTests are references that parse. want is the URL Parse returns;
// String must give the input back with the scheme in lower case.
var parseTests = []struct {
	in   string
	want *URL
}{
	// Seed 001 section 1.1, example URLs.
	{"file:/home/fred/bio.txt", &URL{Scheme: "file", Path: "/home/fred/bio.txt"}},
	{"ftp://ds.internic.net/rfc/rfc1808.txt", &URL{Scheme: "ftp", HasAuthority: true, Host: "ds.internic.net", Path: "/rfc/rfc1808.txt"}},
	{"gopher://spinaltap.micro.umn.edu/00/Weather/California/Los%20Angeles", &URL{Scheme: "gopher", HasAuthority: true, Host: "spinaltap.micro.umn.edu", Path: "/00/Weather/California/Los%20Angeles"}},
	{"http://www.ics.uci.edu/pub/ietf/uri/", &URL{Scheme: "http", HasAuthority: true, Host: "www.ics.uci.edu", Path: "/pub/ietf/uri/"}},
	{"mailto:masinter@parc.xerox.com", &URL{Scheme: "mailto", Opaque: "masinter@parc.xerox.com"}},
	{"news:comp.infosystems.www.servers.unix", &URL{Scheme: "news", Opaque: "comp.infosystems.www.servers.unix"}},
	{"telnet://melvyl.ucop.edu/", &URL{Scheme: "telnet", HasAuthority: true, Host: "melvyl.ucop.edu", Path: "/"}},

	// RFC 1738 section 3.2.2 (seed 000): the three ftp examples.
	{"ftp://myname@host.dom/%2Fetc/motd", &URL{Scheme: "ftp", HasAuthority: true, User: User("myname"), Host: "host.dom", Path: "/%2Fetc/motd"}},
	{"ftp://myname@host.dom/etc/motd", &URL{Scheme: "ftp", HasAuthority: true, User: User("myname"), Host: "host.dom", Path: "/etc/motd"}},
	{"ftp://myname@host.dom//etc/motd", &URL{Scheme: "ftp", HasAuthority: true, User: User("myname"), Host: "host.dom", Path: "//etc/motd"}},
	// RFC 1738 section 3.2.2: "The whole url-path may be omitted".
	{"ftp://host.dom", &URL{Scheme: "ftp", HasAuthority: true, Host: "host.dom"}},
	// RFC 1738 section 3.10 (seed 000): the VMS example.
	{"file://vms.host.edu/disk$user/my/notes/note12345.txt", &URL{Scheme: "file", HasAuthority: true, Host: "vms.host.edu", Path: "/disk$user/my/notes/note12345.txt"}},
	// RFC 1738 section 3.10: the empty host is this machine.
	{"file:///etc/motd", &URL{Scheme: "file", HasAuthority: true, Path: "/etc/motd"}},
	// RFC 1738 section 3.11 (seed 000): an hsoname starting with "/".
	{"prospero://host.dom//pros/name", &URL{Scheme: "prospero", HasAuthority: true, Host: "host.dom", Path: "//pros/name"}},
	// RFC 1738 section 3.11: fields after the hsoname.
	{"prospero://host.dom:1525/pros/name;OBJECT-VERSION=3", &URL{Scheme: "prospero", HasAuthority: true, Host: "host.dom", Port: "1525", Path: "/pros/name;OBJECT-VERSION=3"}},
	// RFC 1738 section 3.6 (seed 000): <URL:news:*>.
	{"news:*", &URL{Scheme: "news", Opaque: "*"}},
	{"news:comp.infosystems.www.misc", &URL{Scheme: "news", Opaque: "comp.infosystems.www.misc"}},
	// RFC 1738 section 3.7: nntp://<host>:<port>/<newsgroup-name>/<article-number>.
	{"nntp://news.example.org:119/comp.lang.go/12345", &URL{Scheme: "nntp", HasAuthority: true, Host: "news.example.org", Port: "119", Path: "/comp.lang.go/12345"}},
	// RFC 1738 section 3.8: telnet://<user>:<password>@<host>:<port>/ without the final "/".
	{"telnet://guest:secret@bbs.example.org:2323", &URL{Scheme: "telnet", HasAuthority: true, User: UserPassword("guest", "secret"), Host: "bbs.example.org", Port: "2323"}},
	// RFC 1738 section 3.9: the three wais forms.
	{"wais://wais.example.org:210/directory-of-servers", &URL{Scheme: "wais", HasAuthority: true, Host: "wais.example.org", Port: "210", Path: "/directory-of-servers"}},
	{"wais://wais.example.org/db?gopher+protocol", &URL{Scheme: "wais", HasAuthority: true, Host: "wais.example.org", Path: "/db", RawQuery: "gopher+protocol"}},
	{"wais://wais.example.org/db/TEXT/0%2017%20/doc", &URL{Scheme: "wais", HasAuthority: true, Host: "wais.example.org", Path: "/db/TEXT/0%2017%20/doc"}},
	// RFC 1738 section 3.4: the gopher-path with search and gopher+_string.
	{"gopher://h/0a%09b%09+", &URL{Scheme: "gopher", HasAuthority: true, Host: "h", Path: "/0a%09b%09+"}},
	// RFC 1738 section 3.4: no characters are reserved in the gopher-path;
	// the generic parse still splits at "?", and the view puts it back.
	{"gopher://h/0a?b", &URL{Scheme: "gopher", HasAuthority: true, Host: "h", Path: "/0a", RawQuery: "b"}},
	// RFC 1738 section 3.5: "%" in an address must be encoded.
	{"mailto:joe%25home@example.org", &URL{Scheme: "mailto", Opaque: "joe%25home@example.org"}},

	// Seed 001 section 4.3.1: an empty user name differs from no user
	// name, and "foo:" has an empty password.
	{"ftp://@host.com/", &URL{Scheme: "ftp", HasAuthority: true, User: User(""), Host: "host.com", Path: "/"}},
	{"ftp://host.com/", &URL{Scheme: "ftp", HasAuthority: true, Host: "host.com", Path: "/"}},
	{"ftp://foo:@host.com/", &URL{Scheme: "ftp", HasAuthority: true, User: UserPassword("foo", ""), Host: "host.com", Path: "/"}},
	// Seed 002 section 5: user = *[ uchar | ";" | "?" | "&" | "=" ] (except "?", RFC 2396 section G.2).
	{"ftp://a;b&c=d:p%40ss@h/", &URL{Scheme: "ftp", HasAuthority: true, User: UserPassword("a;b&c=d", "p%40ss"), Host: "h", Path: "/"}},
	// Seed 001 section 4.3.1: port = *digit; the ":" alone is kept by String.
	{"http://host.dom:/x", &URL{Scheme: "http", HasAuthority: true, Host: "host.dom", Path: "/x", emptyPort: true}},
	// RFC 3986 section 3.2.2: an IPv6 literal.
	{"http://[2001:db8::7]:8080/c=GB?objectClass?one", &URL{Scheme: "http", HasAuthority: true, Host: "[2001:db8::7]", Port: "8080", Path: "/c=GB", RawQuery: "objectClass?one"}},
	{"ftp://[::ffff:192.0.2.1]/", &URL{Scheme: "ftp", HasAuthority: true, Host: "[::ffff:192.0.2.1]", Path: "/"}},
	// Seed 003 section 3.2: the authority ends at "?" too.
	{"http://h?q", &URL{Scheme: "http", HasAuthority: true, Host: "h", RawQuery: "q"}},

	// RFC 1738 section 2.1: scheme names are case-insensitive.
	{"HTTP://www.XEROX.com/", &URL{Scheme: "http", HasAuthority: true, Host: "www.XEROX.com", Path: "/"}},
	{"GoPhEr://h/1", &URL{Scheme: "gopher", HasAuthority: true, Host: "h", Path: "/1"}},
	// RFC 1738 section 2.1: "+", "-" and "." in scheme names.
	{"x-my+scheme.v1://h/", &URL{Scheme: "x-my+scheme.v1", HasAuthority: true, Host: "h", Path: "/"}},
	// RFC 1738 section 2.2: upper- and lower-case hex are both escapes, kept as written.
	{"ftp://h/%2f%2F%7e", &URL{Scheme: "ftp", HasAuthority: true, Host: "h", Path: "/%2f%2F%7e"}},

	// Seed 003 Appendix B: the regular-expression example.
	{"http://www.ics.uci.edu/pub/ietf/uri/#Related", &URL{Scheme: "http", HasAuthority: true, Host: "www.ics.uci.edu", Path: "/pub/ietf/uri/", Fragment: "Related", HasFragment: true}},
	// Seed 001 section 3: an empty fragment after "#", an empty query after "?".
	{"http://h/p?#", &URL{Scheme: "http", HasAuthority: true, Host: "h", Path: "/p", ForceQuery: true, HasFragment: true}},
	// Seed 001 section 3: only the first "#" delimits.
	{"http://h/p#a#b", &URL{Scheme: "http", HasAuthority: true, Host: "h", Path: "/p", Fragment: "a#b", HasFragment: true}},

	// Seed 001 Appendix C, relative references as parsed.
	{"g:h", &URL{Scheme: "g", Opaque: "h"}},
	{"g", &URL{Path: "g"}},
	{"./g", &URL{Path: "./g"}},
	{"//g", &URL{HasAuthority: true, Host: "g"}},
	{"?y", &URL{RawQuery: "y"}},
	{"#s", &URL{Fragment: "s", HasFragment: true}},
	{";x", &URL{Path: ";x"}},
	{"g;x?y#s", &URL{Path: "g;x", RawQuery: "y", Fragment: "s", HasFragment: true}},
	{"", &URL{}},
	{"../../../g", &URL{Path: "../../../g"}},
	// Seed 001 Appendix C.2: "http:g" is absolute, with an opaque part.
	{"http:g", &URL{Scheme: "http", Opaque: "g"}},
	{"http:", &URL{Scheme: "http"}},
	// Seed 003 section 3.1: a scheme starts with a letter, so this is a path.
	{"1a:b", &URL{Path: "1a:b"}},
	// Seed 001 section 4.3.2: "./this:that" is a relative path.
	{"./this:that", &URL{Path: "./this:that"}},

	// Unsafe printable characters are accepted outside the host (package
	// safety reports them; RFC 1738 section 2.2 names them).
	{"http://h/a b{c}|d^e~f[g]`", &URL{Scheme: "http", HasAuthority: true, Host: "h", Path: "/a b{c}|d^e~f[g]`"}},
	// Octets 80-FF (RFC 1738 section 2.2 wants them encoded) are accepted, host included.
	{"http://bücher.example/ä", &URL{Scheme: "http", HasAuthority: true, Host: "bücher.example", Path: "/ä"}},
}

func TestParse(t *testing.T) {
	for _, tt := range parseTests {
		t.Run(tt.in, func(t *testing.T) {
			u, err := Parse(tt.in)
			if err != nil {
				t.Fatalf("Parse(%q) = %v", tt.in, err)
			}
			if !reflect.DeepEqual(u, tt.want) {
				t.Errorf("Parse(%q) = %#v, want %#v", tt.in, u, tt.want)
			}
			want := tt.in
			if n := schemeLen(want); n > 0 {
				want = strings.ToLower(want[:n]) + want[n:]
			}
			if s := u.String(); s != want {
				t.Errorf("Parse(%q).String() = %q, want %q", tt.in, s, want)
			}
			v, err := Parse(u.String())
			if err != nil || !reflect.DeepEqual(u, v) {
				t.Errorf("Parse(%q) = %#v, %v, want %#v", u.String(), v, err, u)
			}
		})
	}
}

// parseErrorTests are malformed references: Parse returns an *Error with
// this Offset and Component.
var parseErrorTests = []struct {
	in     string
	offset int
	comp   string
	escape bool // Err is an EscapeError
}{
	// RFC 1738 section 3.1: a host name has no space (the example).
	{"http://a b/", 8, "host", false},
	{"http://a%20b/", 8, "host", false},
	{"http://a,b/", 8, "host", false},
	// RFC 1738 section 2.2: control characters must be encoded.
	{"http://a/\x01", 9, "path", false},
	{"http://a/b\r\nHost: evil", 10, "path", false},
	{"http://a/?x\x7f", 11, "query", false},
	{"http://a/#\n", 10, "fragment", false},
	{"mailto:a\x00b", 8, "opaque part", false},
	{"ftp://u\tx@h/", 7, "userinfo", false},
	{"\x00http://h/", 0, "path", false},
	// RFC 1738 section 2.2: "%" followed by two hexadecimal digits.
	{"http://a/%zz", 9, "path", true},
	{"http://a/%4", 9, "path", true},
	{"http://a/%", 9, "path", true},
	{"http://a/%41%4g", 12, "path", true},
	{"http://a/?%", 10, "query", true},
	{"http://a/#%x", 10, "fragment", true},
	{"news:%", 5, "opaque part", true},
	{"ftp://u:p%zz@h/", 9, "userinfo", true},
	// Seed 002 section 5: port = digits.
	{"http://a:80x/", 11, "port", false},
	{"http://a:-1/", 9, "port", false},
	{"http://a:99999/", 9, "port", false},
	{"http://a:65536/", 9, "port", false},
	{"http://a:00000000000000000000080000/", 9, "port", false},
	{"http://a:1:2/", 8, "host", false},
	// RFC 3986 section 3.2.2: IPv6 literals.
	{"http://[::1/", 7, "host", false},
	{"http://[::g]/", 10, "host", false},
	{"http://[1:2]/", 8, "host", false},
	{"http://[]/", 8, "host", false},
	{"http://[192.0.2.1]/", 8, "host", false},
	{"http://[fe80::1%25eth0]/", 15, "host", false},
	{"http://[::1]x/", 12, "host", false},
	{"http://[::1]:x/", 13, "port", false},
	// Seed 001 section 4.3.1: "@" in the user information must be encoded.
	{"ftp://a@b@h/", 7, "userinfo", false},
	// Seed 003 section 3.1: a scheme name is not empty.
	{":foo", 0, "scheme", false},
	// Offsets count the input as written (upper-case scheme, empty port).
	{"HTTP://u@h:/p%", 13, "path", true},
}

func TestParseError(t *testing.T) {
	for _, tt := range parseErrorTests {
		t.Run(tt.in, func(t *testing.T) {
			u, err := Parse(tt.in)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Parse(%q) = %v, %v, want *Error", tt.in, u, err)
			}
			if e.Offset != tt.offset || e.Component != tt.comp {
				t.Errorf("Parse(%q) error at %d in %q, want %d in %q (%v)", tt.in, e.Offset, e.Component, tt.offset, tt.comp, err)
			}
			var ee EscapeError
			if got := errors.As(err, &ee); got != tt.escape {
				t.Errorf("Parse(%q) = %v: EscapeError %v, want %v", tt.in, err, got, tt.escape)
			}
			if msg := err.Error(); !strings.HasPrefix(msg, "uri: ") || strings.HasPrefix(msg, "uri: uri:") {
				t.Errorf("Parse(%q) error %q lacks a single \"uri: \" prefix", tt.in, msg)
			}
		})
	}
}

// An error inside the user information names no character of it: it may
// be part of a password (DESIGN.md, safety).
func TestParseErrorHidesPassword(t *testing.T) {
	for _, in := range []string{"ftp://u:s3cr%zt@h/", "ftp://u:s3cr\x01t@h/", "ftp://u:s3cr@t@h/"} {
		_, err := Parse(in)
		if err == nil {
			t.Fatalf("Parse(%q) = nil error", in)
		}
		if msg := err.Error(); strings.Contains(msg, "s3cr") || strings.Contains(msg, "%zt") || strings.Contains(msg, "\\x01") {
			t.Errorf("Parse(%q) error %q shows the password", in, msg)
		}
	}
}

// Seed 001 section 4.3.1: <ftp://@host.com/> has an empty user name and no
// password, <ftp://host.com/> no user name, <ftp://foo:@host.com/> the user
// "foo" and an empty password.
func TestUserinfo(t *testing.T) {
	tests := []struct {
		in       string
		user     bool
		name     string
		pass     string
		passSet  bool
		redacted string
	}{
		{"ftp://@host.com/", true, "", "", false, "ftp://@host.com/"},
		{"ftp://host.com/", false, "", "", false, "ftp://host.com/"},
		{"ftp://foo:@host.com/", true, "foo", "", true, "ftp://foo:xxxxx@host.com/"},
		{"ftp://foo:bar@host.com/", true, "foo", "bar", true, "ftp://foo:xxxxx@host.com/"},
		// RFC 1738 section 3.1: user and password are decoded by the views.
		{"ftp://f%6Fo%3A:b%40r%3a@host.com/", true, "foo:", "b@r:", true, "ftp://f%6Fo%3A:xxxxx@host.com/"},
	}
	for _, tt := range tests {
		u := MustParse(tt.in)
		if (u.User != nil) != tt.user {
			t.Errorf("Parse(%q).User = %v, want present %v", tt.in, u.User, tt.user)
		}
		if got := u.User.Username(); got != tt.name {
			t.Errorf("Parse(%q).User.Username() = %q, want %q", tt.in, got, tt.name)
		}
		if p, ok := u.User.Password(); p != tt.pass || ok != tt.passSet {
			t.Errorf("Parse(%q).User.Password() = %q, %v, want %q, %v", tt.in, p, ok, tt.pass, tt.passSet)
		}
		if got := u.Redacted(); got != tt.redacted {
			t.Errorf("Parse(%q).Redacted() = %q, want %q", tt.in, got, tt.redacted)
		}
	}
}

// A login typed without "scheme://" (user:pass@host/p) parses as the
// scheme "user" with an opaque part (seed 001 section 3.1); Redacted masks
// what stands before its "@", but not in the opaque parts of RFC 1738's
// schemes (section 3.5 mailto's address, section 3.6 news's message-id).
func TestRedactedOpaque(t *testing.T) {
	for _, tt := range []struct{ in, redacted string }{
		{"user:s3cret@ftp.example.org/file", "user:xxxxx@ftp.example.org/file"},
		{"user:s3cret@host", "user:xxxxx@host"},
		{"user:a@b@host/p@q", "user:xxxxx@host/p@q"},
		{"user:s3cret/p@q", "user:s3cret/p@q"}, // an "@" after a "/" ends no login
		{"urn:isbn:0451450523", "urn:isbn:0451450523"},
		{"mailto:joe@example.org", "mailto:joe@example.org"},
		{"news:123@example.org", "news:123@example.org"},
		{"NEWS:123@example.org", "news:123@example.org"},
	} {
		u := MustParse(tt.in)
		if got := u.Redacted(); got != tt.redacted {
			t.Errorf("Parse(%q).Redacted() = %q, want %q", tt.in, got, tt.redacted)
		}
		if got := u.String(); got != strings.ToLower(tt.in[:4])+tt.in[4:] {
			t.Errorf("Parse(%q).String() = %q", tt.in, got)
		}
	}
}

// RFC 1738 sections 3.2 to 3.11: the default ports.
func TestDefaultPort(t *testing.T) {
	tests := []struct {
		scheme string
		port   int
	}{
		{"ftp", 21}, {"http", 80}, {"https", 443}, {"gopher", 70}, {"nntp", 119},
		{"telnet", 23}, {"wais", 210}, {"prospero", 1525},
		{"FTP", 21}, {"Gopher", 70},
		{"file", 0}, {"mailto", 0}, {"news", 0}, {"x-unknown", 0},
	}
	for _, tt := range tests {
		if got := DefaultPort(tt.scheme); got != tt.port {
			t.Errorf("DefaultPort(%q) = %d, want %d", tt.scheme, got, tt.port)
		}
	}
	for in, want := range map[string]int{
		"ftp://h/": 21, "ftp://h:2121/": 2121, "gopher://h": 70, "GOPHER://h:/": 70,
		"prospero://h/x": 1525, "wais://h/db": 210, "nntp://h/g": 119, "telnet://h": 23,
		"http://h": 80, "https://h": 443, "file:///x": 0, "http://h:0/": 0, "http://h:0080/": 80,
	} {
		if got := MustParse(in).PortNumber(); got != want {
			t.Errorf("Parse(%q).PortNumber() = %d, want %d", in, got, want)
		}
	}
}

func TestHostname(t *testing.T) {
	for in, want := range map[string]string{
		"http://WWW.Example.COM/":  "www.example.com",
		"http://[2001:DB8::1]:80/": "2001:db8::1",
		"file:///x":                "",
	} {
		if got := MustParse(in).Hostname(); got != want {
			t.Errorf("Parse(%q).Hostname() = %q, want %q", in, got, want)
		}
	}
}

// String writes URLs built by hand so that they re-parse to the same meaning.
func TestStringBuilt(t *testing.T) {
	tests := []struct {
		u    *URL
		want string
	}{
		// RFC 3986 section 5.2.4: a path starting with "//" and no authority.
		{&URL{Scheme: "http", Path: "//g"}, "http:/.//g"},
		// Seed 001 section 4.3.2: a first segment that looks like a scheme.
		{&URL{Path: "this:that"}, "./this:that"},
		// A server part with a path lacking its "/".
		{&URL{Scheme: "ftp", Host: "h", Path: "x"}, "ftp://h/x"},
		{&URL{Scheme: "ftp", Host: "h", User: UserPassword("u", "p"), Port: "21"}, "ftp://u:p@h:21"},
	}
	for _, tt := range tests {
		if got := tt.u.String(); got != tt.want {
			t.Errorf("%#v.String() = %q, want %q", tt.u, got, tt.want)
		}
	}
}
