package ftp

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/proto"
)

var netrcTests = []struct {
	name string
	in   string
	want []netrcEntry
}{
	// ftp(1): tokens separated by spaces, tabs or newlines.
	{"one line", "machine ftp.example.org login alice password secret",
		[]netrcEntry{{Machine: "ftp.example.org", Login: "alice", Password: "secret", HasPassword: true}}},
	{"several lines", "machine a\n\tlogin u\n\tpassword p\n\naccount acc\ndefault login anonymous password me@",
		[]netrcEntry{{Machine: "a", Login: "u", Password: "p", HasPassword: true, Account: "acc"}, {Default: true, Login: "anonymous", Password: "me@", HasPassword: true}}},
	// ftp(1): macdef's body runs to the next empty line and is skipped.
	{"macdef", "machine a login u password p\nmacdef init\nmachine evil password x\nbin\n\nmachine b login v password q",
		[]netrcEntry{{Machine: "a", Login: "u", Password: "p", HasPassword: true}, {Machine: "b", Login: "v", Password: "q", HasPassword: true}}},
	// curl and Python: quoted tokens with backslash escapes; comments.
	{"quoted", "# my hosts\nmachine a login \"u s\" password \"p\\\"w d\" # trailing",
		[]netrcEntry{{Machine: "a", Login: "u s", Password: "p\"w d", HasPassword: true}}},
	{"empty password", `machine a login u password ""`,
		[]netrcEntry{{Machine: "a", Login: "u", Password: "", HasPassword: true}}},
	{"unknown tokens", "machine a port 21 login u password p",
		[]netrcEntry{{Machine: "a", Login: "u", Password: "p", HasPassword: true}}},
	{"empty", "", nil},
}

func TestParseNetrc(t *testing.T) {
	for _, tt := range netrcTests {
		got, err := parseNetrc(tt.in)
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: parseNetrc(%q) = %+v, %v; want %+v", tt.name, tt.in, got, err, tt.want)
		}
	}
}

func TestParseNetrcErrors(t *testing.T) {
	for _, in := range []string{
		"machine",                        // machine without a name
		"machine a login",                // login without a value
		"login u password p",             // before any machine
		`machine a password "unfinished`, // unterminated quote
	} {
		_, err := parseNetrc(in)
		var ne *NetrcError
		if !errors.As(err, &ne) {
			t.Errorf("parseNetrc(%q) = %v, want a *NetrcError", in, err)
		}
	}
}

func TestLookupNetrc(t *testing.T) {
	entries, err := parseNetrc("machine Ftp.Example.org login alice password a1\n" +
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
}

// writeNetrc writes entries back as a .netrc file, every token quoted.
func writeNetrc(entries []netrcEntry) string {
	q := func(s string) string {
		return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
	}
	var b strings.Builder
	for _, e := range entries {
		if e.Default {
			b.WriteString("default")
		} else {
			b.WriteString("machine " + q(e.Machine))
		}
		if e.Login != "" {
			b.WriteString(" login " + q(e.Login))
		}
		if e.HasPassword {
			b.WriteString(" password " + q(e.Password))
		}
		if e.Account != "" {
			b.WriteString(" account " + q(e.Account))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// FuzzParseNetrc: parsing never panics, and a parsed file written back
// (every token quoted) parses to the same entries.
func FuzzParseNetrc(f *testing.F) {
	for _, tt := range netrcTests {
		f.Add(tt.in)
	}
	f.Add("macdef x\n\n\nmachine \"a\\\\b\" password \"\\\"\"")
	f.Fuzz(func(t *testing.T, in string) {
		entries, err := parseNetrc(in)
		if err != nil {
			return
		}
		again := writeNetrc(entries)
		got, err := parseNetrc(again)
		if err != nil || !reflect.DeepEqual(got, entries) {
			t.Errorf("parseNetrc(%q) = %+v; written back as %q it parses to %+v, %v", in, entries, again, got, err)
		}
	})
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
	netrc := filepath.Join(dir, "netrc")
	host, port := "127.0.0.1", f.port()
	if err := os.WriteFile(netrc, []byte("machine "+host+" login bob password fromnetrc\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	url := func(user string) string { return "ftp://" + user + "@" + host + ":" + port + "/f" }

	t.Run("netrc", func(t *testing.T) {
		req := quickReq()
		req.Options = map[string]string{"netrc": netrc}
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
		d := &Driver{MaxIdleConnsPerHost: -1} // a fresh login each time
		for range 2 {
			req := quickReq()
			req.Prompt = p
			req.Options = map[string]string{"netrc": netrc} // no entry for carol
			if _, _, err := get(t, d, url("carol"), req); err != nil {
				t.Fatal(err)
			}
		}
		if len(p.asked) != 1 || p.echo[0] {
			t.Errorf("asked %q (echo %v), want one question without echo", p.asked, p.echo)
		}
		if n := strings.Count(f.sent(), "USER carol\r\nPASS typed\r\n"); n != 2 {
			t.Errorf("%d logins with the typed password, want 2", n)
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
		req.Options = map[string]string{"email": "me@example.org"}
		d := &Driver{}
		defer d.CloseIdleConnections()
		if _, _, err := get(t, d, "ftp://"+host+":"+port+"/f", req); err != nil {
			t.Fatal(err)
		}
		if _, _, err := get(t, d, url("ftp"), req); err != nil {
			t.Fatal(err)
		}
		s := f.sent()
		if !strings.Contains(s, "USER anonymous\r\nPASS me@example.org\r\n") || !strings.Contains(s, "USER ftp\r\nPASS me@example.org\r\n") {
			t.Errorf("sent %q, want anonymous logins with the e-mail address", s)
		}
	})
	t.Run("missing netrc", func(t *testing.T) {
		req := quickReq()
		req.Options = map[string]string{"netrc": filepath.Join(dir, "absent")}
		_, _, err := get(t, &Driver{}, url("bob"), req)
		if !errors.Is(err, os.ErrNotExist) {
			t.Errorf("Fetch = %v, want os.ErrNotExist", err)
		}
	})
}
