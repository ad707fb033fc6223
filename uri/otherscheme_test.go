package uri

import (
	"errors"
	"testing"
)

// A view asked of a URL of another scheme wraps ErrOtherScheme; a view of
// a malformed URL of its own scheme does not (RFC 1738 sections 3.2 to
// 3.11 give each scheme its own syntax).
func TestViewOtherScheme(t *testing.T) {
	views := map[string]func(u *URL) error{
		"ftp":      func(u *URL) error { _, err := u.FTP(); return err },
		"http":     func(u *URL) error { _, err := u.HTTP(); return err },
		"gopher":   func(u *URL) error { _, err := u.Gopher(); return err },
		"news":     func(u *URL) error { _, err := u.News(); return err },
		"nntp":     func(u *URL) error { _, err := u.NNTP(); return err },
		"telnet":   func(u *URL) error { _, err := u.Telnet(); return err },
		"wais":     func(u *URL) error { _, err := u.WAIS(); return err },
		"file":     func(u *URL) error { _, err := u.File(); return err },
		"prospero": func(u *URL) error { _, err := u.Prospero(); return err },
		"mailto":   func(u *URL) error { _, err := u.Mailto(); return err },
	}
	tests := []struct {
		raw   string
		view  string
		other bool
	}{
		{"http://h/a", "ftp", true},
		{"ftp://h/a", "http", true},
		{"https://h/a", "gopher", true},
		{"ftp://h/a", "news", true},
		{"news:comp.lang.go", "nntp", true},
		{"nntp://h/g", "news", true},
		{"ftp://h/", "telnet", true},
		{"ftp://h/", "wais", true},
		{"ftp://h/", "file", true},
		{"ftp://h/", "prospero", true},
		{"ftp://h/", "mailto", true},
		{"ftp://h/a;type=x", "ftp", false},   // section 3.2.2: typecode a, i or d
		{"gopher:relative", "gopher", false}, // section 3.1: needs "//"
		{"https://h/a", "http", false},
		{"news:comp.lang.go", "news", false},
	}
	for _, tt := range tests {
		u, err := Parse(tt.raw)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tt.raw, err)
		}
		err = views[tt.view](u)
		if got := errors.Is(err, ErrOtherScheme); got != tt.other {
			t.Errorf("%s view of %q: %v; wraps ErrOtherScheme %v, want %v", tt.view, tt.raw, err, got, tt.other)
		}
		var ue *Error
		if tt.other && (!errors.As(err, &ue) || ue.Component != "scheme") {
			t.Errorf("%s view of %q: %v, want a *Error of the scheme", tt.view, tt.raw, err)
		}
	}
}
