package ftp

import (
	"context"
	"errors"
	"maps"
	"net/textproto"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// SYST (RFC 959 section 4.1.3) is asked once per connection, before its
// first LIST; its 215 reply is kept, and a refusal is no error: the
// connection goes on, its replies still in step.
func TestAskSYST(t *testing.T) {
	for _, tt := range []struct {
		name, reply, want string
	}{
		{"unix", "215 UNIX Type: L8", "UNIX Type: L8"},
		// VMS servers name themselves and their version (MultiNet, UCX).
		{"vms", "215 VMS MultiNet V4.4", "VMS MultiNet V4.4"},
		// A multi-line reply (RFC 959 section 4.2): the first line's text.
		{"multi-line", "215-Windows_NT\r\n215 version 6.2", "Windows_NT"},
		// RFC 959 section 5.4: SYST may be refused.
		{"refused", "502 SYST not implemented", ""},
		{"syntax", "500 what?", ""},
		{"not 215", "200 hello", ""},
		{"control bytes", "215 UNIX\x1b[2J Type: L8", `UNIX\x1b[2J Type: L8`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t)
			f.replies["SYST"] = tt.reply
			f.start()
			d := &Driver{}
			defer d.CloseIdleConnections()
			c := openConn(t, d, f)
			if err := c.askSYST(); err != nil {
				t.Fatalf("askSYST() = %v", err)
			}
			if c.syst != tt.want {
				t.Errorf("syst = %q, want %q", c.syst, tt.want)
			}
			if err := c.askSYST(); err != nil {
				t.Fatalf("second askSYST() = %v", err)
			}
			if err := c.noop(); err != nil {
				t.Errorf("NOOP after SYST = %v: the replies are out of step", err)
			}
			d.release(c)
			d.CloseIdleConnections()
			want := commands(anonLogin + "SYST|NOOP|QUIT")
			waitSent(t, f, want)
		})
	}
}

// A server that answers SYST with bytes that are no reply fails the
// connection, and the error names SYST.
func TestAskSYSTBroken(t *testing.T) {
	f := newFake(t)
	f.raw["SYST"] = []byte("this is not a reply\r\n")
	f.start()
	d := &Driver{}
	defer d.CloseIdleConnections()
	c := openConn(t, d, f)
	err := c.askSYST()
	var ce *CommandError
	if !errors.As(err, &ce) || ce.Cmd != "SYST" {
		t.Fatalf("askSYST() = %v, want a *CommandError naming SYST", err)
	}
	var pe *proto.ProtocolError
	if !errors.As(err, &pe) && !c.dead {
		t.Errorf("askSYST() = %v: the connection should be given up", err)
	}
	d.release(c)
}

// Two listings on one connection ask SYST once.
func TestSYSTOncePerConnection(t *testing.T) {
	f := newFake(t)
	f.replies["SYST"] = "215 UNIX Type: L8"
	f.lists["LIST"] = []byte("-rw-r--r-- 1 u g 4 Jan 01 2020 x\r\n")
	f.start()
	d := &Driver{}
	for range 2 {
		if _, _, err := get(t, d, f.url("/"), quickReq()); err != nil {
			t.Fatal(err)
		}
	}
	d.CloseIdleConnections()
	waitSent(t, f, commands(anonLogin+"SYST|EPSV|LIST|EPSV|LIST|QUIT"))
}

// openConn logs a connection in to f and returns it checked out.
func openConn(t *testing.T, d *Driver, f *fakeFTP) *conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	t.Cleanup(cancel)
	c, err := d.open(ctx, uri.MustParse(f.url("/")), nil, quickReq(), true)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// RFC 959 appendix II: the directory name comes first in the 257 reply,
// in double quotes, a quote inside it doubled; commentary follows.
var parsePWDTests = []struct {
	msg  string
	want string
	ok   bool
}{
	// RFC 959 appendix II, the example reply.
	{`"/usr/dm" is current directory.`, "/usr/dm", true},
	// RFC 959 appendix II: embedded double quotes are doubled.
	{`"/usr/dm/foo""bar" created.`, `/usr/dm/foo"bar`, true},
	// Commentary with quotes of its own (the library took the last quote).
	{`"/pub" is "current"`, "/pub", true},
	// VMS (MultiNet, UCX): the directory in the system's own syntax.
	{`"DISK$USER:[ANONYMOUS]" is current directory.`, "DISK$USER:[ANONYMOUS]", true},
	{`"SYS$SYSDEVICE:[ANONYMOUS.PUB]" is current directory.`, "SYS$SYSDEVICE:[ANONYMOUS.PUB]", true},
	// Old servers without quotes: the first word.
	{`/home/ftp is the current directory`, "/home/ftp", true},
	// Nothing usable.
	{`""`, "", false},
	{`"/unterminated`, "", false},
	{``, "", false},
	{`   `, "", false},
}

