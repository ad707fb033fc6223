package ftp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/proto/prototest"
	"github.com/rfc1738/fetch/retry"
	"github.com/rfc1738/fetch/uri"
)

// The password never appears in the transcript, and PASS is shown as
// "PASS ****" (DESIGN: passwords never appear in traces or errors).
func TestTraceRedactsPassword(t *testing.T) {
	const secret = "s3cr3t-Pw"
	f := newFake(t)
	f.files["f.bin"] = []byte("x")
	// A server that echoes the password back in a reply.
	f.replies["PASS "+secret] = "230 welcome, your password was " + secret
	f.start()
	var trace bytes.Buffer
	req := quickReq()
	req.Trace = &trace
	d := &Driver{}
	defer d.CloseIdleConnections()
	raw := "ftp://alice:" + secret + "@" + f.addr() + "/f.bin"
	if _, _, err := get(t, d, raw, req); err != nil {
		t.Fatal(err)
	}
	tr := trace.String()
	if strings.Contains(tr, secret) {
		t.Errorf("trace holds the password:\n%s", tr)
	}
	for _, want := range []string{"> USER alice\n", "> PASS ****\n", "< 230 welcome, your password was ****\n", "> RETR f.bin\n", "< 226 transfer complete\n"} {
		if !strings.Contains(tr, want) {
			t.Errorf("trace lacks %q:\n%s", want, tr)
		}
	}
	// The wire carried the password, of course.
	if !strings.Contains(f.sent(), "PASS "+secret+"\r\n") {
		t.Errorf("sent %q, want PASS with the password", f.sent())
	}
}

// A refusal that echoes the password does not put it in the error.
func TestErrorRedactsPassword(t *testing.T) {
	const secret = "s3cr3t-Pw"
	f := newFake(t)
	f.replies["PASS "+secret] = "530 wrong password " + secret
	f.start()
	d := &Driver{}
	_, _, err := get(t, d, "ftp://alice:"+secret+"@"+f.addr()+"/f.bin", quickReq())
	if !errors.Is(err, proto.ErrLogin) {
		t.Fatalf("Fetch = %v, want ErrLogin", err)
	}
	if strings.Contains(err.Error(), secret) {
		t.Errorf("error holds the password: %v", err)
	}
}

// silentTests: a server that stops talking must give an error within the
// idle timeout, wherever it stops.
func TestSilentServer(t *testing.T) {
	tests := []struct {
		name  string
		setup func(f *fakeFTP)
	}{
		{"no greeting", func(f *fakeFTP) { f.greeting = "" }},
		{"after PASS", func(f *fakeFTP) { f.silentAt = "PASS" }},
		{"after RETR", func(f *fakeFTP) { f.silentAt = "RETR" }},
		{"mid-transfer", func(f *fakeFTP) { f.stallAt = 1000 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t)
			f.files["f.bin"] = bytes.Repeat([]byte("x"), 100000)
			tt.setup(f)
			f.start()
			req := &proto.Request{ConnectTimeout: time.Second, IdleTimeout: 300 * time.Millisecond}
			d := &Driver{}
			defer d.CloseIdleConnections()
			start := time.Now()
			_, _, err := get(t, d, f.url("/f.bin"), req)
			took := time.Since(start)
			if err == nil {
				t.Fatal("Fetch from a silent server succeeded")
			}
			var ne net.Error
			if !errors.As(err, &ne) || !ne.Timeout() {
				t.Errorf("Fetch = %v, want a timeout", err)
			}
			if took > 2*time.Second {
				t.Errorf("Fetch took %v with a 300ms idle timeout", took)
			}
		})
	}
}

// Cancelling the context ends a Fetch blocked on a silent server at once.
func TestCancelSilent(t *testing.T) {
	f := newFake(t)
	f.silentAt = "PASS"
	f.start()
	req := &proto.Request{ConnectTimeout: time.Second, IdleTimeout: time.Minute}
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(200*time.Millisecond, cancel)
	d := &Driver{}
	start := time.Now()
	_, err := d.Fetch(ctx, uri.MustParse(f.url("/f.bin")), req)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Fetch = %v, want context.Canceled", err)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("Fetch returned %v after the cancel", took)
	}
}

// A 1 MiB reply line, or a reply of endless lines, is refused with a
// ProtocolError, and the client does not buffer it whole.
func TestLongReplyLine(t *testing.T) {
	for _, where := range []string{"greeting", "CWD", "many lines"} {
		t.Run(where, func(t *testing.T) {
			f := newFake(t)
			long := append(bytes.Repeat([]byte("x"), 1<<20), "\r\n"...)
			switch where {
			case "greeting":
				copy(long, "220 ")
				f.raw[""] = long
			case "CWD":
				copy(long, "250 ")
				f.raw["CWD pub"] = long
			default:
				// A multi-line reply that never ends: 2 MiB of short lines.
				f.raw["CWD pub"] = bytes.Repeat([]byte("250-a continuation line\r\n"), 80000)
			}
			f.start()
			d := &Driver{}
			defer d.CloseIdleConnections()
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			_, _, err := get(t, d, f.url("/pub/f.bin"), quickReq())
			runtime.ReadMemStats(&after)
			var pe *proto.ProtocolError
			if !errors.As(err, &pe) {
				t.Fatalf("Fetch = %v, want a *proto.ProtocolError", err)
			}
			grew := after.TotalAlloc - before.TotalAlloc
			t.Logf("allocated %d bytes; error: %v", grew, err)
			limit := uint64(128 << 10)
			if where == "many lines" {
				// textproto keeps each line and the joined message: a few
				// times the 256 KiB reply budget, not the 2 MiB sent.
				limit = 2 << 20
			}
			if grew > limit {
				t.Errorf("Fetch allocated %d bytes for a refused 1 MiB line", grew)
			}
		})
	}
}

