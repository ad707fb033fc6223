package ftp

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// A server whose FEAT lists MLST (RFC 3659 section 7.8) but which answers
// MLSD with 500, "command unrecognized" (RFC 959 section 4.2.1): the
// listing is done again with LIST on a new connection, and the Driver
// lists that server with LIST from then on.
func TestMLSDRefusedFallsBackToLIST(t *testing.T) {
	s := startLibWith(t, true)
	s.fs.MkdirAll("/pub/sub", 0o755)
	s.write("/pub/a.bin", []byte("12345"))
	s.write("/pub/b.txt", []byte("x"))
	d := &Driver{}
	defer d.CloseIdleConnections()

	// A file first: its connection, which would list with MLSD, waits idle.
	if _, b, err := get(t, d, s.url("/pub/a.bin"), quickReq()); err != nil || string(b) != "12345" {
		t.Fatalf("RETR = %q, %v", b, err)
	}
	var trace bytes.Buffer
	req := quickReq()
	req.Trace = &trace
	resp, body, err := get(t, d, s.url("/pub/"), req)
	if err != nil {
		t.Fatalf("listing = %v\n%s", err, trace.String())
	}
	if resp.Kind != proto.KindDirectory || resp.Info["ftp_listing"] != formatLIST || !bytes.Contains(body, []byte("a.bin")) {
		t.Fatalf("Kind %v, listing %v, body %q; want a directory read with LIST", resp.Kind, resp.Info["ftp_listing"], body)
	}
	got := map[string]proto.Entry{}
	for _, e := range resp.Entries {
		got[e.Name] = e
	}
	if e := got["a.bin"]; e.Type != proto.EntryFile || e.Size != 5 || e.URL != s.url("/pub/a.bin") {
		t.Errorf("a.bin = %+v", e)
	}
	if e := got["sub"]; e.Type != proto.EntryDir || e.URL != s.url("/pub/sub/") {
		t.Errorf("sub = %+v", e)
	}
	if len(got) != 3 {
		t.Errorf("entries = %+v, want 3", resp.Entries)
	}
	if n, m := s.count("MLSD"), s.count("LIST"); n != 1 || m != 1 {
		t.Errorf("%d MLSD and %d LIST sent, want 1 and 1", n, m)
	}
	if n := s.rec.Accepts(); n != 2 {
		t.Errorf("%d control connections, want 2 (the one that tried MLSD, one that lists with LIST)", n)
	}
	if !strings.Contains(trace.String(), "* MLSD refused (500)") {
		t.Errorf("the trace does not note the refusal:\n%s", trace.String())
	}
	// The connection that tried MLSD is closed (QUIT), not kept.
	s.rec.Until(5*time.Second, func() bool { return s.count("QUIT\r\n") > 0 })
	if n := s.count("QUIT\r\n"); n != 1 {
		t.Errorf("%d QUIT, want 1", n)
	}

	// Later listings and files: the LIST connection, no MLSD, no login.
	for _, p := range []string{"/pub", "/pub/sub/"} {
		if _, _, err := proto.ListAll(t.Context(), d, uri.MustParse(s.url(p)), quickReq()); err != nil {
			t.Errorf("List(%q) = %v", p, err)
		}
	}
	if _, b, err := get(t, d, s.url("/pub/b.txt"), quickReq()); err != nil || string(b) != "x" {
		t.Errorf("RETR after the fallback = %q, %v", b, err)
	}
	if n, m, k := s.count("MLSD"), s.count("LIST"), s.rec.Accepts(); n != 1 || m != 3 || k != 2 {
		t.Errorf("%d MLSD, %d LIST, %d connections; want 1, 3, 2", n, m, k)
	}
}

// The first listing on a fresh Driver: MLSD refused, LIST on a second
// connection; a Driver that has not met the server tries MLSD again.
func TestMLSDRefusedFirstListing(t *testing.T) {
	s := startLibWith(t, true)
	s.fs.MkdirAll("/pub", 0o755)
	s.write("/pub/a.bin", []byte("12345"))
	for i := range 2 {
		d := &Driver{}
		entries, _, err := proto.ListAll(t.Context(), d, uri.MustParse(s.url("/pub/")), quickReq())
		d.CloseIdleConnections()
		if err != nil || len(entries) != 1 || entries[0].Name != "a.bin" {
			t.Fatalf("Driver %d: List = %+v, %v", i, entries, err)
		}
		if n, m := s.count("MLSD"), s.count("LIST"); n != i+1 || m != i+1 {
			t.Errorf("Driver %d: %d MLSD and %d LIST in all, want %d and %d", i, n, m, i+1, i+1)
		}
	}
}

// A server that offers MLSD and then refuses it for a missing directory
// (550) is not taken for one without MLSD.
func TestMLSDNotFoundIsNotRefusal(t *testing.T) {
	s := startLib(t)
	d := &Driver{}
	defer d.CloseIdleConnections()
	req := quickReq()
	req.Options = proto.Options{FTP: proto.FTPOptions{Method: proto.MethodNoCWD}} // no CWD: MLSD gets the path
	for range 2 {
		_, _, err := proto.ListAll(t.Context(), d, uri.MustParse(s.url("/missing/")), req)
		if !errors.Is(err, proto.ErrNotFound) {
			t.Fatalf("List of a missing directory = %v, want ErrNotFound", err)
		}
	}
	if n, m := s.count("MLSD"), s.count("LIST"); m != 0 || n == 0 {
		t.Errorf("%d MLSD, %d LIST; want MLSD only", n, m)
	}
	if d.pool().refuses(s.addr(), "MLSD") {
		t.Error("the Driver recorded a refusal of MLSD")
	}
}

// Driver.DisableMLSD: a server whose FEAT lists MLST and which serves MLSD
// is listed with LIST, on one connection, and the trace says why.
func TestDisableMLSD(t *testing.T) {
	s := startLibWith(t, false)
	s.fs.MkdirAll("/pub/sub", 0o755)
	s.write("/pub/a.bin", []byte("12345"))
	for _, disable := range []bool{false, true} {
		d := New(Config{DisableMLSD: disable})
		var trace bytes.Buffer
		req := quickReq()
		req.Trace = &trace
		mlsd, list := s.count("MLSD"), s.count("LIST")
		resp, _, err := get(t, d, s.url("/pub/"), req)
		d.CloseIdleConnections()
		if err != nil {
			t.Fatalf("DisableMLSD %v: %v\n%s", disable, err, trace.String())
		}
		want, sent, notSent := formatMLSD, "MLSD", "LIST"
		if disable {
			want, sent, notSent = formatLIST, "LIST", "MLSD"
		}
		if resp.Info["ftp_listing"] != want {
			t.Errorf("DisableMLSD %v: listing %v, want %s", disable, resp.Info["ftp_listing"], want)
		}
		if dm, dl := s.count("MLSD")-mlsd, s.count("LIST")-list; (disable && (dm != 0 || dl != 1)) || (!disable && (dm != 1 || dl != 0)) {
			t.Errorf("DisableMLSD %v: %d MLSD and %d LIST sent, want one %s and no %s", disable, dm, dl, sent, notSent)
		}
		if got := strings.Contains(trace.String(), "* MLSD disabled (Driver.DisableMLSD): listing with LIST"); got != disable {
			t.Errorf("DisableMLSD %v: trace notes it %v:\n%s", disable, got, trace.String())
		}
		if len(resp.Entries) != 2 {
			t.Errorf("DisableMLSD %v: entries %+v, want a.bin and sub", disable, resp.Entries)
		}
	}
}
