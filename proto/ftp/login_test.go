package ftp

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/proto"
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
