package ftp

import (
	"bytes"
	"crypto/tls"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/proto"
)

// sentLines returns the command lines the fake recorded.
func sentLines(f *fakeFTP) []string {
	return strings.Split(strings.TrimSuffix(f.sent(), "\r\n"), "\r\n")
}

// tlsReq is a request for FTPS in mode, trusting the CA file ca.
func tlsReq(mode proto.FTPTLS, ca string) *proto.Request {
	req := quickReq()
	req.Options.FTP = proto.FTPOptions{TLS: mode, CACert: ca, Stat: proto.StatNone, Binary: true}
	return req
}

// RFC 4217 sections 4, 8 and 9: AUTH TLS before anything else, then the
// login inside TLS, then PBSZ 0 and PROT P; data connections are TLS and
// resume the control connection's session (section 10.2). The trace shows
// the commands in clear, with the password hidden.
func TestTLSRetrievalAndListing(t *testing.T) {
	cfg, ca := testCert(t)
	f := newFake(t)
	f.tlsCfg = cfg
	f.files = map[string][]byte{"a": bytes.Repeat([]byte("tls data "), 5000)}
	f.lists = map[string][]byte{"LIST": []byte("-rw-r--r-- 1 u g 45000 Jan 1 2020 a\r\n")}
	f.start()
	d := &Driver{}
	req := tlsReq(proto.TLSRequire, ca)
	var trace bytes.Buffer
	req.Trace = &trace
	_, body, err := get(t, d, "ftp://joe:s3cret-pw@"+f.addr()+"/a", req)
	if err != nil || !bytes.Equal(body, f.files["a"]) {
		t.Fatalf("RETR: %d bytes, %v", len(body), err)
	}
	resp, _, err := get(t, d, "ftp://joe:s3cret-pw@"+f.addr()+"/", req)
	if err != nil || len(resp.Entries) != 1 {
		t.Fatalf("LIST: %v", err)
	}
	d.CloseIdleConnections()
	// Every command has come once the QUIT has (waiting for f.sent() as
	// it was at this point raced the QUIT: one run in eight failed).
	f.changed.Until(2*time.Second, func() bool { return strings.HasSuffix(f.sent(), "QUIT\r\n") })
	lines := sentLines(f)
	if lines[0] != "AUTH TLS" || lines[1] != "USER joe" || lines[2] != "PASS s3cret-pw" {
		t.Errorf("sent %q: want AUTH TLS, USER, PASS first", lines)
	}
	pbsz, prot, epsv := slices.Index(lines, "PBSZ 0"), slices.Index(lines, "PROT P"), slices.Index(lines, "EPSV")
	if pbsz < 3 || prot != pbsz+1 || epsv < prot {
		t.Errorf("sent %q: want PBSZ 0 then PROT P after the login, before EPSV", lines)
	}
	if got := f.resumed; len(got) != 2 || !got[0] || !got[1] {
		t.Errorf("data connections resumed the control session: %v, want [true true]", got)
	}
	tr := trace.String()
	for _, want := range []string{"> AUTH TLS\n", "> USER joe\n", "> PASS ****\n", "> PBSZ 0\n", "> PROT P\n", "> RETR a\n", "< 200 protected\n"} {
		if !strings.Contains(tr, want) {
			t.Errorf("trace lacks %q:\n%s", want, tr)
		}
	}
	if strings.Contains(tr, "s3cret-pw") {
		t.Errorf("trace shows the password:\n%s", tr)
	}
}

// With proto.TLSRequire, a server that refuses AUTH TLS gets nothing more: no
// USER, no PASS (curl's --ssl-reqd). The error is a *TLSRefusedError
// wrapping proto.ErrLogin and the reply.
func TestTLSRequiredRefused(t *testing.T) {
	f := newFake(t).start() // no tlsCfg: AUTH answers 502
	d := &Driver{}
	t.Cleanup(d.CloseIdleConnections)
	_, _, err := get(t, d, "ftp://joe:s3cret-pw@"+f.addr()+"/a", tlsReq(proto.TLSRequire, ""))
	var re *TLSRefusedError
	if !errors.As(err, &re) || !errors.Is(err, proto.ErrLogin) || replyCode(err) != StatusNotImplemented {
		t.Fatalf("err = %v, want a *TLSRefusedError wrapping proto.ErrLogin and the 502", err)
	}
	if strings.Contains(err.Error(), "s3cret-pw") {
		t.Errorf("error shows the password: %v", err)
	}
	waitSent(t, f, "AUTH TLS\r\n")
}