// recordDial is a proto.DialFunc that records every address dialled and
// connects only to 127.0.0.1: a client that dials the address a fake
// names in a reply fails without sending anything there.
type recordDial struct {
	mu    sync.Mutex
	addrs []string
}

// errNotLoopback is recordDial's refusal of an address other than 127.0.0.1.
var errNotLoopback = errors.New("test dialer: only 127.0.0.1 is dialled")

func (r *recordDial) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	r.mu.Lock()
	r.addrs = append(r.addrs, addr)
	r.mu.Unlock()
	if host, _, _ := net.SplitHostPort(addr); host != "127.0.0.1" {
		return nil, errNotLoopback
	}
	var d net.Dialer
	return d.DialContext(ctx, network, addr)
}

// The address in a PASV reply is ignored: the data connection goes to the
// control connection's peer, through the request's dialer (RFC 2577
// section 3, "bounce" and "port stealing"; DESIGN: safety applies to data
// connections).
func TestBogusPASV(t *testing.T) {
	f := newFake(t)
	f.noEPSV = true
	f.pasvHost = "10.1.2.3"
	f.files["f.bin"] = []byte("payload")
	f.start()
	rd := &recordDial{}
	req := quickReq()
	req.Dial = rd.dial
	d := &Driver{}
	defer d.CloseIdleConnections()
	_, b, err := get(t, d, f.url("/f.bin"), req)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != "payload" {
		t.Errorf("body = %q", b)
	}
	if !strings.Contains(f.sent(), "EPSV\r\nPASV\r\n") {
		t.Errorf("sent %q, want EPSV then PASV", f.sent())
	}
	if len(rd.addrs) != 2 {
		t.Fatalf("dialled %q, want the control and one data connection", rd.addrs)
	}
	for _, a := range rd.addrs {
		if host, _, _ := net.SplitHostPort(a); host != "127.0.0.1" {
			t.Errorf("dialled %s, want only 127.0.0.1", a)
		}
	}
}

// An EPSV or PASV reply may name any port of the server's host, that of
// another service (here a listener that greets as SMTP does). The data
// connection goes there, but the client writes no byte on it: RETR and
// the listings only read their data connection, so no line of another
// protocol's commands can reach that port from this client, and the
// port rules of the safety policy (which keep a URL's text off another
// protocol's port) have nothing to refuse. The policy's dialer still
// judges the address (TestDataDialPolicy).
func TestDataPortOfAnotherService(t *testing.T) {
	for _, verb := range []string{"EPSV", "PASV"} {
		t.Run(verb, func(t *testing.T) {
			trap := prototest.Listen(t)
			done := make(chan struct{})
			go func() {
				defer close(done)
				c, err := trap.Accept()
				if err != nil {
					return
				}
				defer c.Close()
				c.SetDeadline(time.Now().Add(10 * time.Second))
				io.WriteString(c, "220 mail.example ESMTP\r\n")
				io.Copy(io.Discard, c)
			}()
			port := trap.Addr().(*net.TCPAddr).Port
			f := newFake(t)
			if verb == "PASV" {
				f.noEPSV = true
				f.replies["PASV"] = fmt.Sprintf("227 Entering Passive Mode (127,0,0,1,%d,%d)", port>>8, port&0xff)
			} else {
				f.replies["EPSV"] = fmt.Sprintf("229 Entering Extended Passive Mode (|||%d|)", port)
			}
			f.files["f.bin"] = []byte("payload")
			f.start()
			d := &Driver{}
			get(t, d, f.url("/f.bin"), quickReq())
			d.CloseIdleConnections()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("the data connection was not closed")
			}
			if trap.Accepts() != 1 {
				t.Errorf("%d connections to the port the %s reply named, want 1", trap.Accepts(), verb)
			}
			if b := trap.Bytes(); len(b) != 0 {
				t.Errorf("the client sent %q on the data connection", b)
			}
		})
	}
}

// A data dial refused by the request's dialer (a deny-private policy, say)
// fails the Fetch.
func TestDataDialPolicy(t *testing.T) {
	f := newFake(t)
	f.files["f.bin"] = []byte("payload")
	f.start()
	errDenied := errors.New("denied by policy")
	n := 0
	req := quickReq()
	req.Dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
		n++
		if n > 1 {
			return nil, errDenied
		}
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}
	d := &Driver{}
	defer d.CloseIdleConnections()
	_, _, err := get(t, d, f.url("/f.bin"), req)
	if !errors.Is(err, errDenied) {
		t.Errorf("Fetch = %v, want the dialer's refusal", err)
	}
}

