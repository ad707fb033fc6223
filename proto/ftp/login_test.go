package ftp

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// The commands after PASS go in the same write (RFC 959 section 4.2: the
// server answers each in turn): the server has FEAT, TYPE I and PWD
// before it answers PASS, and the login costs USER and PASS's round trips.
func TestLoginSendsAhead(t *testing.T) {
	f := newFake(t)
	f.passAhead = true
	f.files["f.bin"] = []byte("payload")
	f.pwd = `"/home/ftp"`
	f.start()
	d := &Driver{}
	defer d.CloseIdleConnections()
	var trace bytes.Buffer
	req := quickReq()
	req.Trace = &trace
	_, b, err := get(t, d, "ftp://bob:s3cret@"+f.addr()+"/a/f.bin", req)
	if err != nil || string(b) != "payload" {
		t.Fatalf("got %q, %v", b, err)
	}
	f.mu.Lock()
	ahead := slices.Clone(f.beforePass)
	f.mu.Unlock()
	if want := []string{"FEAT", "TYPE I", "PWD"}; !slices.Equal(ahead, want) {
		t.Errorf("before the reply to PASS the server had %q, want %q", ahead, want)
	}
	if strings.Contains(trace.String(), "s3cret") || !strings.Contains(trace.String(), "> PASS ****\n> FEAT\n") {
		t.Errorf("trace shows the password or not PASS then FEAT:\n%s", trace.String())
	}
	// The login directory came from the PWD sent ahead: a second URL on
	// the connection returns to it.
	if _, _, err := get(t, d, "ftp://bob:s3cret@"+f.addr()+"/b/f.bin", req); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(f.sent(), "CWD /home/ftp\r\nCWD b\r\n") {
		t.Errorf("sent %q: no return to the login directory of PWD", f.sent())
	}
}

// A refused PASS is the login error, whatever the server does with the
// commands sent after it: it answers them, closes the connection, or
// reads on and answers nothing. The client does not wait for their
// replies, and the password shows nowhere.
func TestLoginRefusedAfterSendAhead(t *testing.T) {
	for _, tc := range []struct {
		name   string
		prep   func(f *fakeFTP)
		status int
	}{
		// RFC 959 section 4.2: 530 not logged in.
		{"answers on", func(f *fakeFTP) { f.replies["PASS s3cret"] = "530 Login incorrect" }, StatusNotLoggedIn},
		{"closes", func(f *fakeFTP) {
			f.raw["PASS s3cret"] = []byte("530 Login incorrect\r\n")
			f.rawEnd = true
		}, StatusNotLoggedIn},
		{"goes silent", func(f *fakeFTP) {
			f.replies["PASS s3cret"] = "530 Login incorrect"
			f.silentAt = "FEAT"
		}, StatusNotLoggedIn},
		// RFC 959 section 5.4: 332 need account for login; no ACCT known.
		{"needs an account", func(f *fakeFTP) { f.replies["PASS s3cret"] = "332 need account" }, StatusNeedAccount},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			f.passAhead = true
			tc.prep(f)
			f.start()
			d := &Driver{}
			defer d.CloseIdleConnections()
			var trace bytes.Buffer
			req := quickReq()
			req.Trace = &trace
			_, _, err := get(t, d, "ftp://bob:s3cret@"+f.addr()+"/f.bin", req)
			var ce *CommandError
			if !errors.Is(err, proto.ErrLogin) || !errors.As(err, &ce) || ce.Cmd != "PASS ****" || replyCode(err) != tc.status {
				t.Fatalf("got %v, want the %d of PASS as proto.ErrLogin", err, tc.status)
			}
			if strings.Contains(err.Error()+trace.String(), "s3cret") {
				t.Errorf("the password shows: %v\n%s", err, trace.String())
			}
			f.mu.Lock()
			ahead := slices.Clone(f.beforePass)
			f.mu.Unlock()
			if !slices.Contains(ahead, "FEAT") || strings.Contains(f.sent(), "ACCT") {
				t.Errorf("before the reply to PASS the server had %q (sent %q), want FEAT and no ACCT", ahead, f.sent())
			}
		})
	}
}