// With proto.TLSTry, a refusal of AUTH TLS means going on in clear, with a
// warning in the response (curl's --ssl).
func TestTLSTryFallsBack(t *testing.T) {
	f := newFake(t)
	f.files = map[string][]byte{"a": []byte("clear")}
	f.start()
	d := &Driver{}
	t.Cleanup(d.CloseIdleConnections)
	resp, body, err := get(t, d, f.url("/a"), tlsReq(proto.TLSTry, ""))
	if err != nil || string(body) != "clear" {
		t.Fatalf("%q, %v", body, err)
	}
	ws, _ := resp.Info["warnings"].([]string)
	if len(ws) != 1 || !strings.Contains(ws[0], "refused TLS") {
		t.Errorf("warnings = %q, want the refusal of TLS", ws)
	}
	lines := sentLines(f)
	if lines[0] != "AUTH TLS" || lines[1] != "USER anonymous" || slices.Contains(lines, "PBSZ 0") || slices.Contains(lines, "PROT P") {
		t.Errorf("sent %q: want AUTH TLS, then the login in clear, no PBSZ or PROT", lines)
	}
}

// A certificate the client does not trust ends the connection after
// AUTH TLS: the login is never sent. -k (Options.FTP.Insecure) accepts it.
func TestTLSUntrusted(t *testing.T) {
	cfg, _ := testCert(t)
	_, otherCA := testCert(t)
	f := newFake(t)
	f.tlsCfg = cfg
	f.files = map[string][]byte{"a": []byte("x")}
	f.start()
	d := &Driver{}
	t.Cleanup(d.CloseIdleConnections)
	_, _, err := get(t, d, f.url("/a"), tlsReq(proto.TLSTry, otherCA))
	var ve *tls.CertificateVerificationError
	if !errors.As(err, &ve) {
		t.Fatalf("err = %v, want a *tls.CertificateVerificationError", err)
	}
	waitSent(t, f, "AUTH TLS\r\n")

	req := tlsReq(proto.TLSRequire, "")
	req.Options.FTP.Insecure = true
	if _, body, err := get(t, d, f.url("/a"), req); err != nil || string(body) != "x" {
		t.Fatalf("insecure: %q, %v", body, err)
	}
}

// The mirror's pipelined path over TLS, with vsftpd's greeting (early
// EPSV; no half-close, which TLS cannot do before its handshake), and
// active mode over TLS: the client is the TLS client on the data
// connection it accepted (RFC 4217 section 7).
func TestTLSPipelinedAndActive(t *testing.T) {
	cfg, ca := testCert(t)
	f := newFake(t)
	f.tlsCfg = cfg
	f.greeting = "220 (vsFTPd 3.0.3)"
	f.files = map[string][]byte{"a": []byte("1"), "b": bytes.Repeat([]byte("2"), 70000), "c": {}}
	d, _ := startPiped(t, f)
	req := tlsReq(proto.TLSRequire, ca)
	for _, name := range []string{"a", "b", "c"} {
		_, body, err := get(t, d, f.url("/"+name), req)
		if err != nil || !bytes.Equal(body, f.files[name]) {
			t.Fatalf("%s: %d bytes, %v", name, len(body), err)
		}
	}
	req.Options.FTP.Port = "-"
	if _, body, err := get(t, d, f.url("/b"), req); err != nil || !bytes.Equal(body, f.files["b"]) {
		t.Fatalf("active: %d bytes, %v", len(body), err)
	}
	d.CloseIdleConnections()
	// Wait for the QUIT (a snapshot of what was sent could miss it and
	// then never match).
	f.changed.Until(2*time.Second, func() bool { return strings.HasSuffix(f.sent(), "QUIT\r\n") })
	if n := f.connCount(); n != 1 {
		t.Errorf("%d control connections, want 1", n)
	}
	if got := f.resumed; len(got) != 4 || slices.Contains(got, false) {
		t.Errorf("resumed = %v, want four true", got)
	}
}

// Connections are kept per TLS mode: a plain one never serves a request
// that asks for TLS.
func TestTLSPoolKey(t *testing.T) {
	cfg, ca := testCert(t)
	f := newFake(t)
	f.tlsCfg = cfg
	f.files = map[string][]byte{"a": []byte("x")}
	f.start()
	d := &Driver{}
	t.Cleanup(d.CloseIdleConnections)
	for _, req := range []*proto.Request{quickReq(), tlsReq(proto.TLSRequire, ca), tlsReq(proto.TLSRequire, ca)} {
		if _, _, err := get(t, d, f.url("/a"), req); err != nil {
			t.Fatal(err)
		}
	}
	if n := f.connCount(); n != 2 {
		t.Errorf("%d control connections, want 2 (one plain, one TLS)", n)
	}
}
