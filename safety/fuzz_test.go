package safety_test

import (
	"errors"
	"strings"
	"testing"

	. "github.com/rfc1738/fetch/safety"
	"github.com/rfc1738/fetch/uri"
)

// canary replaces every alphanumeric byte of s[from:to] that is not part of
// a "%XX" escape with letters of a fixed cycle, keeping the length and
// every other byte, so that the URL keeps its structure.
const canaryCycle = "QZJXKV"

func canary(s string, spans [][2]int) (string, int) {
	b := []byte(s)
	n := 0
	for _, sp := range spans {
		for i := sp[0]; i < sp[1]; i++ {
			c := b[i]
			if c == '%' && i+2 < sp[1] {
				i += 2
				continue
			}
			if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' {
				b[i] = canaryCycle[n%len(canaryCycle)]
				n++
			}
		}
	}
	return string(b), n
}

// canaryWindows are the 4-letter texts any run of canary letters contains.
func canaryWindows() []string {
	var ws []string
	c := canaryCycle + canaryCycle
	for i := range len(canaryCycle) {
		ws = append(ws, c[i:i+4])
	}
	return ws
}

func containsAny(s string, subs []string) bool {
	for _, w := range subs {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// FuzzCheck: arbitrary strings through CheckString, Check and Evaluate
// never panic; findings are ordered; the components found are where the
// input has them; and no message, error or redaction shows a password.
func FuzzCheck(f *testing.F) {
	for _, tt := range checkTests {
		f.Add(tt.in)
	}
	for _, s := range []string{
		"", ":", "//", "ftp://", "gopher://h/1%09%09%09%09", "ftp://u:p:q@h:0/;type=a",
		"news://u:pw@h:119/<a@b>", "prospero://h/;=", "wais://h/a/b/c?d", "mailto:%00",
		"file://localhost/%0A", "telnet://u:pw@[fe80::1]:2323", "ftp://u:pw/x@h:99999/p",
		"http://h:8080/a@b", "x://u:secretpw@h/a;type=secretpw",
	} {
		f.Add(s)
	}
	windows := canaryWindows()
	f.Fuzz(func(t *testing.T, raw string) {
		u, fs := CheckString(raw, Policy{Wire: wire})
		_ = Redact(raw)
		for i := 1; i < len(fs); i++ {
			if fs[i].Level > fs[i-1].Level {
				t.Fatalf("CheckString(%q) not most severe first: %v", raw, fs)
			}
		}
		if u == nil {
			if len(fs) != 1 || fs[0].Rule != RuleMalformed || fs[0].Level != Error {
				t.Fatalf("CheckString(%q) = nil URL with %v", raw, fs)
			}
		} else {
			if fs2 := Check(u, Policy{Wire: wire}); !equalFindings(fs, fs2) {
				t.Fatalf("Check(Parse(%q)) = %v, CheckString = %v", raw, fs2, fs)
			}
			checkParts(t, raw, u)
			p := Policy{Wire: wire}
			if u.Port != "" {
				p.AllowPorts = []int{u.PortNumber()}
			}
			for _, p := range []Policy{{Wire: wire}, p} {
				fs, err := p.Evaluate(u)
				refuse := len(fs) > 0 && fs[0].Level == Error
				if refuse != (err != nil) || err != nil && !errors.Is(err, ErrRefused) {
					t.Fatalf("Evaluate(%q) = %v, %v", raw, fs, err)
				}
			}
			// The password's own characters never reach a message: a URL
			// with another password of the same shape gives the same findings.
			if pw, ok := u.User.EscapedPassword(); ok {
				cpw, _ := canary(pw, [][2]int{{0, len(pw)}})
				u2 := *u
				u2.User = uri.UserPassword(u.User.EscapedUsername(), cpw)
				if fs2 := Check(&u2, Policy{Wire: wire}); !equalFindings(fs, fs2) {
					t.Fatalf("findings depend on the password's letters:\n%q: %v\n%q: %v", raw, fs, u2.String(), fs2)
				}
			}
		}

		// Wherever a password may be, canary letters never come back out:
		// in a URL that parses, its password and the passwords of URLs
		// nested after its server part; in one that does not, whatever
		// Redact would mask.
		if containsAny(raw, windows) {
			return
		}
		spans := PasswordSpans(raw)
		if u != nil {
			spans = nil
			s := u.String()
			pass, path, opaque := LayoutOf(u, s)
			if pw, ok := u.User.EscapedPassword(); ok {
				spans = append(spans, [2]int{pass, pass + len(pw)})
			}
			start := path
			if u.Opaque != "" {
				start = opaque
			}
			for _, sp := range PasswordSpans(s[start:]) {
				spans = append(spans, [2]int{start + sp[0], start + sp[1]})
			}
			raw = s
		}
		raw2, n := canary(raw, spans)
		if n < 4 {
			return
		}
		u2, fs2 := CheckString(raw2, Policy{Wire: wire})
		out := messages(fs2)
		if u2 == nil {
			out += Redact(raw2)
		} else {
			out += RedactedURL(u2)
			if _, err := (Policy{Wire: wire}).Evaluate(u2); err != nil {
				out += err.Error()
			}
		}
		if containsAny(out, windows) {
			t.Fatalf("password text shown for %q:\n%s", raw2, out)
		}
	})
}

func equalFindings(a, b []Finding) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
