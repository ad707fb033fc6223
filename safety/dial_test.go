package safety

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/netip"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rfc1738/fetch/internal/testrig/notify"
)

func TestCheckIP(t *testing.T) {
	deny := Policy{DenyPrivate: true}
	for _, tt := range []struct {
		ip      string
		refused bool
	}{
		{"127.0.0.1", true},       // loopback, RFC 1122 section 3.2.1.3
		{"127.255.0.9", true},     // all of 127/8
		{"::1", true},             // RFC 4291 section 2.5.3
		{"0.0.0.0", true},         // unspecified: connecting reaches this host
		{"0.1.2.3", true},         // 0/8 "this network"
		{"::", true},              // unspecified
		{"10.1.2.3", true},        // RFC 1918
		{"172.16.0.1", true},      // RFC 1918
		{"172.31.255.255", true},  // RFC 1918
		{"172.32.0.1", false},     // outside 172.16/12
		{"192.168.1.1", true},     // RFC 1918
		{"100.64.0.1", true},      // RFC 6598 CGNAT
		{"100.127.255.255", true}, // RFC 6598
		{"100.128.0.1", false},    // outside 100.64/10
		{"169.254.169.254", true}, // link-local (cloud metadata)
		{"fe80::1", true},         // link-local
		{"fe80::1%eth0", true},    // with a zone
		{"fc00::1", true},         // unique local, RFC 4193
		{"fd12:3456::1", true},    // unique local
		{"fec0::1", true},         // site-local, deprecated
		{"::ffff:127.0.0.1", true},
		{"::ffff:10.0.0.1", true},
		{"::ffff:8.8.8.8", false},
		{"::127.0.0.1", true}, // IPv4-compatible, deprecated
		{"64:ff9b::7f00:1", true},
		{"64:ff9b::808:808", false},
		{"224.0.0.1", true},       // multicast
		{"ff02::1", true},         // multicast
		{"255.255.255.255", true}, // limited broadcast
		{"8.8.8.8", false},
		{"192.0.2.1", false},
		{"2001:db8::1", false},
		{"2606:4700::1", false},
	} {
		ip := netip.MustParseAddr(tt.ip)
		err := deny.CheckIP(ip)
		if (err != nil) != tt.refused {
			t.Errorf("CheckIP(%s) = %v, want refused %v", tt.ip, err, tt.refused)
		}
		if err != nil && (!errors.Is(err, ErrRefused) || !errors.Is(err, ErrPrivateAddress)) {
			t.Errorf("CheckIP(%s) = %v, not ErrRefused and ErrPrivateAddress", tt.ip, err)
		}
		if err := (Policy{}).CheckIP(ip); err != nil {
			t.Errorf("zero Policy: CheckIP(%s) = %v", tt.ip, err)
		}
		addr := netip.AddrPortFrom(ip, 80).String()
		if err := deny.Control("tcp", addr, nil); (err != nil) != tt.refused {
			t.Errorf("Control(%q) = %v, want refused %v", addr, err, tt.refused)
		}
	}
	if err := deny.CheckIP(netip.Addr{}); !errors.Is(err, ErrPrivateAddress) {
		t.Errorf("CheckIP(zero Addr) = %v, want refused", err)
	}
	if err := deny.Control("unix", "/tmp/sock", nil); !errors.Is(err, ErrRefused) {
		t.Errorf("Control(unix) = %v, want refused (fail closed)", err)
	}
	var ae *AddressError
	if err := deny.Control("tcp4", "127.0.0.1:25", nil); !errors.As(err, &ae) || ae.Address != "127.0.0.1:25" || ae.Reason != "loopback" {
		t.Errorf("Control(127.0.0.1:25) = %#v", err)
	}
}

// listen returns a loopback listener and a counter of the connections it
// accepts.
func listen(t *testing.T) (net.Listener, *notify.Counter) {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var n notify.Counter
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			n.Add()
			c.Close()
		}
	}()
	return ln, &n
}