// A server that logs the user in at USER (230, RFC 959 section 6) gets no
// PASS; FEAT, TYPE I and PWD go together.
func TestLoginWithoutPassword(t *testing.T) {
	f := newFake(t)
	f.replies["USER anonymous"] = "230 no password needed"
	f.files["f.bin"] = []byte("payload")
	f.start()
	d := &Driver{}
	defer d.CloseIdleConnections()
	if _, b, err := get(t, d, f.url("/f.bin"), quickReq()); err != nil || string(b) != "payload" {
		t.Fatalf("got %q, %v", b, err)
	}
	if s := f.sent(); strings.Contains(s, "PASS") || !strings.HasPrefix(s, "USER anonymous\r\nFEAT\r\nTYPE I\r\nPWD\r\n") {
		t.Errorf("sent %q, want USER, then FEAT, TYPE I and PWD and no PASS", s)
	}
}

// A mirror's new connection (DirectCWD, PipelinePassive) sends a CWD to
// its first directory, SYST and the EPSV of its first listing with PASS:
// the listing then needs LIST alone.
func TestLoginEntersFirstDirectory(t *testing.T) {
	f := newFake(t)
	f.passAhead, f.aheadTo = true, "EPSV"
	f.lists["LIST"] = []byte("-rw-r--r-- 1 ftp ftp 7 Jan 02 2024 f.bin\r\n")
	d, req := startPiped(t, f)
	req.Options.FTP.DirectCWD = true
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	var names []string
	if _, err := d.List(ctx, uri.MustParse(f.url("/a/b/")), req, func(e proto.Entry) error {
		names = append(names, e.Name)
		return nil
	}); err != nil || !slices.Equal(names, []string{"f.bin"}) {
		t.Fatalf("listed %q, %v", names, err)
	}
	f.mu.Lock()
	ahead := slices.Clone(f.beforePass)
	f.mu.Unlock()
	if want := []string{"FEAT", "TYPE I", "PWD", "CWD a/b", "SYST", "EPSV"}; !slices.Equal(ahead, want) {
		t.Errorf("before the reply to PASS the server had %q, want %q", ahead, want)
	}
	if s := f.sent(); !strings.HasSuffix(s, "EPSV\r\nLIST\r\n") || strings.Count(s, "CWD") != 1 || strings.Count(s, "EPSV") != 1 {
		t.Errorf("sent %q, want LIST right after the login's EPSV", s)
	}
}