// Names that are dangerous as paths come back as entries, untouched; the
// caller must check them (proto.Entry's doc says so).
func TestHostileListingNames(t *testing.T) {
	f := newFake(t)
	f.feat = append(f.feat, "MLST type*;size*;modify*;")
	f.lists["MLSD"] = []byte("type=file;size=1; ../x\r\n" +
		"type=file;size=2; /etc/passwd\r\n" +
		"type=file;size=3; cr\rinside\r\n" +
		"type=file;size=4; lf\ninside\r\n" +
		"type=dir; ..\r\n" +
		"type=cdir; .\r\n")
	f.start()
	d := &Driver{}
	defer d.CloseIdleConnections()
	resp, _, err := get(t, d, f.url("/"), quickReq())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range resp.Entries {
		names = append(names, e.Name)
	}
	// "lf\ninside": the LF ends the line, so "lf" is a name and "inside"
	// is no entry at all.
	want := []string{"../x", "/etc/passwd", "cr\rinside", "lf"}
	if strings.Join(names, "|") != strings.Join(want, "|") {
		t.Errorf("names = %q, want %q", names, want)
	}
	for _, e := range resp.Entries {
		if !strings.HasPrefix(e.URL, "ftp://"+f.addr()+"/") || strings.ContainsAny(e.URL, "\r\n") || strings.Contains(e.URL[6:], "/../") {
			t.Errorf("entry %q has URL %q", e.Name, e.URL)
		}
	}
}

// Reuse: the next URL rides on the first login, after an absolute CWD
// back to the login directory when it names another directory (RFC 1738
// section 3.2.5), with no CWD when it names the same one, and with no TYPE
// when the connection is in that type already.
func TestReuseReturnsHome(t *testing.T) {
	f := newFake(t)
	f.pwd = `"/home/ftp"`
	f.files["a"] = []byte("A")
	f.files["b"] = []byte("B")
	f.start()
	d := &Driver{}
	defer d.CloseIdleConnections()
	for _, p := range []string{"/x/a", "/y/b", "/y/a;type=a", "/a"} {
		if _, _, err := get(t, d, f.url(p), quickReq()); err != nil {
			t.Fatalf("Fetch(%q) = %v", p, err)
		}
	}
	want := commands("USER anonymous|PASS anonymous@|FEAT|TYPE I|PWD|" +
		"CWD x|TYPE I|SIZE a|MDTM a|EPSV|RETR a|" +
		"CWD /home/ftp|CWD y|SIZE b|MDTM b|EPSV|RETR b|" +
		"TYPE A|MDTM a|EPSV|RETR a|" +
		"CWD /home/ftp|TYPE I|SIZE a|MDTM a|EPSV|RETR a")
	if got := f.sent(); got != want {
		t.Errorf("sent\n%q\nwant\n%q", got, want)
	}
	if n := f.connCount(); n != 1 {
		t.Errorf("%d control connections, want 1", n)
	}
}

// PWD that gives nothing usable: every URL gets a fresh login.
func TestNoReuseWithoutPWD(t *testing.T) {
	f := newFake(t)
	f.replies["PWD"] = "502 PWD not implemented"
	f.files["a"] = []byte("A")
	f.start()
	d := &Driver{}
	defer d.CloseIdleConnections()
	for range 2 {
		if _, _, err := get(t, d, f.url("/x/a"), quickReq()); err != nil {
			t.Fatal(err)
		}
	}
	if n := strings.Count(f.sent(), "USER "); n != 2 {
		t.Errorf("%d logins, want 2", n)
	}
}

// After an error the connection is checked with NOOP before it is kept.
func TestNOOPAfterError(t *testing.T) {
	f := newFake(t)
	f.files["a"] = []byte("A")
	f.start()
	d := &Driver{}
	defer d.CloseIdleConnections()
	if _, _, err := get(t, d, f.url("/missing"), quickReq()); !errors.Is(err, proto.ErrNotFound) {
		t.Fatalf("Fetch(missing) = %v", err)
	}
	if _, _, err := get(t, d, f.url("/a"), quickReq()); err != nil {
		t.Fatal(err)
	}
	sent := f.sent()
	if !strings.Contains(sent, "RETR missing\r\nNOOP\r\n") || strings.Count(sent, "USER ") != 1 {
		t.Errorf("sent %q, want NOOP after the failure and one login", sent)
	}
}

// A pooled connection the server has dropped is replaced transparently.
func TestReuseAfterServerDrop(t *testing.T) {
	f := newFake(t)
	f.files["a"] = []byte("A")
	f.replies["CWD /"] = "421 Timeout."
	f.start()
	d := &Driver{}
	defer d.CloseIdleConnections()
	var trace bytes.Buffer
	req := quickReq()
	req.Trace = &trace
	for _, p := range []string{"/x/a", "/y/a"} {
		if _, b, err := get(t, d, f.url(p), req); err != nil || string(b) != "A" {
			t.Fatalf("Fetch(%q) = %q, %v", p, b, err)
		}
	}
	if !strings.Contains(trace.String(), "retrying on a new connection") {
		t.Errorf("trace does not show the retry:\n%s", trace.String())
	}
	if n := f.connCount(); n != 2 {
		t.Errorf("%d connections, want 2 (the dropped one replaced)", n)
	}
}

