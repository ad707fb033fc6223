package faultproxy

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"
)

// serve runs handle for every connection to a new listener on 127.0.0.1
// until the test ends.
func serve(t *testing.T, handle func(net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				c.SetDeadline(time.Now().Add(20 * time.Second))
				handle(c)
			}()
		}
	}()
	return ln.Addr().String()
}

// pattern is n bytes that differ from position to position, so that a
// reordered or repeated chunk shows.
func pattern(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + i/251)
	}
	return b
}

func start(t *testing.T, cfg Config) *Proxy {
	t.Helper()
	p, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(20 * time.Second))
	t.Cleanup(func() { c.Close() })
	return c
}

func echo(c net.Conn) { io.Copy(c, c) }

func TestStartRefusesNonLoopback(t *testing.T) {
	for _, target := range []string{"192.0.2.1:21", "example.org:21", "localhost:21"} {
		if _, err := Start(Config{Target: target}); !errors.Is(err, ErrNotLoopback) {
			t.Errorf("Start(%q) = %v, want ErrNotLoopback", target, err)
		}
	}
}

// A round trip through the proxy takes at least twice the one-way delay.
func TestDelayRoundTrip(t *testing.T) {
	const d = 60 * time.Millisecond
	p := start(t, Config{Target: serve(t, echo), Delay: d})
	c := dial(t, p.Addr())
	buf := make([]byte, 4)
	for range 3 {
		t0 := time.Now()
		if _, err := c.Write([]byte("ping")); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(c, buf); err != nil {
			t.Fatal(err)
		}
		if got := time.Since(t0); got < 2*d {
			t.Errorf("round trip took %v, want at least %v", got, 2*d)
		}
		if string(buf) != "ping" {
			t.Errorf("echo = %q, want ping", buf)
		}
	}
}

// Many small writes come out whole and in order, and the bytes are counted.
func TestDelayKeepsOrder(t *testing.T) {
	p := start(t, Config{Target: serve(t, echo), Delay: 5 * time.Millisecond})
	c := dial(t, p.Addr())
	want := pattern(300 << 10)
	go func() {
		for b := want; len(b) > 0; {
			n := min(len(b), 1+len(b)%977)
			if _, err := c.Write(b[:n]); err != nil {
				return
			}
			b = b[n:]
		}
	}()
	got := make([]byte, len(want))
	if _, err := io.ReadFull(c, got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("bytes through the proxy differ from the bytes sent")
	}
	st, _ := p.Await(5*time.Second, func(st Stats) bool { return st.Down >= int64(len(want)) }) // counted after the write
	if st.Up != int64(len(want)) || st.Down != int64(len(want)) || st.Conns != 1 {
		t.Errorf("Stats = %+v, want Up = Down = %d, Conns = 1", st, len(want))
	}
}

// The delay is a delay line, not a sleep per read: 8 MiB through a 100 ms
// delay take far less than the 25 s that 256 reads of 32 KiB, each
// delayed, would (the bound is loose on purpose: a loaded machine is
// slow, but not that slow).
func TestDelayDoesNotThrottle(t *testing.T) {
	want := pattern(8 << 20)
	p := start(t, Config{Target: serve(t, func(c net.Conn) { c.Write(want) }), Delay: 100 * time.Millisecond})
	c := dial(t, p.Addr())
	t0 := time.Now()
	got, err := io.ReadAll(c)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("got %d bytes, not the %d sent", len(got), len(want))
	}
	if el := time.Since(t0); el > 10*time.Second || el < 100*time.Millisecond {
		t.Errorf("8 MiB took %v: want at least the delay and far less than a per-read sleep", el)
	}
}