// A CWD sent with PASS that the server refuses leaves the connection's
// place unknown: the URL returns to the login directory and finds the
// missing segment as without sending ahead (proto.ErrNotFound, the CWD
// named). With no login directory to return to (PWD refused), the URL
// goes on a new connection that does not send ahead.
func TestLoginFirstDirectoryRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		path string // a listing where a file would go by its path (enterFile)
		pwds []string
		want string // the commands after the first login's
	}{
		{"with a login directory", "/q/missing/", nil, "CWD q/missing|SYST|EPSV|CWD /q/missing|CWD /|CWD q|CWD missing|NOOP|QUIT"},
		{"without", "/q/missing/a", []string{"550 no", "550 no"}, "CWD q/missing|SYST|EPSV|" + anonLogin + "CWD q|CWD missing|NOOP|QUIT"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			f.pwds = tc.pwds
			for _, p := range []string{"missing", "q/missing", "/q/missing"} {
				f.replies["CWD "+p] = "550 no such directory"
			}
			d, req := startPiped(t, f)
			req.Options.FTP.DirectCWD = true
			_, _, err := get(t, d, f.url(tc.path), req)
			var ce *CommandError
			if !errors.Is(err, proto.ErrNotFound) || !errors.As(err, &ce) || ce.Cmd != "CWD missing" {
				t.Fatalf("got %v, want CWD missing refused as proto.ErrNotFound", err)
			}
			d.CloseIdleConnections()
			// The fake reads each connection on its own goroutine:
			// the first one's EPSV, which nothing waited for, may
			// be logged among the second's commands.
			want := commands(anonLogin + tc.want)
			f.changed.Until(5*time.Second, func() bool { return len(f.sent()) >= len(want) })
			got := f.sent()
			if strings.Replace(got, "EPSV\r\n", "", 1) != strings.Replace(want, "EPSV\r\n", "", 1) || strings.Count(got, "EPSV") != 1 {
				t.Errorf("sent:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

// A server that answers the commands sent after PASS before PASS itself
// (pyftpdlib delays its refusal of a wrong password, and answers FEAT in
// the meantime) is logged in to again with PASS alone: the refusal is the
// login error, not FEAT's reply taken for PASS's.
func TestLoginOutOfStep(t *testing.T) {
	f := newFake(t)
	f.lateRefusals = 1
	f.replies["PASS s3cret"] = "530 Authentication failed."
	f.start()
	d := &Driver{}
	defer d.CloseIdleConnections()
	var trace bytes.Buffer
	req := quickReq()
	req.Trace = &trace
	_, _, err := get(t, d, "ftp://bob:s3cret@"+f.addr()+"/f.bin", req)
	var ce *CommandError
	if !errors.Is(err, proto.ErrLogin) || !errors.As(err, &ce) || ce.Cmd != "PASS ****" || replyCode(err) != StatusNotLoggedIn {
		t.Fatalf("got %v, want the 530 of PASS as proto.ErrLogin", err)
	}
	if n := f.connCount(); n != 2 {
		t.Errorf("%d connections, want 2 (the second sends PASS alone)", n)
	}
	if strings.Contains(trace.String(), "s3cret") || !strings.Contains(trace.String(), "logging in again with PASS alone") {
		t.Errorf("trace shows the password or no note of the second login:\n%s", trace.String())
	}
}

// vsftpd (known by its greeting), which reads each command after it has
// answered the one before, gets USER in the write of PASS and the
// commands after it: the login is one round trip. A server that logs
// the user in at USER (230) answers the PASS too; that reply is dropped
// and the others stay in step. A refused USER is the login error. Another
// server, and vsftpd for a user's password in clear, get USER alone, then
// wait for its 331 (RFC 959 section 6).
func TestLoginUserWithPass(t *testing.T) {
	for _, tc := range []struct {
		name, greeting, userReply string
		status                    int    // of the error; 0 for none
		first                     string // the write that begins the login
	}{
		{"vsftpd", "220 (vsFTPd 3.0.3)", "", 0, "USER anonymous\r\nPASS anonymous@\r\nFEAT\r\nTYPE I\r\nPWD\r\n"},
		{"logged in at USER", "220 (vsFTPd 3.0.3)", "230 no password needed", 0, "USER anonymous\r\nPASS anonymous@\r\nFEAT\r\nTYPE I\r\nPWD\r\n"},
		{"USER refused", "220 (vsFTPd 3.0.3)", "530 not here", StatusNotLoggedIn, "USER anonymous\r\nPASS anonymous@\r\nFEAT\r\nTYPE I\r\nPWD\r\n"},
		{"another server", "220 fake ready", "", 0, "USER anonymous\r\n"},
		{"a user's password", "220 (vsFTPd 3.0.3)", "", 0, "USER bob\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			f.greeting = tc.greeting
			if tc.userReply != "" {
				f.replies["USER anonymous"] = tc.userReply
			}
			f.files["f.bin"] = []byte("payload")
			f.start()
			d := &Driver{}
			defer d.CloseIdleConnections()
			w := &writeLog{}
			req := quickReq()
			req.Dial = w.dial
			u := f.url("/f.bin")
			if strings.HasPrefix(tc.first, "USER bob") {
				u = "ftp://bob:s3cret@" + f.addr() + "/f.bin"
			}
			_, b, err := get(t, d, u, req)
			if tc.status != 0 {
				if replyCode(err) != tc.status {
					t.Fatalf("err %v, want a %d", err, tc.status)
				}
			} else if err != nil || string(b) != "payload" {
				t.Fatalf("got %q, %v", b, err)
			}
			if ws := w.all(); len(ws) == 0 || ws[0] != tc.first {
				t.Errorf("writes %q, want the first %q", ws, tc.first)
			}
		})
	}
}