// Resume: REST with the offset; Response.Offset says where Body starts.
func TestResume(t *testing.T) {
	f := newFake(t)
	f.files["f.bin"] = []byte("0123456789")
	f.start()
	d := &Driver{}
	defer d.CloseIdleConnections()
	req := quickReq()
	req.Offset = 4
	resp, b, err := get(t, d, f.url("/f.bin"), req)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != "456789" || resp.Offset != 4 || resp.Size != 10 {
		t.Errorf("body %q, Offset %d, Size %d; want 456789, 4, 10", b, resp.Offset, resp.Size)
	}
	if !strings.Contains(f.sent(), "EPSV\r\nREST 4\r\nRETR f.bin\r\n") {
		t.Errorf("sent %q, want REST 4 before RETR", f.sent())
	}
}

// A server that refuses REST: the transfer restarts from 0 and says so.
func TestResumeRefused(t *testing.T) {
	f := newFake(t)
	f.files["f.bin"] = []byte("0123456789")
	f.replies["REST 4"] = "502 REST not implemented"
	f.start()
	var trace bytes.Buffer
	req := quickReq()
	req.Offset = 4
	req.Trace = &trace
	d := &Driver{}
	defer d.CloseIdleConnections()
	resp, b, err := get(t, d, f.url("/f.bin"), req)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != "0123456789" || resp.Offset != 0 {
		t.Errorf("body %q, Offset %d; want the whole file from 0", b, resp.Offset)
	}
	if !strings.Contains(trace.String(), "* REST 4 refused") {
		t.Errorf("trace does not say REST was refused:\n%s", trace.String())
	}
}

// A transfer cut short (the server closes the data connection and says
// 426) is an error, never a silent truncation.
func TestCutTransfer(t *testing.T) {
	f := newFake(t)
	f.files["f.bin"] = bytes.Repeat([]byte("z"), 5000)
	f.cutAt = 1234
	f.start()
	d := &Driver{}
	defer d.CloseIdleConnections()
	u := uri.MustParse(f.url("/f.bin"))
	resp, err := d.Fetch(t.Context(), u, quickReq())
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if len(b) != 1234 {
		t.Errorf("read %d bytes before the error, want 1234", len(b))
	}
	var ce *CommandError
	if !errors.As(err, &ce) || replyCode(err) != 426 {
		t.Errorf("read error = %v, want the 426 reply", err)
	}
}

// A transfer cut short that the server answers with a permanent-looking
// 550 (ftpserverlib's "Issue during transfer" when the data connection
// broke under it) is a cut transfer, worth another attempt: not "not
// found", since the server said 150 and sent part of the file.
func TestCutTransfer550(t *testing.T) {
	f := newFake(t)
	f.files["f.bin"] = bytes.Repeat([]byte("z"), 5000)
	f.cutAt = 1234
	f.cutReply = "550 Issue during transfer: network error: broken pipe"
	f.start()
	d := &Driver{}
	defer d.CloseIdleConnections()
	resp, err := d.Fetch(t.Context(), uri.MustParse(f.url("/f.bin")), quickReq())
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.ReadAll(resp.Body)
	resp.Body.Close()
	if errors.Is(err, proto.ErrNotFound) || !errors.Is(err, io.ErrUnexpectedEOF) || !retry.Transient(err) {
		t.Errorf("read error = %v, want a cut transfer (io.ErrUnexpectedEOF, transient), not ErrNotFound", err)
	}
	if !strings.Contains(fmt.Sprint(err), "after 1234 of 5000 bytes, then 550 Issue during transfer") {
		t.Errorf("read error = %v, want the bytes and the server's reply named", err)
	}
}

// A transfer cut short that the server answers with a second preliminary
// reply where the completion reply is due (RFC 959 section 4.2: after 1yz
// comes 2yz, 4yz or 5yz): Pure-FTPd's "150 0.004 seconds (measured
// here)..." when the data connection broke under it. A cut transfer, worth
// another attempt, with or without pipelining, with the size known or
// not; and the connection is still good for the next retrieval.
func TestCutTransferPreliminaryAgain(t *testing.T) {
	const stale = "150 0.004 seconds (measured here), 1075.17 Mbytes per second"
	for _, tc := range []struct {
		name string
		pipe bool
		stat proto.FTPStat
		want string
	}{
		{"size known", false, proto.StatAll, "after 1234 of 5000 bytes, then " + stale + " where the completion reply was due"},
		{"size known, pipelined", true, proto.StatAll, "after 1234 of 5000 bytes, then " + stale},
		{"size unknown", false, proto.StatNone, "after 1234 bytes, then " + stale},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			f.files["f.bin"] = bytes.Repeat([]byte("z"), 5000)
			f.files["g.bin"] = []byte("whole")
			f.cutAt = 1234
			f.cutReply = stale
			f.start()
			d := New(Config{PipelinePassive: tc.pipe})
			defer d.CloseIdleConnections()
			req := quickReq()
			req.Options.FTP.Stat = tc.stat
			resp, err := d.Fetch(t.Context(), uri.MustParse(f.url("/f.bin")), req)
			if err != nil {
				t.Fatal(err)
			}
			_, err = io.ReadAll(resp.Body)
			resp.Body.Close()
			if !errors.Is(err, io.ErrUnexpectedEOF) || !retry.Transient(err) {
				t.Errorf("read error = %v, want a cut transfer (io.ErrUnexpectedEOF, transient)", err)
			}
			if !strings.Contains(fmt.Sprint(err), tc.want) {
				t.Errorf("read error = %v, want it to say %q", err, tc.want)
			}
			if _, b, err := get(t, d, f.url("/g.bin"), req); err != nil || string(b) != "whole" {
				t.Errorf("next retrieval = %q, %v", b, err)
			}
		})
	}
}