// Rate: the link from the server is shared. Two connections that each
// receive 256 KiB through a link of 4 MB/s take at least 131 ms together
// (512 KiB / 4 MB/s), and the bytes arrive whole.
func TestRate(t *testing.T) {
	want := pattern(256 << 10)
	p := start(t, Config{Target: serve(t, func(c net.Conn) { c.Write(want) }), Rate: 4e6})
	t0 := time.Now()
	errs := make(chan error, 2)
	for range 2 {
		go func() {
			c, err := net.Dial("tcp", p.Addr())
			if err != nil {
				errs <- err
				return
			}
			defer c.Close()
			got, err := io.ReadAll(c)
			if err == nil && !bytes.Equal(got, want) {
				err = fmt.Errorf("got %d bytes, not the %d sent", len(got), len(want))
			}
			errs <- err
		}()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if el, min := time.Since(t0), time.Duration(2*len(want))*time.Second/4e6; el < min || el > 10*time.Second {
		t.Errorf("512 KiB at 4 MB/s took %v, want at least %v", el, min)
	}
}

func TestCut(t *testing.T) {
	data := pattern(200 << 10)
	p := start(t, Config{Target: serve(t, func(c net.Conn) { c.Write(data) }),
		Faults: []Fault{{Kind: Cut, Conn: 2, After: 70000}}})
	for conn, want := range []int{len(data), 70000, len(data)} {
		got, _ := io.ReadAll(dial(t, p.Addr()))
		if len(got) != want || !bytes.Equal(got, data[:len(got)]) {
			t.Errorf("connection %d: got %d bytes, want the first %d", conn+1, len(got), want)
		}
	}
}

func readFull(c net.Conn, b []byte) bool {
	_, err := io.ReadFull(c, b)
	return err == nil
}

// A fault with Count hits that many connections that reach After bytes;
// shorter ones neither get it nor use it up.
func TestFaultCount(t *testing.T) {
	data := pattern(50 << 10)
	p := start(t, Config{Target: serve(t, func(c net.Conn) {
		b := make([]byte, 1)
		readFull(c, b)
		if b[0] == 's' {
			c.Write(data[:100])
			return
		}
		c.Write(data)
	}), Faults: []Fault{{Kind: Cut, After: 1000, Count: 2}}})
	for i, tc := range []struct {
		send byte
		want int
	}{{'s', 100}, {'l', 1000}, {'s', 100}, {'l', 1000}, {'l', len(data)}, {'l', len(data)}} {
		c := dial(t, p.Addr())
		c.Write([]byte{tc.send})
		got, _ := io.ReadAll(c)
		if len(got) != tc.want {
			t.Errorf("connection %d: %d bytes, want %d", i+1, len(got), tc.want)
		}
	}
	if st := p.Stats(); st.Faults != 2 {
		t.Errorf("Stats.Faults = %d, want 2", st.Faults)
	}
}

func TestReset(t *testing.T) {
	data := pattern(200 << 10)
	// The server waits for a byte: a reset that came before the client's
	// connect returned would be reported by the connect.
	p := start(t, Config{Target: serve(t, func(c net.Conn) { readFull(c, make([]byte, 1)); c.Write(data); io.Copy(io.Discard, c) }),
		Faults: []Fault{{Kind: Reset, After: 1000}}})
	c := dial(t, p.Addr())
	c.Write([]byte("g"))
	got, err := io.ReadAll(c)
	if !errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("read after the fault: %v, want ECONNRESET", err)
	}
	if len(got) != 1000 {
		t.Errorf("got %d bytes before the reset, want 1000", len(got))
	}
}

func TestStall(t *testing.T) {
	data := pattern(100 << 10)
	p := start(t, Config{Target: serve(t, func(c net.Conn) { c.Write(data); io.Copy(io.Discard, c) }),
		Faults: []Fault{{Kind: Stall, After: 5000}}})
	c := dial(t, p.Addr())
	got := make([]byte, 5000)
	if _, err := io.ReadFull(c, got); err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	n, err := c.Read(make([]byte, 10))
	var ne net.Error
	if n != 0 || !errors.As(err, &ne) || !ne.Timeout() {
		t.Errorf("read after the stall point = %d, %v; want a time-out with nothing read (not a close)", n, err)
	}
	// Close ends the stalled connection and returns.
	p.Close()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Read(make([]byte, 10)); err == nil {
		t.Error("connection still open after Close")
	}
}

func TestRefuseNth(t *testing.T) {
	p := start(t, Config{Target: serve(t, echo), Faults: []Fault{{Kind: Refuse, Conn: 2}}})
	c1 := dial(t, p.Addr())
	c2 := dial(t, p.Addr())
	got, _ := io.ReadAll(c2)
	if !strings.HasPrefix(string(got), "421 ") {
		t.Errorf("second connection got %q, want a 421 reply", got)
	}
	fmt.Fprint(c1, "x")
	b := make([]byte, 1)
	if _, err := io.ReadFull(c1, b); err != nil || b[0] != 'x' {
		t.Errorf("first connection: %q, %v", b, err)
	}
	if st := p.Stats(); st.Refused != 1 || st.Conns != 2 {
		t.Errorf("Stats = %+v, want Refused 1, Conns 2", st)
	}
}

