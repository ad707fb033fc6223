package uri

import "testing"

// Seed 003 (RFC 2396) Appendix F: abbreviated URLs, completed by the
// documented heuristic of Abbreviated.
func TestAbbreviated(t *testing.T) {
	tests := []struct {
		in   string
		want string // "" when not completed
	}{
		// Appendix F: "most hostnames beginning with "www" are likely to have a URL prefix of "http://"".
		{"www.w3.org/Addressing/", "http://www.w3.org/Addressing/"},
		{"www.w3.org", "http://www.w3.org"},
		{"WWW.Example.COM/x?y#z", "http://WWW.Example.COM/x?y#z"},
		{"www2.example.org:8080/", "http://www2.example.org:8080/"},
		// The same rule for the other protocols named by their host (the list).
		{"ftp.funet.fi/pub/", "ftp://ftp.funet.fi/pub/"},
		{"gopher.floodgap.com/1/world", "gopher://gopher.floodgap.com/1/world"},
		{"FTP.example.org", "ftp://FTP.example.org"},
		// user@host is a mail address.
		{"joe@example.org", "mailto:joe@example.org"},
		// Not completed: other hosts, including news servers (an nntp URL needs a group).
		{"news.example.org", ""},
		{"example.org/x", ""},
		{"ftpserver.example.org", ""},
		{"www", ""},
		{"www./x", ""},
		{"www.-bad.org", ""},
		{"www.example.org.", ""},
		// Not completed: already URLs, paths, and other text.
		{"http://www.w3.org/", ""},
		{"mailto:joe@example.org", ""},
		{"/www.example.org", ""},
		{"./www.example.org", ""},
		{"//www.example.org", ""},
		{"www.example.org/a b", ""},
		{"", ""},
		{"joe@", ""},
		{"@example.org", ""},
		{"joe@host", ""},
		{"a@b@example.org", ""},
		{"joe@example.org/x", ""},
		{"www.example.org:/", ""},
		{"www.example.org:http/", ""},
		{"www.example.org/%zz", ""},
	}
	for _, tt := range tests {
		u, ok := Abbreviated(tt.in)
		switch {
		case tt.want == "" && ok:
			t.Errorf("Abbreviated(%q) = %q, true, want false", tt.in, u)
		case tt.want != "" && (!ok || u.String() != tt.want):
			t.Errorf("Abbreviated(%q) = %v, %v, want %q", tt.in, u, ok, tt.want)
		}
	}
}
