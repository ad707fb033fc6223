package ftp

import (
	"bufio"
	"crypto/tls"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/internal/testrig/testcert"
)

// The fake's active mode and TLS (see fakeFTP's fields).

// port answers EPRT (RFC 2428 section 2) and PORT (RFC 959 section
// 4.1.2), remembering the address for the next transfer.
func (s *fakeSession) port(verb, arg string) bool {
	f := s.f
	if verb == "EPRT" && f.noEPRT {
		s.reply("500 EPRT not understood")
		return true
	}
	var addr string
	if verb == "EPRT" {
		parts := strings.Split(arg, "|")
		if len(parts) != 5 || parts[0] != "" || parts[4] != "" || (parts[1] != "1" && parts[1] != "2") {
			s.reply("501 bad EPRT")
			return true
		}
		addr = net.JoinHostPort(parts[2], parts[3])
	} else {
		n := strings.Split(arg, ",")
		if len(n) != 6 {
			s.reply("501 bad PORT")
			return true
		}
		p1, _ := strconv.Atoi(n[4])
		p2, _ := strconv.Atoi(n[5])
		addr = net.JoinHostPort(strings.Join(n[:4], "."), strconv.Itoa(p1*256+p2))
	}
	s.closeData()
	s.activeTo = addr
	s.reply("200 " + verb + " ok")
	return true
}

// connectActive opens the data connection of an active transfer: it
// connects, then sends 150 (or the other way round with activeLate).
func (s *fakeSession) connectActive() net.Conn {
	f := s.f
	to := s.activeTo
	s.activeTo = ""
	d := net.Dialer{Timeout: 5 * time.Second}
	if f.activeFrom != "" {
		d.LocalAddr = &net.TCPAddr{IP: net.ParseIP(f.activeFrom)}
	}
	if f.activeLate {
		s.reply("150 opening data connection")
	}
	dc, err := d.Dial("tcp", to)
	if err != nil {
		s.reply("425 cannot open data connection")
		return nil
	}
	if !f.activeLate {
		s.reply("150 opening data connection")
	}
	return dc
}

// auth answers AUTH TLS (RFC 4217 section 4), PBSZ and PROT (sections 8
// and 9).
func (s *fakeSession) auth(verb, arg string) bool {
	f := s.f
	switch {
	case f.tlsCfg == nil:
		s.reply("502 not implemented")
	case verb == "AUTH" && strings.EqualFold(arg, "TLS"):
		s.reply("234 proceed")
		tc := tls.Server(s.c, f.tlsCfg)
		if err := tc.Handshake(); err != nil {
			return false
		}
		s.c = tc
		s.br = bufio.NewReader(tc)
	case verb == "PBSZ":
		s.reply("200 PBSZ=0")
	case verb == "PROT" && arg == "P":
		s.prot = true
		s.reply("200 protected")
	default:
		s.reply("504 not supported")
	}
	return true
}

// protectData makes dc TLS after PROT P, and records whether the client
// resumed a session; nil means the handshake failed.
func (s *fakeSession) protectData(dc net.Conn) net.Conn {
	if !s.prot {
		return dc
	}
	tc := tls.Server(dc, s.f.tlsCfg)
	tc.SetDeadline(time.Now().Add(5 * time.Second))
	if err := tc.Handshake(); err != nil {
		s.reply("522 TLS handshake failed")
		return nil
	}
	tc.SetDeadline(time.Time{})
	s.f.mu.Lock()
	s.f.resumed = append(s.f.resumed, tc.ConnectionState().DidResume)
	s.f.mu.Unlock()
	return tc
}

// testCert makes a self-signed certificate for 127.0.0.1 and returns the
// server configuration and the path of the certificate in PEM (the CA
// file a client trusts).
func testCert(t *testing.T) (*tls.Config, string) {
	t.Helper()
	c := testcert.Loopback(t)
	path := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(path, c.PEM, 0o644); err != nil {
		t.Fatal(err)
	}
	return c.Server, path
}