func TestMaxConns(t *testing.T) {
	p := start(t, Config{Target: serve(t, echo), MaxConns: 2})
	c1 := dial(t, p.Addr())
	c2 := dial(t, p.Addr())
	for _, c := range []net.Conn{c1, c2} { // both relayed, so both counted open
		fmt.Fprint(c, "y")
		if _, err := io.ReadFull(c, make([]byte, 1)); err != nil {
			t.Fatal(err)
		}
	}
	line, _ := bufio.NewReader(dial(t, p.Addr())).ReadString('\n')
	if !strings.HasPrefix(line, "421 ") {
		t.Errorf("third connection got %q, want 421", line)
	}
	c1.Close()
	// Once one closes, a new connection is relayed. The close reaches
	// the proxy asynchronously: wait for it to count one open.
	if st, ok := p.Await(5*time.Second, func(st Stats) bool { return st.Open < 2 }); !ok {
		t.Fatalf("Stats = %+v after one of two closed, want Open 1", st)
	}
	c := dial(t, p.Addr())
	fmt.Fprint(c, "z")
	b := make([]byte, 1)
	if _, err := io.ReadFull(c, b); err != nil || b[0] != 'z' {
		t.Errorf("no connection relayed after one of two closed: %q, %v", b, err)
	}
}

func TestRefuseHTTP(t *testing.T) {
	p := start(t, Config{Target: serve(t, echo), Mode: HTTP, Faults: []Fault{{Kind: Refuse, Conn: 1}}})
	c := dial(t, p.Addr())
	fmt.Fprint(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	got, _ := io.ReadAll(c)
	if !strings.HasPrefix(string(got), "HTTP/1.1 503 ") || !strings.Contains(string(got), "Retry-After: 1\r\n") {
		t.Errorf("refusal = %q, want a 503 with Retry-After", got)
	}
}

// fakeFTP answers each "PASV" or "EPSV" line with a passive reply naming a
// data listener that sends data, and records the ports it named.
func fakeFTP(t *testing.T, data []byte, ports chan<- int) string {
	return serve(t, func(c net.Conn) {
		fmt.Fprint(c, "220 fake\r\n")
		r := bufio.NewReader(c)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				return
			}
			port := ln.Addr().(*net.TCPAddr).Port
			ports <- port
			go func() {
				defer ln.Close()
				ln.(*net.TCPListener).SetDeadline(time.Now().Add(10 * time.Second))
				d, err := ln.Accept()
				if err != nil {
					return
				}
				d.Write(data)
				d.Close()
			}()
			if strings.HasPrefix(line, "PASV") {
				fmt.Fprintf(c, "227 Entering Passive Mode (127,0,0,1,%d,%d).\r\n", port>>8, port&0xff)
			} else {
				fmt.Fprintf(c, "229 Entering Extended Passive Mode (|||%d|)\r\n", port)
			}
		}
	})
}

func TestFTPDataThroughProxy(t *testing.T) {
	data := pattern(50 << 10)
	ports := make(chan int, 4)
	p := start(t, Config{Target: fakeFTP(t, data, ports), Mode: FTP, Delay: 10 * time.Millisecond,
		Faults: []Fault{{Kind: Cut, Conn: 2, Data: true, After: 1234}}})
	c := dial(t, p.Addr())
	r := bufio.NewReader(c)
	if line, _ := r.ReadString('\n'); line != "220 fake\r\n" {
		t.Fatalf("greeting %q", line)
	}
	for i, cmd := range []string{"PASV", "EPSV", "EPSV"} {
		fmt.Fprintf(c, "%s\r\n", cmd)
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		server := <-ports
		var port int
		if cmd == "PASV" {
			var h1, h2, h3, h4, p1, p2 int
			if _, err := fmt.Sscanf(line, "227 Entering Passive Mode (%d,%d,%d,%d,%d,%d).", &h1, &h2, &h3, &h4, &p1, &p2); err != nil {
				t.Fatalf("reply %q: %v", line, err)
			}
			port = p1<<8 | p2
		} else if _, err := fmt.Sscanf(line, "229 Entering Extended Passive Mode (|||%d|)", &port); err != nil {
			t.Fatalf("reply %q: %v", line, err)
		}
		if port == server {
			t.Errorf("%s: reply %q names the server's port, not the proxy's", cmd, line)
		}
		got, _ := io.ReadAll(dial(t, fmt.Sprintf("127.0.0.1:%d", port)))
		want := data
		if i == 1 {
			want = data[:1234] // the second data connection is cut
		}
		if !bytes.Equal(got, want) {
			t.Errorf("data connection %d: got %d bytes, want %d", i+1, len(got), len(want))
		}
	}
	if st := p.Stats(); st.DataConns != 3 || st.DataDown != int64(2*len(data)+1234) {
		t.Errorf("Stats = %+v, want 3 data connections, %d data bytes", st, 2*len(data)+1234)
	}
}

