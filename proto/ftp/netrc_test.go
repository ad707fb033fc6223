package ftp

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/internal/netrc"
	"github.com/rfc1738/fetch/proto"
)

func TestLookupNetrc(t *testing.T) {
	entries, err := netrc.Parse("machine Ftp.Example.org login alice password a1\n" +
		"machine ftp.example.org login bob password b1\n" +
		"machine other password any\n" +
		"machine nopass login carol\n" +
		"default login dave password d1\n")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		host, user, want string
		ok               bool
	}{
		{"ftp.example.org", "alice", "a1", true}, // host names compare without case
		{"ftp.example.org", "bob", "b1", true},
		{"ftp.example.org", "carol", "", false}, // no entry for carol there, default is dave's
		{"other", "anyone", "any", true},        // an entry without login fits any user
		{"nopass", "carol", "", false},          // login without password: no password
		{"elsewhere", "dave", "d1", true},       // default
	}
	for _, tt := range tests {
		got, ok := lookupNetrc(entries, tt.host, tt.user)
		if got != tt.want || ok != tt.ok {
			t.Errorf("lookupNetrc(%q, %q) = %q, %v; want %q, %v", tt.host, tt.user, got, ok, tt.want, tt.ok)
		}
	}
	// The login of a URL without a user: the host's first entry that
	// names one, else the default's.
	for host, want := range map[string]string{
		"FTP.example.org": "alice",
		"other":           "dave", // its entry names no login
		"nopass":          "carol",
		"elsewhere":       "dave",
	} {
		if got := loginFor(entries, host); got != want {
			t.Errorf("loginFor(%q) = %q, want %q", host, got, want)
		}
	}
	if got := loginFor(entries[:4], "elsewhere"); got != "" {
		t.Errorf("loginFor without a default entry = %q, want none", got)
	}
}

// fakePrompt answers every question with answer and counts them.
type fakePrompt struct {
	answer string
	asked  []string
	echo   []bool
}

func (p *fakePrompt) Ask(ctx context.Context, prompt string, echo bool) (string, error) {
	p.asked = append(p.asked, prompt)
	p.echo = append(p.echo, echo)
	return p.answer, nil
}

