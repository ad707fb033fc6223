//go:build linux

package telnet

import (
	"reflect"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/internal/testrig/ptytest"
	"github.com/rfc1738/fetch/internal/testrig/servertest"
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// telnetdLogin starts Interactive on pt against the real inetutils-telnetd
// of scripts/servers.sh and logs in as the person would, typing the
// fixture user and password (Interactive types nothing itself).
func telnetdLogin(t *testing.T, s servertest.Server, pt *ptytest.PTY) (done <-chan outcome, trace, notice *syncBuffer) {
	t.Helper()
	tty, err := NewTTY(pt.Slave, pt.Slave, "xterm")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tty.Close() })
	trace, notice = &syncBuffer{}, &syncBuffer{}
	u := uri.MustParse("telnet://" + uri.Escape(s.User, "") + ":" + uri.Escape(s.Pass, "") + "@" + s.Addr + "/")
	ch := make(chan outcome, 1)
	go func() {
		defer func() {
			if v := recover(); v != nil {
				ch <- outcome{panicked: v}
			}
		}()
		ch <- outcome{err: Interactive(t.Context(), u, &proto.Request{Trace: trace}, tty, notice)}
	}()
	pt.WaitOutput(t, "login: ")
	pt.Type(t, s.User+"\r")
	// The fixture's login program turns the echo of its pty off before it
	// prints "Password: " (scripts/fixtures.sh), so the password typed
	// once the prompt shows is never echoed.
	pt.WaitOutput(t, "Password: ")
	pt.Type(t, s.Pass+"\r")
	pt.WaitOutput(t, "Welcome, "+s.User+".")
	pt.WaitOutput(t, "$ ")
	return ch, trace, notice
}

// checkNoPassword fails when the password shows in any of the texts.
func checkNoPassword(t *testing.T, pass string, texts map[string]string) {
	t.Helper()
	for name, s := range texts {
		if strings.Contains(s, pass) {
			t.Errorf("the password shows in the %s: %q", name, s)
		}
	}
}

// TestTelnetd: log in to inetutils-telnetd through a pseudo-terminal, run a
// command and see its output, leave with Ctrl-]; the terminal modes are
// those of before, the options were negotiated (RFC 1091 TTYPE, RFC 1073
// NAWS with the terminal's size), and the password shows nowhere.
func TestTelnetd(t *testing.T) {
	s := servertest.Get(t, servertest.Telnet)
	pt := ptytest.Open(t, 100, 30)
	before := pt.Termios(t)
	done, trace, notice := telnetdLogin(t, s, pt)

	pt.Type(t, "echo hello-fetch\r")
	pt.WaitOutput(t, "echo hello-fetch\r\nhello-fetch\r\n$ ")
	pt.Type(t, "\x1d")
	o := wait(t, done)
	if o.err != nil || o.panicked != nil {
		t.Fatalf("Interactive = %v (panic %v), want nil", o.err, o.panicked)
	}
	if after := pt.Termios(t); !reflect.DeepEqual(after, before) {
		t.Errorf("termios after the session = %+v, want %+v", after, before)
	}
	for _, want := range []string{"< DO TTYPE\r\n> WILL TTYPE\r\n", "> SB TTYPE IS xterm\r\n", "> SB NAWS 100 30\r\n"} {
		if !strings.Contains(trace.String(), want) {
			t.Errorf("trace %q lacks %q", trace.String(), want)
		}
	}
	if want := "suggested user: " + s.User + "; a password was suggested (not shown)\n"; !strings.Contains(notice.String(), want) {
		t.Errorf("notices %q lack the advice %q", notice.String(), want)
	}
	checkNoPassword(t, s.Pass, map[string]string{"terminal": pt.Output(), "trace": trace.String(), "notices": notice.String()})
	t.Logf("negotiation:\n%s", strings.ReplaceAll(trace.String(), "\r\n", "\n"))
	t.Logf("terminal: %q", pt.Output())
}

// TestTelnetdLogout: the server ending the session (logout) ends
// Interactive with nil and the terminal restored.
func TestTelnetdLogout(t *testing.T) {
	s := servertest.Get(t, servertest.Telnet)
	pt := ptytest.Open(t, 80, 24)
	before := pt.Termios(t)
	done, _, notice := telnetdLogin(t, s, pt)
	pt.Type(t, "whoami\r")
	pt.WaitOutput(t, "whoami\r\n"+s.User+"\r\n$ ")
	pt.Type(t, "logout\r")
	o := wait(t, done)
	if o.err != nil || o.panicked != nil {
		t.Fatalf("Interactive = %v (panic %v), want nil", o.err, o.panicked)
	}
	if after := pt.Termios(t); !reflect.DeepEqual(after, before) {
		t.Errorf("termios after the session = %+v, want %+v", after, before)
	}
	if !strings.HasSuffix(notice.String(), "connection closed\n") {
		t.Errorf("notices = %q, want a last line saying the connection closed", notice.String())
	}
}