// A server whose SIZE promised more than the data connection carried, but
// which still says 226: the shortfall is io.ErrUnexpectedEOF.
func TestShortTransferDetected(t *testing.T) {
	f := newFake(t)
	f.files["f.bin"] = []byte("0123456789")
	f.replies["SIZE f.bin"] = "213 20"
	f.start()
	d := &Driver{}
	defer d.CloseIdleConnections()
	_, _, err := get(t, d, f.url("/f.bin"), quickReq())
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("Fetch = %v, want io.ErrUnexpectedEOF", err)
	}
}

// With StatNone, the size the caller knows from a listing
// (FTPOptions.Size) is checked as SIZE's would be, without asking: a data
// connection that brings fewer bytes, with a 226, is io.ErrUnexpectedEOF
// (a mirror must not take, nor archive, part of a file as the file). In
// TYPE A the bytes on the wire are not the stored bytes, so it is not
// checked there.
func TestListedSizeChecked(t *testing.T) {
	f := newFake(t)
	f.files["f.bin"] = []byte("0123456789")
	f.files["f.txt"] = []byte("0123456789")
	f.start()
	d := &Driver{}
	defer d.CloseIdleConnections()
	listed := func(n int64) *proto.Request {
		r := quickReq()
		r.Options.FTP = proto.FTPOptions{Stat: proto.StatNone, Size: n}
		return r
	}
	if _, _, err := get(t, d, f.url("/f.bin"), listed(20)); !errors.Is(err, io.ErrUnexpectedEOF) || !strings.Contains(fmt.Sprint(err), "after 10 of 20 bytes") {
		t.Errorf("listed 20, got 10: %v, want io.ErrUnexpectedEOF naming both", err)
	}
	resp, b, err := get(t, d, f.url("/f.bin"), listed(10))
	if err != nil || string(b) != "0123456789" || resp.Size != 10 {
		t.Errorf("listed 10: %q, %v", b, err)
	}
	if _, b, err := get(t, d, f.url("/f.txt;type=a"), listed(20)); err != nil || string(b) != "0123456789" {
		t.Errorf("TYPE A, listed 20: %q, %v", b, err)
	}
	f.mu.Lock()
	wire := f.wire.String()
	f.mu.Unlock()
	if strings.Contains(wire, "SIZE") {
		t.Errorf("SIZE sent with StatNone:\n%s", wire)
	}
}

// Closing a body early does not hang and does not leak the connection's
// token: the next Fetch works.
func TestEarlyClose(t *testing.T) {
	f := newFake(t)
	f.files["big"] = bytes.Repeat([]byte("b"), 4<<20)
	f.files["a"] = []byte("A")
	f.start()
	d := New(Config{MaxConnsPerHost: 1})
	defer d.CloseIdleConnections()
	resp, err := d.Fetch(t.Context(), uri.MustParse(f.url("/big")), quickReq())
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 100)
	io.ReadFull(resp.Body, buf)
	if err := resp.Body.Close(); err != nil {
		t.Errorf("Close = %v", err)
	}
	if err := resp.Body.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
	if _, err := resp.Body.Read(buf); err == nil {
		t.Errorf("Read after Close succeeded")
	}
	if _, b, err := get(t, d, f.url("/a"), quickReq()); err != nil || string(b) != "A" {
		t.Errorf("next Fetch = %q, %v", b, err)
	}
}

// MaxConnsPerHost: a caller beyond the limit waits, and gives up with its
// context.
func TestMaxConnsWaits(t *testing.T) {
	f := newFake(t)
	f.files["a"] = []byte("A")
	f.start()
	d := New(Config{MaxConnsPerHost: 1})
	defer d.CloseIdleConnections()
	resp, err := d.Fetch(t.Context(), uri.MustParse(f.url("/a")), quickReq())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	if _, err := d.Fetch(ctx, uri.MustParse(f.url("/a")), quickReq()); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("second Fetch = %v, want it to wait and time out", err)
	}
	io.ReadAll(resp.Body)
	resp.Body.Close()
	if _, b, err := get(t, d, f.url("/a"), quickReq()); err != nil || string(b) != "A" {
		t.Errorf("Fetch after release = %q, %v", b, err)
	}
}