// TestControlDial: with DenyPrivate the dialer refuses the loopback
// listener before connect, so the listener sees nothing; without it the
// same dial connects.
func TestControlDial(t *testing.T) {
	ln, accepts := listen(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()

	d := net.Dialer{Control: Policy{DenyPrivate: true}.Control, Timeout: 2 * time.Second}
	c, err := d.DialContext(ctx, "tcp", ln.Addr().String())
	if err == nil {
		c.Close()
		t.Fatal("dial with DenyPrivate connected to 127.0.0.1")
	}
	if !errors.Is(err, ErrRefused) || !errors.Is(err, ErrPrivateAddress) {
		t.Fatalf("dial error = %v, want ErrRefused and ErrPrivateAddress", err)
	}

	d = net.Dialer{Control: Policy{}.Control, Timeout: 2 * time.Second}
	c, err = d.DialContext(ctx, "tcp", ln.Addr().String())
	if err != nil {
		t.Fatalf("dial with the zero Policy: %v", err)
	}
	c.Close()
	accepts.AtLeast(1, 2*time.Second)
	// The allowed dial was accepted; the refused one never reached the listener.
	if got := accepts.Load(); got != 1 {
		t.Errorf("listener accepted %d connections, want 1 (the allowed dial only)", got)
	}
}

// TestControlRebinding: a host name whose DNS answer is 127.0.0.1 is
// refused on the resolved address. The resolver talks to an in-process fake
// DNS server (no packet leaves the process); it answers every A question
// with 127.0.0.1, as a rebinding attacker's server would.
func TestControlRebinding(t *testing.T) {
	ln, accepts := listen(t)
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	var lookups atomic.Int32
	resolver := &net.Resolver{
		PreferGo: true,
		Dial: func(ctx context.Context, network, address string) (net.Conn, error) {
			lookups.Add(1)
			client, server := net.Pipe()
			go fakeDNS(server)
			return client, nil
		},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()

	d := net.Dialer{Control: Policy{DenyPrivate: true}.Control, Resolver: resolver, Timeout: 2 * time.Second}
	c, err := d.DialContext(ctx, "tcp4", net.JoinHostPort("rebind.example", port))
	if err == nil {
		c.Close()
		t.Fatal("dial of a name resolving to 127.0.0.1 connected")
	}
	if !errors.Is(err, ErrPrivateAddress) {
		t.Fatalf("dial error = %v, want ErrPrivateAddress", err)
	}
	if lookups.Load() == 0 {
		t.Fatal("the fake DNS server was not asked: the test proves nothing")
	}

	// Control is the only difference: without it the same name connects.
	d.Control = nil
	c, err = d.DialContext(ctx, "tcp4", net.JoinHostPort("rebind.example", port))
	if err != nil {
		t.Fatalf("dial without the policy: %v", err)
	}
	c.Close()
	accepts.AtLeast(1, 2*time.Second)
	if got := accepts.Load(); got != 1 {
		t.Errorf("listener accepted %d connections, want 1", got)
	}
}

// fakeDNS answers DNS queries in TCP framing (what the Go resolver uses on
// a non-packet conn) on c: every A question gets 127.0.0.1, every other
// question an empty answer.
func fakeDNS(c net.Conn) {
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	for {
		var n uint16
		if err := binary.Read(c, binary.BigEndian, &n); err != nil {
			return
		}
		q := make([]byte, n)
		if _, err := io.ReadFull(c, q); err != nil || len(q) < 12 {
			return
		}
		// The question: labels up to a zero byte, then type and class.
		i := 12
		for i < len(q) && q[i] != 0 {
			i += int(q[i]) + 1
		}
		if i+5 > len(q) {
			return
		}
		question := q[12 : i+5]
		qtype := binary.BigEndian.Uint16(q[i+1:])
		resp := []byte{q[0], q[1], 0x81, 0x80, 0, 1, 0, 0, 0, 0, 0, 0}
		resp = append(resp, question...)
		if qtype == 1 {
			resp[7] = 1
			resp = append(resp, 0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 127, 0, 0, 1)
		}
		out := binary.BigEndian.AppendUint16(nil, uint16(len(resp)))
		if _, err := c.Write(append(out, resp...)); err != nil {
			return
		}
	}
}