// RFC 1738 3.2.1: a URL user without a password: .netrc, else the terminal,
// else a clear error.
func TestLoginSources(t *testing.T) {
	f := newFake(t)
	f.files["f"] = []byte("x")
	f.start()
	dir := t.TempDir()
	netrcPath := filepath.Join(dir, "netrc")
	host, port := "127.0.0.1", f.port()
	if err := os.WriteFile(netrcPath, []byte("machine "+host+" login bob password fromnetrc\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	url := func(user string) string { return "ftp://" + user + "@" + host + ":" + port + "/f" }

	t.Run("netrc", func(t *testing.T) {
		req := quickReq()
		req.Options = proto.Options{Netrc: netrcPath}
		d := &Driver{}
		defer d.CloseIdleConnections()
		if _, _, err := get(t, d, url("bob"), req); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(f.sent(), "USER bob\r\nPASS fromnetrc\r\n") {
			t.Errorf("sent %q, want the .netrc password", f.sent())
		}
	})
	t.Run("prompt once", func(t *testing.T) {
		p := &fakePrompt{answer: "typed"}
		d := New(Config{MaxIdleConnsPerHost: -1}) // a fresh login each time
		for range 2 {
			req := quickReq()
			req.Prompt = p
			req.Options = proto.Options{Netrc: netrcPath} // no entry for carol
			if _, _, err := get(t, d, url("carol"), req); err != nil {
				t.Fatal(err)
			}
		}
		if len(p.asked) != 1 || p.echo[0] {
			t.Errorf("asked %q (echo %v), want one question without echo", p.asked, p.echo)
		}
		// The fake logs every connection's commands in one transcript, and
		// the first connection's QUIT may land between the second's USER
		// and PASS: count each command, not the pair.
		sent := f.sent()
		if u, p := strings.Count(sent, "USER carol\r\n"), strings.Count(sent, "PASS typed\r\n"); u != 2 || p != 2 {
			t.Errorf("USER carol %d times, PASS typed %d times, want 2 logins with the typed password", u, p)
		}
	})
	t.Run("no terminal", func(t *testing.T) {
		before := f.connCount()
		d := &Driver{}
		_, _, err := get(t, d, url("erin"), quickReq())
		if !errors.Is(err, proto.ErrLogin) {
			t.Errorf("Fetch = %v, want ErrLogin", err)
		}
		if f.connCount() != before {
			t.Errorf("a connection was made without a password")
		}
	})
	t.Run("anonymous", func(t *testing.T) {
		req := quickReq()
		req.Options = proto.Options{Email: "me@example.org"}
		d := &Driver{}
		defer d.CloseIdleConnections()
		if _, _, err := get(t, d, "ftp://"+host+":"+port+"/f", req); err != nil {
			t.Fatal(err)
		}
		if _, _, err := get(t, d, url("ftp"), req); err != nil {
			t.Fatal(err)
		}
		// Count each command, not the pair: an earlier subtest's QUIT
		// may land between USER and PASS (see "prompt once").
		s := f.sent()
		if strings.Count(s, "USER anonymous\r\n") != 1 || strings.Count(s, "USER ftp\r\n") != 1 || strings.Count(s, "PASS me@example.org\r\n") != 2 {
			t.Errorf("sent %q, want anonymous logins with the e-mail address", s)
		}
	})
	t.Run("missing netrc", func(t *testing.T) {
		req := quickReq()
		req.Options = proto.Options{Netrc: filepath.Join(dir, "absent")}
		_, _, err := get(t, &Driver{}, url("bob"), req)
		if !errors.Is(err, os.ErrNotExist) {
			t.Errorf("Fetch = %v, want os.ErrNotExist", err)
		}
	})
	t.Run("malformed netrc", func(t *testing.T) {
		// A parse error after a password token: the error names the
		// file and the line (the message is what is under test here),
		// never the password.
		bad := filepath.Join(dir, "bad")
		if err := os.WriteFile(bad, []byte("machine "+host+" login bob password hunter2\nlogin"), 0o600); err != nil {
			t.Fatal(err)
		}
		before := f.connCount()
		req := quickReq()
		req.Options = proto.Options{Netrc: bad}
		_, _, err := get(t, &Driver{}, url("bob"), req)
		var ne *NetrcError
		if !errors.As(err, &ne) || ne.Line != 2 {
			t.Fatalf("Fetch = %v, want a *NetrcError on line 2", err)
		}
		if msg := err.Error(); !strings.Contains(msg, "ftp: netrc "+bad+": line 2: ") || strings.Contains(msg, "hunter2") {
			t.Errorf("Fetch error %q, want it to name %s and line 2, and not the password", msg, bad)
		}
		if f.connCount() != before {
			t.Errorf("a connection was made with a malformed .netrc")
		}
	})
}

// curl and ftp(1): with a .netrc, a URL that names no user logs in as the
// login of its host's entry; without an entry for the host, or without
// the file, anonymously.
func TestNetrcLogin(t *testing.T) {
	f := newFake(t)
	f.files["f"] = []byte("x")
	f.start()
	dir := t.TempDir()
	netrcPath := filepath.Join(dir, "netrc")
	host, port := "127.0.0.1", f.port()
	if err := os.WriteFile(netrcPath, []byte("machine "+host+" login bob password fromnetrc\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Run("netrc login for a URL without user", func(t *testing.T) {
		// curl and ftp(1): with a .netrc, a URL that names no user
		// logs in as the machine's login, with its password.
		req := quickReq()
		req.Options = proto.Options{Netrc: netrcPath, Email: "me@example.org"}
		d := &Driver{}
		before := len(f.sent())
		if _, _, err := get(t, d, "ftp://"+host+":"+port+"/f", req); err != nil {
			t.Fatal(err)
		}
		f.closeIdle(d)
		if s := f.sent()[before:]; !strings.Contains(s, "USER bob\r\nPASS fromnetrc\r\n") || strings.Contains(s, "me@example.org") {
			t.Errorf("sent %q, want the .netrc login and password, not an anonymous login", s)
		}
	})
	t.Run("netrc without the host", func(t *testing.T) {
		// No entry for this host (and no default): anonymous; a
		// missing file is no entry either.
		other := filepath.Join(dir, "other")
		if err := os.WriteFile(other, []byte("machine elsewhere login bob password b\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		for _, path := range []string{other, filepath.Join(dir, "absent")} {
			req := quickReq()
			req.Options = proto.Options{Netrc: path, Email: "anon" + filepath.Base(path) + "@example.org"}
			d := &Driver{}
			before := len(f.sent())
			if _, _, err := get(t, d, "ftp://"+host+":"+port+"/f", req); err != nil {
				t.Fatal(err)
			}
			f.closeIdle(d)
			if s := f.sent()[before:]; !strings.Contains(s, "USER anonymous\r\nPASS "+req.Options.Email+"\r\n") {
				t.Errorf("%s: sent %q, want an anonymous login", path, s)
			}
		}
	})
}