// Arguments with CR, LF or NUL never reach the wire, even from a URL built
// by hand (no uri.Parse).
func TestUnsafeArguments(t *testing.T) {
	f := newFake(t)
	f.start()
	d := &Driver{}
	defer d.CloseIdleConnections()
	for _, bad := range []*uri.URL{
		{Scheme: "ftp", HasAuthority: true, Host: "127.0.0.1", Port: f.port(), Path: "/a%0D%0ADELE%20x/f"},
		{Scheme: "ftp", HasAuthority: true, Host: "127.0.0.1", Port: f.port(), Path: "/f%00x"},
		{Scheme: "ftp", HasAuthority: true, Host: "127.0.0.1", Port: f.port(), Path: "/f", User: uri.UserPassword("u", "p%0AQUIT")},
		{Scheme: "ftp", HasAuthority: true, Host: "127.0.0.1", Port: f.port(), Path: "/f", User: uri.User("u%0DDELE")},
	} {
		_, err := d.Fetch(t.Context(), bad, quickReq())
		if !errors.Is(err, proto.ErrUnsafeArgument) {
			t.Errorf("Fetch(%s) = %v, want ErrUnsafeArgument", bad.Redacted(), err)
		}
	}
	if s := f.sent(); s != "" {
		t.Errorf("sent %q, want nothing", s)
	}
	req := quickReq()
	req.Options = proto.Options{Email: "me@\r\nDELE x"}
	if _, err := d.Fetch(t.Context(), uri.MustParse(f.url("/f")), req); !errors.Is(err, proto.ErrUnsafeArgument) {
		t.Errorf("Fetch with a CRLF e-mail = %v, want ErrUnsafeArgument", err)
	}
}

func (f *fakeFTP) port() string {
	_, p, _ := net.SplitHostPort(f.addr())
	return p
}

// TestCompletionReplyLost: the control connection ends after the whole
// file came on the data connection, with no 226 (a server that went away,
// or a NAT that dropped the connection idle through a long transfer). The
// transfer is not taken as whole; the error is a lost connection
// (io.ErrUnexpectedEOF, transient: exit 5, where a bare io.EOF gave exit
// 1) that names how far it came; the next retrieval dials again.
func TestCompletionReplyLost(t *testing.T) {
	for _, tc := range []struct {
		name string
		pipe bool
		rst  bool
		stat proto.FTPStat
		want string
	}{
		{"size known", false, false, proto.StatAll, "closed the control connection after 5000 of 5000 bytes, before its completion reply"},
		// The pipelined client may have sent its next EPSV, which the
		// server never reads: its close is then a reset.
		{"size known, pipelined", true, false, proto.StatAll, "after 5000 of 5000 bytes, before its completion reply"},
		{"size unknown", false, false, proto.StatNone, "after 5000 bytes, before its completion reply"},
		{"reset", false, true, proto.StatAll, "was reset after 5000 of 5000 bytes, before its completion reply"},
		{"reset, pipelined", true, true, proto.StatAll, "was reset after 5000 of 5000 bytes, before its completion reply"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			f.files["f.bin"] = bytes.Repeat([]byte("z"), 5000)
			f.files["g.bin"] = []byte("whole")
			f.hangUps, f.hangRST = 1, tc.rst
			f.start()
			d := New(Config{PipelinePassive: tc.pipe})
			defer d.CloseIdleConnections()
			req := quickReq()
			req.Options.FTP.Stat = tc.stat
			resp, err := d.Fetch(t.Context(), uri.MustParse(f.url("/f.bin")), req)
			if err != nil {
				t.Fatal(err)
			}
			b, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if !errors.Is(err, io.ErrUnexpectedEOF) || !retry.Transient(err) {
				t.Errorf("read %d bytes, error %v; want a lost connection (io.ErrUnexpectedEOF, transient)", len(b), err)
			}
			if !strings.Contains(fmt.Sprint(err), tc.want) {
				t.Errorf("read error = %v, want it to say %q", err, tc.want)
			}
			if _, b, err := get(t, d, f.url("/g.bin"), req); err != nil || string(b) != "whole" {
				t.Errorf("next retrieval = %q, %v", b, err)
			}
		})
	}
}

// TestCompletionReplyLostListing: a listing whose control connection ends
// where its 226 was due is not taken for the directory, and the failure
// is a lost connection (transient), for LIST and MLSD, pipelined or not.
func TestCompletionReplyLostListing(t *testing.T) {
	for _, pipe := range []bool{false, true} {
		for _, mlsd := range []bool{false, true} {
			t.Run(fmt.Sprintf("pipelined %v, MLSD %v", pipe, mlsd), func(t *testing.T) {
				f := newFake(t)
				f.lists["LIST"] = []byte("-rw-r--r-- 1 u g 5 Jan 01 2001 a.txt\r\n")
				f.lists["MLSD"] = []byte("type=file;size=5; a.txt\r\n")
				if mlsd {
					f.feat = append(f.feat, "MLST type*;size*;")
				}
				f.hangUps = 1
				f.start()
				d := New(Config{PipelinePassive: pipe})
				defer d.CloseIdleConnections()
				entries, _, err := proto.ListAll(t.Context(), d, uri.MustParse(f.url("/")), quickReq())
				if err == nil || !errors.Is(err, io.ErrUnexpectedEOF) || !retry.Transient(err) {
					t.Fatalf("List = %d entries, %v; want a lost connection (io.ErrUnexpectedEOF, transient)", len(entries), err)
				}
				if entries, _, err := proto.ListAll(t.Context(), d, uri.MustParse(f.url("/")), quickReq()); err != nil || len(entries) != 1 {
					t.Errorf("the next listing = %d entries, %v", len(entries), err)
				}
			})
		}
	}
}

