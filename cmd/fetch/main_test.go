package main

import (
	"bytes"
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// result is what one run of the program printed and returned.
type result struct {
	out, err string
	code     int
}

// netlog counts and records what the program did on the network.
type netlog struct {
	lookups atomic.Int64
	dials   atomic.Int64
	hosts   map[string]string // made-up names; real DNS is never used
	refuse  bool              // dial hook fails instead of connecting
}

func (n *netlog) LookupIPAddr(ctx context.Context, host string) ([]net.IPAddr, error) {
	n.lookups.Add(1)
	if a, ok := n.hosts[host]; ok {
		return []net.IPAddr{{IP: net.ParseIP(a)}}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

func (n *netlog) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	n.dials.Add(1)
	if n.refuse {
		return nil, &net.OpError{Op: "dial", Net: network, Err: errors.New("connection refused by the test")}
	}
	var d net.Dialer
	return d.DialContext(ctx, network, addr)
}

// newEnv returns an env on buffers whose network goes through n.
func newEnv(stdin string, n *netlog) (*env, *bytes.Buffer, *bytes.Buffer) {
	var out, errb bytes.Buffer
	e := &env{
		in:       strings.NewReader(stdin),
		out:      &out,
		err:      &lockedBuffer{b: &errb},
		getenv:   func(string) string { return "" },
		resolver: n,
		dial:     n.dial,
	}
	return e, &out, &errb
}

// lockedBuffer lets the progress bar's goroutine write stderr safely.
type lockedBuffer struct {
	mu sync.Mutex
	b  *bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// runIn runs the program with args in e, within a deadline.
func runIn(t *testing.T, e *env, args ...string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	return execute(ctx, args, e)
}

// runArgs runs the program with a fresh env and a network log.
func runArgs(t *testing.T, n *netlog, stdin string, args ...string) result {
	t.Helper()
	if n == nil {
		n = &netlog{}
	}
	e, out, errb := newEnv(stdin, n)
	code := runIn(t, e, args...)
	return result{out: out.String(), err: errb.String(), code: code}
}
