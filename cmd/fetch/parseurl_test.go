package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/uri"
)

// A URL of the command line: an absolute URL (RFC 1738 section 2.1, RFC
// 2396 section 3) is taken as it is; a reference without a scheme is
// completed by the heuristic of RFC 2396 Appendix F, with a note; anything
// else is a parse error naming the component.
func TestParseURL(t *testing.T) {
	for _, tc := range []struct {
		in, want  string // want "" when refused
		note      bool
		component string // the uri.Error's component when refused
	}{
		{"ftp://ftp.example.org/pub/", "ftp://ftp.example.org/pub/", false, ""},
		{"gopher://h.example/1/", "gopher://h.example/1/", false, ""},
		{"news:comp.lang.go", "news:comp.lang.go", false, ""},
		{"www.example.org/a", "http://www.example.org/a", true, ""}, // Appendix F's own example
		{"ftp.example.org", "ftp://ftp.example.org", true, ""},      // first label "ftp"
		{"gopher.example.org:7070/", "gopher://gopher.example.org:7070/", true, ""},
		{"user@example.org", "mailto:user@example.org", true, ""},
		{"example.org/a", "", false, "scheme"}, // no label names a scheme
		{"a b", "", false, ""},                 // a space is no URL character (RFC 1738 2.2)
		{"/etc/passwd", "", false, "scheme"},   // a path, not a URL
	} {
		u, note, err := parseURL(tc.in)
		if tc.want == "" {
			if err == nil {
				t.Errorf("parseURL(%q) = %v, want an error", tc.in, u)
				continue
			}
			var ue *uri.Error
			if !errors.As(err, &ue) {
				t.Errorf("parseURL(%q): %v is no *uri.Error", tc.in, err)
			} else if tc.component != "" && ue.Component != tc.component {
				t.Errorf("parseURL(%q): component %q, want %q", tc.in, ue.Component, tc.component)
			}
			continue
		}
		if err != nil || u.String() != tc.want || (note != "") != tc.note {
			t.Errorf("parseURL(%q) = %v, %q, %v; want %s, note %v", tc.in, u, note, err, tc.want, tc.note)
		}
	}
}

// FuzzParseURL: whatever the command line holds, a URL parseURL accepts has
// a scheme and is noted exactly when it was completed, and the password of
// a login (RFC 1738 section 3.1) is in neither the note nor the error.
func FuzzParseURL(f *testing.F) {
	for _, s := range []string{"ftp://u:Secr3t@h/p", "u:Secr3t@www.example.org/", "www.example.org", "u@example.org", "ftp://u:Secr3t@h:bad/", "http://u:Secr3t@[::1/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		u, note, err := parseURL(raw)
		if err == nil && u.Scheme == "" {
			t.Fatalf("parseURL(%q) = %v: no scheme", raw, u)
		}
		if err == nil && (note != "") != (!strings.HasPrefix(strings.ToLower(raw), strings.ToLower(u.Scheme)+":")) {
			t.Fatalf("parseURL(%q) = %v, note %q: a note exactly when completed", raw, u, note)
		}
		pass := loginPassword(raw)
		if len(pass) < 4 || strings.Count(raw, pass) != 1 {
			return // too short to tell from other text, or written twice
		}
		if strings.Contains(note, pass) {
			t.Fatalf("parseURL(%q): the note shows the password: %q", raw, note)
		}
		if err != nil && strings.Contains(err.Error(), pass) {
			t.Fatalf("parseURL(%q): the error shows the password: %v", raw, err)
		}
	})
}

// loginPassword is the password of the login that begins raw, as a
// person reading it would take one: after "scheme://" or a leading "//",
// or typed without either ("user:pass@host/p", where user is no scheme
// of RFC 1738), up to the last "@" before
// the next "/".
func loginPassword(raw string) string {
	if i := strings.Index(raw, "//"); i >= 0 && (i == 0 || i == strings.IndexByte(raw, ':')+1) {
		raw = raw[i+2:]
	} else if name, _, _ := strings.Cut(raw, ":"); strings.ContainsAny(name, "/@") || uri.LinkScheme(name) {
		return "" // a path, or mailto:joe@host
	}
	login, _, _ := strings.Cut(raw, "/")
	at := strings.LastIndexByte(login, '@')
	if at < 0 {
		return ""
	}
	_, pass, _ := strings.Cut(login[:at], ":")
	return pass
}