// TestReuseGoesDown: a URL whose CWD list continues the previous URL's,
// all of which succeeded, sends only the rest of it (the server is where
// those CWDs took it); one beside or above it returns to the login
// directory first (RFC 1738 section 3.2.5); after a CWD that failed the
// place is not known and the whole list is sent again.
func TestReuseGoesDown(t *testing.T) {
	f := newFake(t)
	f.pwd = `"/home/ftp"`
	for _, n := range []string{"a", "b", "c"} {
		f.files[n] = []byte(n)
	}
	f.replies["CWD missing"] = "550 no such directory"
	f.start()
	d := &Driver{}
	defer d.CloseIdleConnections()
	for _, p := range []string{"/x/a", "/x/y/b", "/x/y/z/c", "/x/w/a", "/x/w/missing/b", "/x/w/b"} {
		get(t, d, f.url(p), quickReq())
	}
	want := commands("USER anonymous|PASS anonymous@|FEAT|TYPE I|PWD|" +
		"CWD x|TYPE I|SIZE a|MDTM a|EPSV|RETR a|" +
		"CWD y|SIZE b|MDTM b|EPSV|RETR b|" +
		"CWD z|SIZE c|MDTM c|EPSV|RETR c|" +
		"CWD /home/ftp|CWD x|CWD w|SIZE a|MDTM a|EPSV|RETR a|" +
		"CWD missing|NOOP|" +
		"CWD /home/ftp|CWD x|CWD w|SIZE b|MDTM b|EPSV|RETR b")
	if got := f.sent(); got != want {
		t.Errorf("sent\n%q\nwant\n%q", got, want)
	}
	if n := f.connCount(); n != 1 {
		t.Errorf("%d control connections, want 1", n)
	}
}

// TestCWDAtOnce: with pipelining, a URL's CWDs (and the return to the
// login directory before them) are sent together and their replies read
// in order: one round trip. A refused one fails the URL, naming it, and
// its replies stay in step (the next URL is served on the same
// connection, from the login directory); a refused null CWD is a
// warning, as one after another.
func TestCWDAtOnce(t *testing.T) {
	f := newFake(t)
	f.pwd = `"/home/ftp"`
	for _, n := range []string{"a", "b", "c"} {
		f.files[n] = []byte(n)
	}
	f.replies["CWD missing"] = "550 no such directory"
	f.replies["CWD "] = "501 null argument"
	f.start()
	d := New(Config{PipelinePassive: true})
	defer d.CloseIdleConnections()
	var trace strings.Builder
	for _, tc := range []struct {
		path string
		ok   bool
	}{
		{"/x/y/a", true},
		{"/x/y/z/b", true}, // down: one CWD
		{"/q/missing/w/c", false},
		{"/x//c", true}, // a null CWD, refused: a warning
		{"/x/y/a", true},
	} {
		req := quickReq()
		req.Trace = &trace
		resp, b, err := get(t, d, f.url(tc.path), req)
		if tc.ok && (err != nil || len(b) != 1) {
			t.Fatalf("%s: %q, %v\n%s", tc.path, b, err, trace.String())
		}
		if !tc.ok {
			if !errors.Is(err, proto.ErrNotFound) || !strings.Contains(fmt.Sprint(err), "CWD missing") {
				t.Fatalf("%s: %v, want not found naming CWD missing", tc.path, err)
			}
			continue
		}
		if w, _ := resp.Info["warnings"].([]string); tc.path == "/x//c" && len(w) != 1 {
			t.Errorf("%s: warnings %q, want the refused null CWD", tc.path, w)
		}
	}
	// (After each RETR, the EPSV of a next one, sent ahead; its port
	// serves the next RETR across CWD, SIZE and MDTM.)
	want := commands("USER anonymous|PASS anonymous@|FEAT|TYPE I|PWD|" +
		"CWD x|CWD y|TYPE I|SIZE a|MDTM a|EPSV|RETR a|EPSV|" +
		"CWD z|SIZE b|MDTM b|RETR b|EPSV|" +
		"CWD /home/ftp|CWD q|CWD missing|CWD w|NOOP|" +
		"CWD /home/ftp|CWD x|CWD |SIZE c|MDTM c|RETR c|EPSV|" +
		"CWD /home/ftp|CWD x|CWD y|SIZE a|MDTM a|RETR a|EPSV")
	waitSent(t, f, want) // the last EPSV, sent ahead, may come a moment later
	if n := f.connCount(); n != 1 {
		t.Errorf("%d control connections, want 1", n)
	}
	// Sent together: no reply between them.
	if tr := trace.String(); !strings.Contains(tr, "> CWD /home/ftp\n> CWD q\n> CWD missing\n> CWD w\n<") {
		t.Errorf("the CWDs were not sent together:\n%s", tr)
	}
}

