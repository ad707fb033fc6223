package safety

import (
	"testing"

	"github.com/rfc1738/fetch/uri"
)

func TestRedact(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"ftp://u:secret@h/x", "ftp://u:xxxxx@h/x"},
		{"ftp://u:se:cret@h/x", "ftp://u:xxxxx@h/x"},
		{"ftp://u:p%zz@h/x", "ftp://u:xxxxx@h/x"},              // does not parse
		{"ftp://u:p@ss@h/x", "ftp://u:xxxxx@h/x"},              // unencoded "@": the last one before "/"
		{"ftp://u:pa ss@h:99999/x", "ftp://u:xxxxx@h:99999/x"}, // space, bad port
		{"ftp://u:pa/ss@h/x", "ftp://u:xxxxx@h/x"},             // "/" in the password: up to the last "@"
		{"ftp://u:pa/ss@h/x y@z", "ftp://u:xxxxx@h/x y@z"},     // ... before white space
		{"ftp://u:@h/", "ftp://u:xxxxx@h/"},                    // like (*uri.URL).Redacted
		{"ftp://u@h/", "ftp://u@h/"},
		{"ftp://h:21/a@b", "ftp://h:xxxxx@b"},     // a password may be digits: masking wins
		{"http://h:8080/a@b", "http://h:xxxxx@b"}, // the fallback hides a port and path too
		{"news:a@b", "news:a@b"},
		{"mailto:a:b@c", "mailto:a:b@c"},
		{"//u:pw@h/x", "//u:xxxxx@h/x"},
		{"see ftp://a:b@h/ and http://c:d@i/", "see ftp://a:xxxxx@h/ and http://c:xxxxx@i/"},
		{"http://h/?next=ftp://u:pw@h2/", "http://h/?next=ftp://u:xxxxx@h2/"},
		{"ftp://u:p#x@h/", "ftp://u:xxxxx@h/"},
		{"ftp://u:pw@h", "ftp://u:xxxxx@h"},
		{"", ""},
		{"://", "://"},
		{"ftp://:pw@", "ftp://:xxxxx@"},
		// A login typed without "scheme://" parses as a URL of the scheme "user".
		{"user:s3cret@ftp.example.org/f", "user:xxxxx@ftp.example.org/f"},
		{":s3cret@h", ":xxxxx@h"},
		{"user:a b@h/x", "user:xxxxx@h/x"},
		{"user:pw/x@h", "user:pw/x@h"}, // an "@" after a "/" ends no login
		{"www.example.org:8080/a", "www.example.org:8080/a"},
		{"NEWS:a@b", "NEWS:a@b"},
	} {
		if got := Redact(tt.in); got != tt.want {
			t.Errorf("Redact(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	// For a URL that parses, Redact agrees with (*uri.URL).Redacted.
	for _, s := range []string{"ftp://u:pw@h/x", "telnet://joe:sec%40ret@h:23/", "http://a:b@[::1]:80/p?q#f", "ftp://u:@h/", "user:pw@h/x", "mailto:a@b"} {
		if got, want := Redact(s), uri.MustParse(s).Redacted(); got != want {
			t.Errorf("Redact(%q) = %q, (*uri.URL).Redacted = %q", s, got, want)
		}
	}
}
