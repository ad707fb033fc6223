package servertest

import (
	"crypto/rand"
	"fmt"
	"net"
	"sync"
	"testing"
)

var (
	loopbackMu   sync.Mutex
	loopbackUsed = map[string]bool{}
)

// UniqueLoopback returns an IPv4 address in 127.64.0.0/10, chosen at random and
// never returned twice by this process, that a test can dial from so that the
// servers' logs (the vsftpd log records the client address, not its port)
// show its connections apart from those of every other test:
//
//	ip := servertest.UniqueLoopback(t)
//	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: ip}, Timeout: 5 * time.Second}
//	req.Dial = d.DialContext // FTP data connections must use it too (vsftpd checks the peer)
//	...
//	cmds := servertest.FTPCommandsFrom(t, since, ip.String())
//
// The address is a source address only: the test's connections still go to
// the servers on 127.0.0.1, and nothing connects to it (the check below only
// binds it). Linux routes all of 127.0.0.0/8 to the loopback interface; where
// binding to such an address fails, the test is skipped (or fails with CI=true).
func UniqueLoopback(t testing.TB) net.IP {
	t.Helper()
	loopbackMu.Lock()
	defer loopbackMu.Unlock()
	for range 1000 {
		var b [3]byte
		if _, err := rand.Read(b[:]); err != nil {
			t.Fatalf("servertest: %v", err)
			return nil
		}
		ip := net.IPv4(127, 64|b[0]&63, b[1], b[2]).To4()
		if b[2] == 0 || b[2] == 255 || loopbackUsed[ip.String()] {
			continue
		}
		l, err := net.ListenTCP("tcp4", &net.TCPAddr{IP: ip})
		if err != nil {
			missing(t, fmt.Errorf("%w: cannot bind %s (this system does not route 127.0.0.0/8 to loopback): %v", ErrNotConfigured, ip, err))
			return nil
		}
		l.Close()
		loopbackUsed[ip.String()] = true
		return ip
	}
	t.Fatal("servertest: no unused loopback address left")
	return nil
}
