package telnet

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// parseServiceTests: RFC 1738 section 3.8 and RFC 4248 section 2: a
// telnet URL is telnet://<user>:<password>@<host>:<port>/, the user and
// password optional, the port 23 by default (RFC 854), the final "/"
// optional and nothing after it. RFC 1738 section 5 escapes octets of
// user and password as %XX; section 6 calls CR and LF in them unsafe.
var parseServiceTests = []struct {
	in   string
	want *Service
	err  error // nil: accepted; else *uri.Error or proto.ErrUnsafeArgument
}{
	{"telnet://host", &Service{Host: "host", Port: 23}, nil},                                                           // 3.8: the "/" may be omitted
	{"telnet://host/", &Service{Host: "host", Port: 23}, nil},                                                          // 3.8
	{"telnet://HOST:2323/", &Service{Host: "host", Port: 2323}, nil},                                                   // 3.1: host names are case-insensitive
	{"telnet://[::1]:23/", &Service{Host: "::1", Port: 23}, nil},                                                       // RFC 3986 3.2.2: IPv6 in brackets
	{"telnet://guest@host/", &Service{Host: "host", Port: 23, User: "guest"}, nil},                                     // 3.8: a suggested user
	{"telnet://gu%40est:secret@host/", &Service{Host: "host", Port: 23, User: "gu@est", PasswordSuggested: true}, nil}, // 5: %XX decoded
	{"telnet://guest:@host/", &Service{Host: "host", Port: 23, User: "guest", PasswordSuggested: true}, nil},           // 3.1: an empty password is a password
	{"telnet://:pw@host/", &Service{Host: "host", Port: 23, PasswordSuggested: true}, nil},                             // an empty user
	{"telnet://host/path", nil, &uri.Error{}},                                                                          // 3.8: no path
	{"telnet://host/?q", nil, &uri.Error{}},                                                                            // 3.8: no query
	{"telnet:///", nil, &uri.Error{}},                                                                                  // 3.1: a host is required
	{"telnet://user:pass@/", nil, &uri.Error{}},                                                                        // 3.1: a host is required
	{"telnet://us%0Der@host/", nil, proto.ErrUnsafeArgument},                                                           // 6: CR in the user
	{"telnet://user:p%0Aw@host/", nil, proto.ErrUnsafeArgument},                                                        // 6: LF in the password
	{"telnet://us%00er@host/", nil, proto.ErrUnsafeArgument},                                                           // NUL in the user
}

func TestParseService(t *testing.T) {
	for _, tt := range parseServiceTests {
		u, err := uri.Parse(tt.in)
		if err != nil {
			t.Fatalf("uri.Parse(%q): %v", tt.in, err)
		}
		got, err := ParseService(u)
		switch want := tt.err.(type) {
		case nil:
			if err != nil || *got != *tt.want {
				t.Errorf("ParseService(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
			}
		case *uri.Error:
			if !errors.As(err, &want) {
				t.Errorf("ParseService(%q) = %+v, %v; want a *uri.Error", tt.in, got, err)
			}
		default:
			if !errors.Is(err, want) {
				t.Errorf("ParseService(%q) = %+v, %v; want %v", tt.in, got, err, want)
			}
		}
	}
}

// escapeAll escapes every octet of s as %XX (RFC 1738 section 2.2 allows
// it for any octet).
func escapeAll(s string) string {
	var b strings.Builder
	for i := range len(s) {
		fmt.Fprintf(&b, "%%%02X", s[i])
	}
	return b.String()
}

// FuzzParseService: whatever the URL, ParseService fails with a *uri.Error
// or proto.ErrUnsafeArgument, or gives a service with a host, a port in
// 0..65535 (the range uri.Parse accepts), a user free of CR, LF and NUL,
// and PasswordSuggested exactly when the URL has a password; the service
// written back as a telnet URL (RFC 4248 section 2) parses to the same
// service.
func FuzzParseService(f *testing.F) {
	for _, tt := range parseServiceTests {
		f.Add(tt.in)
	}
	f.Add("telnet://u:hunter2@[fe80::1%25eth0]:99/")
	f.Add("telnet://h:0/")
	f.Add("telnet://h:65536/")
	f.Add("TELNET://h:/")
	f.Fuzz(func(t *testing.T, in string) {
		u, err := uri.Parse(in)
		if err != nil || u.Scheme != "telnet" {
			return
		}
		s, err := ParseService(u)
		if err != nil {
			var ue *uri.Error
			if !errors.As(err, &ue) && !errors.Is(err, proto.ErrUnsafeArgument) {
				t.Fatalf("ParseService(%q): %v is neither a *uri.Error nor ErrUnsafeArgument", in, err)
			}
			return
		}
		_, hasPassword := u.User.Password()
		if s.Host == "" || s.Port < 0 || s.Port > 65535 || strings.ContainsAny(s.User, "\r\n\x00") || s.PasswordSuggested != hasPassword {
			t.Fatalf("ParseService(%q) = %+v", in, s)
		}
		back := serviceURL(s, u.User != nil)
		u2, err := uri.Parse(back)
		if err != nil {
			t.Fatalf("%q gives %+v, written back as %q: %v", in, s, back, err)
		}
		s2, err := ParseService(u2)
		if err != nil || *s2 != *s {
			t.Fatalf("%q gives %+v, written back as %q gives %+v, %v", in, s, back, s2, err)
		}
	})
}

// serviceURL writes s as a telnet URL, with user information when
// userinfo is set (the password "x" when one is suggested).
func serviceURL(s *Service, userinfo bool) string {
	b := "telnet://"
	if userinfo {
		b += escapeAll(s.User)
		if s.PasswordSuggested {
			b += ":x"
		}
		b += "@"
	}
	host := s.Host
	if strings.Contains(host, ":") {
		host = "[" + strings.ReplaceAll(host, "%", "%25") + "]"
	}
	return b + host + ":" + strconv.Itoa(s.Port) + "/"
}
