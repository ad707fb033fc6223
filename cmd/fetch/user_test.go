package main

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/afero"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
)

// answerPrompt is a terminal that answers every question with answer,
// and records the questions.
type answerPrompt struct {
	answer string
	asked  []string
}

func (p *answerPrompt) Ask(_ context.Context, prompt string, echo bool) (string, error) {
	if echo {
		return "", errors.New("the password was asked for with echo")
	}
	p.asked = append(p.asked, prompt)
	return p.answer, nil
}

// Issue 30 acceptance: "fetch -u a:b ftp://127.0.0.1:PORT/..." logs in as
// a, in place of the URL's own user; without ":PASSWORD" the password is
// asked for on the terminal (no echo), and without a terminal the login
// fails. The password shows nowhere in the output or the -v trace.
func TestGetUserFlag(t *testing.T) {
	const secret = "s3cret-pw"
	mem := afero.NewMemMapFs()
	if err := afero.WriteFile(mem, "/pub/f.bin", []byte("data\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, user, pass, url string
		prompt                *answerPrompt
		code                  int
	}{
		{"-u a:b", "a:b", "b", "/pub/f.bin", nil, fetch.ExitOK},
		{"-u over the URL's user", "a:" + secret, secret, "x:y@", nil, fetch.ExitOK},
		{"-u with an escaped-looking password", "a:p%40ss:w", "p%40ss:w", "", nil, fetch.ExitOK},
		{"-u a, prompted", "a", secret, "", &answerPrompt{answer: secret}, fetch.ExitOK},
		{"-u a, no terminal", "a", secret, "", nil, fetch.ExitServer},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, err := fetchtest.StartFTP(mem, fetchtest.FTPOptions{User: "a", Password: tt.pass})
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			raw := "ftp://" + srv.Addr() + "/pub/f.bin"
			if strings.HasSuffix(tt.url, "@") {
				raw = "ftp://" + tt.url + srv.Addr() + "/pub/f.bin"
			}
			e, out, errb := newEnv("", &netlog{})
			if tt.prompt != nil {
				e.prompt = tt.prompt
			}
			code := runIn(t, e, "get", "-v", "-u", tt.user, raw)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\n%s", code, tt.code, errb.String())
			}
			want := "> USER a\n" // the password is found before connecting
			if code != fetch.ExitOK {
				want = `user "a"`
			}
			if !strings.Contains(errb.String(), want) {
				t.Errorf("no %q in the trace:\n%s", want, errb.String())
			}
			// The password came with -u, not in a URL the user wrote.
			if tt.url == "" && strings.Contains(errb.String(), "password-in-url") {
				t.Errorf("-u gave a password-in-url warning:\n%s", errb.String())
			}
			if code == fetch.ExitOK && out.String() != "data\n" {
				t.Errorf("stdout = %q", out.String())
			}
			if tt.prompt != nil && len(tt.prompt.asked) != 1 {
				t.Errorf("asked %q, want one question", tt.prompt.asked)
			}
			if len(tt.pass) >= minSecret && strings.Contains(errb.String()+out.String(), tt.pass) {
				t.Errorf("the password shows:\n%s", errb.String())
			}
		})
	}
}

// fetch mirror -u logs in as the user given too.
func TestMirrorUserFlag(t *testing.T) {
	mem := afero.NewMemMapFs()
	if err := afero.WriteFile(mem, "/pub/f.bin", []byte("data\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv, err := fetchtest.StartFTP(mem, fetchtest.FTPOptions{User: "a", Password: "s3cret-pw"})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	dir := t.TempDir()
	r := runArgs(t, nil, "", "mirror", "-v", "-u", "a:s3cret-pw", "ftp://"+srv.Addr()+"/pub/", dir)
	if r.code != fetch.ExitOK {
		t.Fatalf("exit %d\n%s", r.code, r.err)
	}
	if !strings.Contains(r.err, "> USER a\n") || strings.Contains(r.err+r.out, "s3cret-pw") {
		t.Errorf("want USER a and no password in:\n%s", r.err)
	}
	// Nor in the files the mirror keeps (its manifest names the URL).
	filepath.WalkDir(dir, func(p string, de fs.DirEntry, err error) error {
		if b, rerr := os.ReadFile(p); err == nil && !de.IsDir() && rerr == nil && bytes.Contains(b, []byte("s3cret-pw")) {
			t.Errorf("%s holds the password", p)
		}
		return nil
	})
}

// -u with nothing before the colon is a usage error.
func TestUserFlagUsage(t *testing.T) {
	r := runArgs(t, nil, "", "get", "-u", ":pw", "ftp://127.0.0.1:1/f")
	if r.code != fetch.ExitUsage {
		t.Fatalf("exit %d, want %d\n%s", r.code, fetch.ExitUsage, r.err)
	}
}

// withUser puts the -u login into each form of URL with a server part,
// the abbreviated ones (RFC 2396 Appendix F) completed first, escaping
// what RFC 1738 section 3.1 reserves in a user or password.
func TestWithUser(t *testing.T) {
	tests := []struct {
		user, raw, want string
	}{
		{"", "ftp://x:y@h/f", "ftp://x:y@h/f"},
		{"a:b", "ftp://h/f", "ftp://a:b@h/f"},
		{"a:b", "ftp://x:y@h:21/f;type=i", "ftp://a:b@h:21/f;type=i"},
		{"a", "ftp://x:y@h/f", "ftp://a@h/f"},
		{"a@b:p/q:r", "ftp://h/", "ftp://a%40b:p%2Fq%3Ar@h/"},
		{"a:", "ftp://h/", "ftp://a:@h/"},
		{"a:b", "ftp.example.org/pub/", "ftp://a:b@ftp.example.org/pub/"},
		{"a:b", "mailto:x@example.org", "mailto:x@example.org"},
		{"a:b", "news:comp.lang.go", "news:comp.lang.go"},
	}
	for _, tt := range tests {
		o := &getOptions{user: tt.user}
		if got := o.withUser(tt.raw); got != tt.want {
			t.Errorf("-u %q %q = %q, want %q", tt.user, tt.raw, got, tt.want)
		}
	}
}