func TestParsePWD(t *testing.T) {
	for _, tt := range parsePWDTests {
		got, ok := parsePWD(tt.msg)
		if got != tt.want || ok != tt.ok {
			t.Errorf("parsePWD(%q) = %q, %v, want %q, %v", tt.msg, got, ok, tt.want, tt.ok)
		}
	}
}

func FuzzParsePWD(f *testing.F) {
	for _, tt := range parsePWDTests {
		f.Add(tt.msg)
	}
	f.Fuzz(func(t *testing.T, msg string) {
		dir, ok := parsePWD(msg)
		if ok != (dir != "") {
			t.Fatalf("parsePWD(%q) = %q, %v: ok must say whether a name was found", msg, dir, ok)
		}
		if len(dir) > len(msg) {
			t.Fatalf("parsePWD(%q) = %q: longer than the reply", msg, dir)
		}
		// A name written back the RFC's way parses to itself.
		if ok && !strings.ContainsAny(dir, "\r\n") {
			quoted := `"` + strings.ReplaceAll(dir, `"`, `""`) + `" is current directory`
			if again, ok := parsePWD(quoted); !ok || again != dir {
				t.Fatalf("parsePWD(%q) = %q, %v, want %q", quoted, again, ok, dir)
			}
		}
	})
}

// loginDir takes only a 257 reply, and never a name that could not be
// sent back in a CWD.
func TestLoginDir(t *testing.T) {
	for _, tt := range []struct {
		last *textproto.Error
		want string
	}{
		{&textproto.Error{Code: 257, Msg: `"/pub" is cwd`}, "/pub"},
		{&textproto.Error{Code: 550, Msg: `"/pub" no`}, ""},
		{&textproto.Error{Code: 257, Msg: "\"/a\rb\" is cwd"}, ""},
		{nil, ""},
	} {
		if got := loginDir(tt.last); got != tt.want {
			t.Errorf("loginDir(%v) = %q, want %q", tt.last, got, tt.want)
		}
	}
}

// TestSYSTWithEPSV: a pipelined listing sends its EPSV with SYST, before
// SYST's reply is read (one round trip for both, as the trace shows);
// the replies stay in step when SYST or EPSV is refused (EPSV refused:
// the listing falls back to PASV), and the next command reads its own.
func TestSYSTWithEPSV(t *testing.T) {
	for _, tc := range []struct {
		name    string
		replies map[string]string
		want    string // the commands
	}{
		{"both answered", nil, anonLogin + "SYST|EPSV|LIST|NOOP|QUIT"},
		{"SYST refused", map[string]string{"SYST": "502 no"}, anonLogin + "SYST|EPSV|LIST|NOOP|QUIT"},
		{"EPSV refused", map[string]string{"EPSV": "500 no"}, anonLogin + "SYST|EPSV|EPSV|PASV|LIST|NOOP|QUIT"}, // the library asks EPSV again, as it did,
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			f.replies["SYST"] = "215 UNIX Type: L8"
			maps.Copy(f.replies, tc.replies)
			f.lists["LIST"] = []byte("-rw-r--r-- 1 u g 4 Jan 01 2020 x\r\n")
			f.start()
			d := New(Config{PipelinePassive: true})
			req := quickReq()
			var trace strings.Builder
			req.Trace = &trace
			resp, _, err := get(t, d, f.url("/"), req)
			if err != nil || len(resp.Entries) != 1 {
				t.Fatalf("listing = %v, %v\n%s", resp, err, trace.String())
			}
			if tc.replies == nil && !strings.Contains(trace.String(), "> SYST\n> EPSV\n< 215") {
				t.Errorf("EPSV not sent with SYST:\n%s", trace.String())
			}
			c := openConnReuse(t, d, f)
			if err := c.noop(); err != nil {
				t.Errorf("NOOP = %v: the replies are out of step", err)
			}
			d.release(c)
			d.CloseIdleConnections()
			waitSent(t, f, commands(tc.want))
		})
	}
}

// openConnReuse checks out the pooled connection to f (no new login).
func openConnReuse(t *testing.T, d *Driver, f *fakeFTP) *conn {
	t.Helper()
	c, err := d.open(t.Context(), uri.MustParse(f.url("/")), nil, quickReq(), false)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