// TestListingAhead: with pipelining, a listing's EPSV (and the
// connection's first SYST, before a LIST) goes out with its CWDs: one
// round trip for all, then LIST. A refused CWD fails the listing, its
// EPSV's reply is read and dropped, and the connection serves the next.
// An EPSV sent ahead by the retrieval before serves a listing in the same
// directory.
func TestListingAhead(t *testing.T) {
	f := newFake(t)
	f.pwd = `"/home/ftp"`
	f.replies["SYST"] = "215 UNIX Type: L8"
	f.replies["CWD missing"] = "550 no such directory"
	f.lists["LIST"] = []byte("-rw-r--r-- 1 u g 4 Jan 01 2020 a\r\n")
	f.files["a"] = []byte("a")
	f.start()
	d := New(Config{PipelinePassive: true})
	defer d.CloseIdleConnections()
	var trace strings.Builder
	for _, tc := range []struct {
		url  string
		ok   bool
		sent string // what the trace shows sent together, before a reply
	}{
		{"/x/y/", true, "> CWD x\n> CWD y\n> SYST\n> EPSV\n<"},
		{"/x/y/z/", true, "> CWD z\n> EPSV\n<"},
		{"/x/missing/", false, "> CWD /home/ftp\n> CWD x\n> CWD missing\n> EPSV\n<"},
		{"/q/", true, "> CWD /home/ftp\n> CWD q\n<"}, // the failed listing's EPSV serves
		{"/q/a", true, ""},
		{"/q/", true, ""},
	} {
		trace.Reset()
		req := quickReq()
		req.Trace = &trace
		resp, b, err := get(t, d, f.url(tc.url), req)
		switch {
		case !tc.ok:
			if !errors.Is(err, proto.ErrNotFound) {
				t.Fatalf("%s: %v, want not found\n%s", tc.url, err, trace.String())
			}
		case err != nil:
			t.Fatalf("%s: %v\n%s", tc.url, err, trace.String())
		case strings.HasSuffix(tc.url, "/") && len(resp.Entries) != 1, !strings.HasSuffix(tc.url, "/") && string(b) != "a":
			t.Fatalf("%s: %d entries, %q", tc.url, len(resp.Entries), b)
		}
		if tc.sent != "" && !strings.Contains(trace.String(), tc.sent) {
			t.Errorf("%s: the trace lacks %q:\n%s", tc.url, tc.sent, trace.String())
		}
	}
	// The last listing used the EPSV the retrieval before it sent ahead:
	// it sent none of its own. (The 229 may have been read while the
	// retrieval ended, and so stand in the trace before this one.)
	if tr := trace.String(); strings.Contains(tr, "> EPSV") {
		t.Errorf("the listing after a retrieval sent EPSV again:\n%s", tr)
	}
	if n := f.connCount(); n != 1 {
		t.Errorf("%d control connections, want 1", n)
	}
}

// A line that is no FTP reply is the server breaking the protocol
// (proto.ErrProtocol, exit 9); a reply cut by the end of the connection is
// a lost connection (io.ErrUnexpectedEOF, exit 5), whatever part of the
// line arrived. RFC 959 section 4.2: a reply is a three-digit code whose
// first digit is 1 to 5, then a space (the last line) or a hyphen.
func TestReplyNotFTP(t *testing.T) {
	for _, tt := range []struct {
		name  string
		cmd   string // "" for the greeting
		reply string
		end   bool // the server hangs up after the reply
		proto bool // want proto.ErrProtocol; else io.ErrUnexpectedEOF
	}{
		{"greeting not a reply", "", "hello there\r\n", false, true},
		{"greeting not a reply, then closed", "", "hello there\r\n", true, true},
		{"greeting code 999", "", "999 hi\r\n", false, true},
		{"greeting code 099", "", "099 hi\r\n", false, true},
		{"greeting code 600", "", "600 hi\r\n", false, true},
		{"greeting two digits", "", "22 hi\r\n", false, true},
		{"CWD code 999", "CWD pub", "999 what\r\n", false, true},
		{"CWD not a reply", "CWD pub", "what\r\n", false, true},
		{"greeting cut in its code", "", "22", true, false},
		{"greeting cut in its text", "", "220 hel", true, false},
		{"multi-line greeting cut", "", "220-hello\r\n", true, false},
		{"CWD reply cut", "CWD pub", "25", true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t)
			f.raw[tt.cmd] = []byte(tt.reply)
			f.rawEnd = tt.end
			f.start()
			d := &Driver{}
			defer d.CloseIdleConnections()
			_, _, err := get(t, d, f.url("/pub/f.bin"), quickReq())
			if got := errors.Is(err, proto.ErrProtocol); got != tt.proto {
				t.Errorf("Fetch = %v: errors.Is(err, proto.ErrProtocol) = %v, want %v", err, got, tt.proto)
			}
			if !tt.proto && !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Errorf("Fetch = %v, want io.ErrUnexpectedEOF (a lost connection)", err)
			}
		})
	}
}