// Close ends every goroutine the proxy started (it waits for them), idle
// and stalled connections and unused data listeners included.
func TestCloseEndsGoroutines(t *testing.T) {
	ports := make(chan int, 4)
	p, err := Start(Config{Target: fakeFTP(t, pattern(10<<10), ports), Mode: FTP, Delay: time.Second,
		Faults: []Fault{{Kind: Stall, After: 3}}})
	if err != nil {
		t.Fatal(err)
	}
	c := dial(t, p.Addr())
	fmt.Fprint(c, "EPSV\r\n")
	<-ports // a second later: the command went through the delay line
	if b := make([]byte, 3); !readFull(c, b) || string(b) != "220" {
		t.Fatalf("before the stall: %q", b)
	}
	// Now the 229 reply is in the delay line and the greeting stalled.
	closed := make(chan struct{})
	go func() { p.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(15 * time.Second):
		t.Fatal("Close did not return")
	}
	p.mu.Lock()
	n, l := len(p.conns), len(p.lns)
	p.mu.Unlock()
	if n != 0 || l != 0 {
		t.Errorf("after Close: %d connections and %d listeners still tracked", n, l)
	}
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Read(make([]byte, 1)); err == nil {
		t.Error("client connection still open after Close")
	}
}

var pasvTests = []struct {
	line string
	port int
	ok   bool
}{
	{"227 Entering Passive Mode (127,0,0,1,4,1).\r\n", 1025, true}, // RFC 959 section 4.1.2 (customary form)
	{"227 =127,0,0,1,200,10\r\n", 51210, true},                     // RFC 1123 section 4.1.2.6: the text may vary
	{"227 Entering Passive Mode (127,0,0,1,4).\r\n", 0, false},     // five numbers
	{"227 Entering Passive Mode (127,0,0,1,4,256).\r\n", 0, false}, // p2 over 255
	{"227 nothing\r\n", 0, false},
	{"227 Entering Passive Mode (127,0,0,1,0,0).\r\n", 0, false}, // port 0 names no port
}

func TestPasvPort(t *testing.T) {
	for _, tt := range pasvTests {
		port, ok := pasvPort([]byte(tt.line))
		if port != tt.port || ok != tt.ok {
			t.Errorf("pasvPort(%q) = %d, %v, want %d, %v", tt.line, port, ok, tt.port, tt.ok)
		}
	}
}

var epsvTests = []struct {
	line string
	port int
	ok   bool
}{
	{"229 Entering Extended Passive Mode (|||6446|)\r\n", 6446, true}, // RFC 2428 section 3
	{"229 ok (|||0|)\r\n", 0, false},
	{"229 ok (|||70000|)\r\n", 0, false},
	{"229 ok (|||12\r\n", 0, false},
}

func TestEpsvPort(t *testing.T) {
	for _, tt := range epsvTests {
		port, ok := epsvPort([]byte(tt.line))
		if port != tt.port || ok != tt.ok {
			t.Errorf("epsvPort(%q) = %d, %v, want %d, %v", tt.line, port, ok, tt.port, tt.ok)
		}
	}
}

func FuzzPassivePort(f *testing.F) {
	for _, tt := range pasvTests {
		f.Add(tt.line)
	}
	for _, tt := range epsvTests {
		f.Add(tt.line)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if len(line) < 4 {
			return
		}
		for _, parse := range []func([]byte) (int, bool){pasvPort, epsvPort} {
			port, ok := parse([]byte(line))
			if ok && (port <= 0 || port > 65535) {
				t.Errorf("port %d out of range from %q", port, line)
			}
			if !ok && port != 0 {
				t.Errorf("port %d with ok false from %q", port, line)
			}
		}
	})
}
