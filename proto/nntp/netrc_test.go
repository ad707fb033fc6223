package nntp

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/internal/netrc"
	"github.com/rfc1738/fetch/uri"
)

func TestNetrcLookup(t *testing.T) {
	entries, err := netrc.Parse("# machine news.example login old password 0\n" +
		"default login anon password leak\n" +
		"machine News.Example login a password 1\n" +
		"machine news.example login b password 2\n" +
		"machine nopass.example login c\n")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name                   string
		host, login, wantLogin string
		ok                     bool
	}{
		{"first entry for the host, case-insensitive", "news.example", "", "a", true},
		{"the entry with that login", "NEWS.EXAMPLE", "b", "b", true},
		{"no entry with that login", "news.example", "c", "", false},
		{"the default entry is never used", "other", "", "", false},
		{"nor for a named login", "other", "anon", "", false},
		{"an entry without a password still gives the login", "nopass.example", "", "c", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, ok := netrcLookup(entries, tt.host, tt.login)
			if ok != tt.ok || e.Login != tt.wantLogin {
				t.Errorf("netrcLookup(%q, %q) = %+v, %v, want login %q, %v", tt.host, tt.login, e, ok, tt.wantLogin, tt.ok)
			}
		})
	}
}

// TestNetrcMalformed: a malformed .netrc file is an error naming the file
// and the line, not a file without entries, and the error does not show a
// password read before the fault.
func TestNetrcMalformed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "netrc")
	data := "machine 127.0.0.1 login reader password hunter2\n\naccount \"unfinished"
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	u, err := uri.Parse("nntp://127.0.0.1/g/1")
	if err != nil {
		t.Fatal(err)
	}
	cr, err := credentialsFor(u, "127.0.0.1", path)
	var ne *netrc.Error
	if !errors.As(err, &ne) || ne.Line != 3 || cr != nil {
		t.Fatalf("credentialsFor with a malformed .netrc = %+v, %v, want a *netrc.Error on line 3", cr, err)
	}
	// The message itself is under test: it must name the file and the
	// line, and not the password.
	if msg := err.Error(); !strings.HasPrefix(msg, "nntp: netrc "+path+": line 3: ") || strings.Contains(msg, "hunter2") {
		t.Errorf("credentialsFor error %q, want it to name %s and line 3, and not the password", msg, path)
	}
}
