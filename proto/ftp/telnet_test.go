package ftp

import (
	"strings"
	"testing"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// telnetLine reads a command line as the BSD ftpd (ftpd-ssl 0.17,
// "Version 6.4/OpenBSD/Linux-ftpd-0.17") and inetutils-ftpd 2.4 do
// (RFC 854): IAC IAC is the byte 0xff; IAC WILL, WONT, DO or DONT and
// its option are dropped; IAC and any other byte are dropped.
func telnetLine(line string) string {
	var b strings.Builder
	for i := 0; i < len(line); i++ {
		if line[i] != 0xff {
			b.WriteByte(line[i])
			continue
		}
		switch {
		case i+1 < len(line) && line[i+1] == 0xff:
			b.WriteByte(0xff)
			i++
		case i+1 < len(line) && line[i+1] >= 0xfb: // WILL, WONT, DO, DONT
			i += 2
		default:
			i++
		}
	}
	return b.String()
}

// A name with the byte 0xff (Latin-1 "ÿ", the Telnet IAC) goes to a
// server that reads the control connection as Telnet, as RFC 959 says it
// is, doubled: the BSD ftpd and inetutils-ftpd read a single 0xff and the
// byte after it as a Telnet command and drop both ("RETR na\xefve\xff.txt"
// asks for "na\xefvetxt": 550, and a file of that name would have been
// fetched in its place). Which servers do is learnt once per connection,
// before the first command that holds the byte, with "IAC NOP" before a
// NOOP and a PWD after it: a Telnet server answers the NOOP (200); vsftpd
// and pyftpdlib refuse the line (500), and take 0xff as one byte of the
// name (vsftpd answers 550 to a doubled one); Pure-FTPd answers nothing
// to a line whose command word holds the byte, and only the PWD. A name
// without the byte sends no probe.
func TestTelnetIAC(t *testing.T) {
	const (
		bsd    = "220 vm FTP server (Version 6.4/OpenBSD/Linux-ftpd-0.17) ready."
		probe  = "\xff\xf1NOOP\r\nPWD\r\n"
		single = "RETR na\xefve\xff.txt\r\n"
		double = "RETR na\xefve\xff\xff.txt\r\n"
	)
	for _, tc := range []struct {
		name     string
		greeting string
		telnet   bool
		dropIAC  bool
		pipe     bool
		want     string
	}{
		{"BSD ftpd", bsd, true, false, false, double},
		{"BSD ftpd, pipelined", bsd, true, false, true, double},
		{"vsftpd", "220 (vsFTPd 3.0.3)", false, false, false, single},
		{"Pure-FTPd", "220 You will be disconnected after 15 minutes of inactivity.", false, true, true, single},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			f.greeting, f.telnet, f.dropIAC = tc.greeting, tc.telnet, tc.dropIAC
			f.files["na\xefve\xff.txt"] = []byte("Latin-1 name with the byte 0xff\n")
			f.files["plain.txt"] = []byte("plain\n")
			f.start()
			d := New(Config{PipelinePassive: tc.pipe})
			defer d.CloseIdleConnections()
			if _, b, err := get(t, d, f.url("/plain.txt"), quickReq()); err != nil || string(b) != "plain\n" {
				t.Fatalf("get plain.txt = %q, %v", b, err)
			}
			if s := f.sent(); strings.Contains(s, "\xff") {
				t.Fatalf("sent %q before any name with 0xff, want no probe", s)
			}
			for range 2 {
				_, b, err := get(t, d, f.url("/na%EFve%FF.txt"), quickReq())
				if err != nil || string(b) != string(f.files["na\xefve\xff.txt"]) {
					t.Fatalf("get na\\xefve\\xff.txt = %q, %v; sent %q", b, err, f.sent())
				}
			}
			s := f.sent()
			if n := strings.Count(s, probe); n != 1 {
				t.Errorf("sent the probe %q %d times, want once (one connection): %q", probe, n, s)
			}
			if n := strings.Count(s, tc.want); n != 2 {
				t.Errorf("sent %q %d times, want 2: %q", tc.want, n, s)
			}
		})
	}
	// A directory's name is sent the same way: CWD d\xff\xff.
	f := newFake(t)
	f.greeting, f.telnet = bsd, true
	f.lists["LIST"] = []byte("-rw-r--r-- 1 0 0 5 Feb  3  2001 a\xff.txt\r\n")
	f.start()
	d := &Driver{}
	defer d.CloseIdleConnections()
	if _, _, err := proto.ListAll(t.Context(), d, uri.MustParse(f.url("/d%FF/")), quickReq()); err != nil {
		t.Fatal(err)
	}
	if s := f.sent(); !strings.Contains(s, probe+"CWD d\xff\xff\r\n") {
		t.Errorf("sent %q, want the probe, then CWD d\\xff\\xff", s)
	}
}
