// Package faultproxy is a TCP proxy on 127.0.0.1 for tests and benchmarks
// that puts a distance and faults between a client and a server on the
// same machine: a fixed one-way delay in each direction, a connection cut
// or reset after so many bytes, a stall (bytes stop without a close), and
// a refusal of a connection ("421 Too many connections").
//
// The delay is a delay line, not a throttle: each chunk of bytes is
// delivered Delay after the proxy read it, in order, while later chunks
// are already being read, so throughput is that of the loopback and only
// the latency grows (as tc netem's delay would, which is not available
// where the tests run). Rate, when set, adds a link of that many bytes a
// second from the server to the client, which every connection of the
// proxy shares: a chunk is delivered once the link has carried the chunks
// before it and itself.
//
// In FTP mode the proxy reads the server's replies line by line and
// rewrites the passive replies (227 for PASV, RFC 959 section 4.1.2; 229
// for EPSV, RFC 2428 section 3) so that every data connection goes through
// a delayed proxy of its own, with faults of its own (Fault.Data).
//
// The proxy listens on and dials 127.0.0.1 (or ::1) only. Every goroutine
// it starts ends when Close returns; every wait it makes ends when the
// proxy is closed.
package faultproxy

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/rfc1738/fetch/internal/testrig/notify"
)

// Mode says what protocol the proxy carries, for the replies it rewrites
// and the refusals it makes up.
type Mode int

const (
	// Plain forwards bytes; a refusal is an FTP-style "421" line.
	Plain Mode = iota
	// FTP rewrites 227 and 229 replies so that data connections go through
	// the proxy too; a refusal is "421 Too many connections".
	FTP
	// HTTP forwards bytes; a refusal reads the request head and answers
	// "503 Service Unavailable" with "Retry-After: 1".
	HTTP
)

// Kind is what a Fault does.
type Kind int

const (
	// Cut closes both sides after After bytes from the server have been
	// delivered (the client sees an early end of file).
	Cut Kind = iota + 1
	// Stall stops delivering the server's bytes after After of them,
	// without closing anything, until the connection or the proxy is
	// closed.
	Stall
	// Reset resets both sides (TCP RST) after After bytes from the server.
	Reset
	// Refuse answers the connection itself with a refusal (see Mode) and
	// closes it; the server never sees it. After is not used.
	Refuse
)

// Fault is one fault the proxy injects.
type Fault struct {
	Kind Kind
	// Conn is the 1-based number of the connection it hits, in the order
	// the proxy accepted them, counted among control (or plain)
	// connections, or among data connections when Data is set. Zero means
	// every such connection.
	Conn int
	// Data makes the fault hit FTP data connections instead of control
	// connections (FTP mode only).
	Data bool
	// After is the number of bytes from the server delivered to the client
	// before a Cut, Stall or Reset.
	After int64
	// Count bounds the connections the fault hits: a connection that
	// ends before After bytes is not hit and does not count. Zero means
	// every connection that matches.
	Count int
}

// Config describes a proxy. Target is required; the zero value of every
// other field means no delay, no fault, no limit.
type Config struct {
	// Target is the server's address, "127.0.0.1:PORT" or "[::1]:PORT".
	Target string
	// Mode is the protocol carried. Zero means Plain.
	Mode Mode
	// Delay is the one-way delay added in each direction, so that a round
	// trip takes at least 2*Delay.
	Delay time.Duration
	// Faults are injected as they match; the first that matches a
	// connection wins.
	Faults []Fault
	// MaxConns refuses (see Refuse) every control or plain connection
	// that would make more than MaxConns of them open at once. Zero means
	// no limit.
	MaxConns int
	// Rate is the capacity, in bytes a second, of the link from the
	// server to the client that every connection shares (data
	// connections included). Zero means no limit: the loopback's.
	Rate int64
}

// Stats counts what the proxy did.
type Stats struct {
	Conns     int   // control or plain connections accepted (refused ones included)
	DataConns int   // FTP data connections accepted
	Refused   int   // connections answered with a refusal
	Faults    int   // hits of Config.Faults (MaxConns refusals are not counted)
	Down      int64 // bytes delivered from the server on control or plain connections
	DataDown  int64 // bytes delivered from the server on data connections
	Up        int64 // bytes delivered to the server, all connections
	Open      int   // control or plain connections relayed and not yet closed
}

// Proxy is a running proxy. Its methods are safe for concurrent use.
type Proxy struct {
	cfg  Config
	host string // the target's host, which every dial goes to
	ln   net.Listener
	done chan struct{}
	wg   sync.WaitGroup

	mu    sync.Mutex
	stats Stats
	open  int                   // control or plain connections open
	moved notify.Signal         // notified when a byte count or open changes
	conns map[net.Conn]bool     // every connection, to close them on Close
	lns   map[net.Listener]bool // data listeners not yet used
	hits  map[*Fault]int        // connections each fault hit
	once  sync.Once
	// linkFree is when the link of Config.Rate has carried every chunk
	// given to it so far.
	linkFree time.Time
}

// ErrNotLoopback is returned by Start for a target that is not a loopback
// address given as an IP.
var ErrNotLoopback = errors.New("faultproxy: target must be 127.0.0.1 or [::1]")

// acceptWait bounds how long a data listener waits for the client.
const acceptWait = 30 * time.Second

// Start listens on 127.0.0.1 (an unused port) and proxies every
// connection to cfg.Target. Close stops it.
func Start(cfg Config) (*Proxy, error) {
	host, _, err := net.SplitHostPort(cfg.Target)
	if err != nil {
		return nil, fmt.Errorf("faultproxy: target %q: %w", cfg.Target, err)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return nil, fmt.Errorf("%w: %q", ErrNotLoopback, cfg.Target)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return nil, fmt.Errorf("faultproxy: %w", err)
	}
	p := &Proxy{cfg: cfg, host: host, ln: ln, done: make(chan struct{}),
		conns: map[net.Conn]bool{}, lns: map[net.Listener]bool{}, hits: map[*Fault]int{}}
	p.wg.Add(1)
	go p.serve()
	return p, nil
}

// Addr returns the address clients connect to, "127.0.0.1:PORT".
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Stats returns what the proxy did so far.
func (p *Proxy) Stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	st := p.stats
	st.Open = p.open
	return st
}

// Await waits until cond holds for Stats, looking again whenever a byte
// count or the number of open connections changes, for at most timeout.
// It returns the last Stats and whether cond held: the proxy counts bytes
// after it has passed them on and a close after the peer has seen it, so
// a test waits with it instead of reading Stats at once.
func (p *Proxy) Await(timeout time.Duration, cond func(Stats) bool) (Stats, bool) {
	var st Stats
	ok := p.moved.Until(timeout, func() bool {
		st = p.Stats()
		return cond(st)
	})
	return st, ok
}

// Close stops listening, closes every connection and waits for every
// goroutine of the proxy to end. It may be called more than once.
func (p *Proxy) Close() error {
	p.once.Do(func() {
		close(p.done)
		p.ln.Close()
		p.mu.Lock()
		for c := range p.conns {
			c.Close()
		}
		for l := range p.lns {
			l.Close()
		}
		p.mu.Unlock()
	})
	p.wg.Wait()
	return nil
}

// track records c for Close; it reports false (and closes c) when the
// proxy is closing.
func (p *Proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.done:
		c.Close()
		return false
	default:
	}
	p.conns[c] = true
	return true
}

func (p *Proxy) untrack(c net.Conn) {
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
}

func (p *Proxy) serve() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			select {
			case <-p.done:
				return
			default:
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return
		}
		if !p.track(c) {
			continue
		}
		p.mu.Lock()
		p.stats.Conns++
		n := p.stats.Conns
		refuse := p.cfg.MaxConns > 0 && p.open >= p.cfg.MaxConns
		if !refuse {
			p.open++
		}
		p.mu.Unlock()
		f := p.fault(n, false)
		p.wg.Add(1)
		if refuse || f != nil && f.Kind == Refuse && p.hit(f) {
			if !refuse {
				p.mu.Lock()
				p.open--
				p.mu.Unlock()
				p.moved.Notify()
			}
			go p.refuse(c)
			continue
		}
		go func() {
			p.connectPort(c, f, false, "")
			p.mu.Lock()
			p.open--
			p.mu.Unlock()
			p.moved.Notify()
		}()
	}
}

// fault returns the fault for the n-th connection (data or not), or nil.
func (p *Proxy) fault(n int, data bool) *Fault {
	for i := range p.cfg.Faults {
		f := &p.cfg.Faults[i]
		if f.Data == data && (f.Conn == 0 || f.Conn == n) {
			return f
		}
	}
	return nil
}

// hit counts a hit of f and reports true, or reports false when f has
// hit Count connections already.
func (p *Proxy) hit(f *Fault) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if f.Count > 0 && p.hits[f] >= f.Count {
		return false
	}
	p.hits[f]++
	p.stats.Faults++
	return true
}

// refuse answers c with the mode's refusal, after the delay, and closes it.
func (p *Proxy) refuse(c net.Conn) {
	defer p.wg.Done()
	defer p.untrack(c)
	defer c.Close()
	p.mu.Lock()
	p.stats.Refused++
	p.mu.Unlock()
	reply := "421 Too many connections (faultproxy)\r\n"
	if p.cfg.Mode == HTTP {
		reply = "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
		c.SetReadDeadline(time.Now().Add(acceptWait))
		br := bufio.NewReaderSize(c, 4096)
		for range 200 { // the request head, line by line, bounded
			line, err := br.ReadSlice('\n')
			if err != nil || len(bytes.TrimSpace(line)) == 0 {
				break
			}
		}
	}
	if !p.sleep(p.cfg.Delay) {
		return
	}
	c.Write([]byte(reply))
}

// sleep waits d, or until the proxy is closed; it reports false then.
func (p *Proxy) sleep(d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-p.done:
		return false
	}
}

// connectPort dials port of the target's host ("" for the target itself;
// another is an FTP data port) for the accepted client conn c and relays
// between them, with fault f on the server's direction.
func (p *Proxy) connectPort(c net.Conn, f *Fault, data bool, port string) {
	defer p.wg.Done()
	defer p.untrack(c)
	if f != nil && f.Kind == Refuse && p.hit(f) {
		// A refused data connection: reset it at once.
		if tc, ok := c.(*net.TCPConn); ok {
			tc.SetLinger(0)
		}
		c.Close()
		return
	}
	addr := p.cfg.Target
	if port != "" {
		addr = net.JoinHostPort(p.host, port)
	}
	d := net.Dialer{Timeout: acceptWait}
	s, err := d.Dial("tcp", addr)
	if err != nil {
		c.Close()
		return
	}
	if !p.track(s) {
		c.Close()
		return
	}
	defer p.untrack(s)
	pr := &pair{p: p, client: c, server: s, done: make(chan struct{}), data: data}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); pr.direction(c, s, nil, false) }()
	go func() { defer wg.Done(); pr.direction(s, c, f, p.cfg.Mode == FTP && !data) }()
	wg.Wait()
	pr.close(false)
}

// pair is one proxied connection: the client's side and the server's.
type pair struct {
	p              *Proxy
	client, server net.Conn
	data           bool
	done           chan struct{}
	once           sync.Once
}

// close closes both sides; with reset, as a TCP RST.
func (pr *pair) close(reset bool) {
	pr.once.Do(func() {
		if reset {
			for _, c := range []net.Conn{pr.client, pr.server} {
				if tc, ok := c.(*net.TCPConn); ok {
					tc.SetLinger(0)
				}
			}
		}
		pr.client.Close()
		pr.server.Close()
		close(pr.done)
	})
}

// chunk is bytes read at a time, or the end of the stream.
type chunk struct {
	at  time.Time
	b   []byte
	eof bool // the reader saw a clean end of file
}

// queueLen bounds the chunks in flight in one direction (with 32 KiB
// reads, up to 8 MiB), far more than a loopback carries in any delay a
// test uses; a full queue makes the reader wait, as a full window would.
const queueLen = 256

// direction relays src to dst through the delay line. f, when not nil, is
// applied to what dst receives; ftp rewrites passive replies.
func (pr *pair) direction(src, dst net.Conn, f *Fault, ftp bool) {
	ch := make(chan chunk, queueLen)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(ch)
		pr.read(src, ch, ftp)
	}()
	if !pr.write(dst, ch, f, src == pr.server) {
		// The writer gave up (a fault, an error, a close): end the
		// pair, which unblocks the reader, and drain what it still sends.
		pr.close(false)
		for range ch {
		}
	}
	wg.Wait()
}

// read reads src into ch, stamping each chunk with the time it arrived.
func (pr *pair) read(src net.Conn, ch chan<- chunk, ftp bool) {
	send := func(c chunk) bool {
		select {
		case ch <- c:
			return true
		case <-pr.done:
			return false
		case <-pr.p.done:
			return false
		}
	}
	next := func() ([]byte, error) {
		buf := make([]byte, 32<<10)
		n, err := src.Read(buf)
		return buf[:n], err
	}
	if ftp {
		// Line by line, the passive replies rewritten.
		br := bufio.NewReaderSize(src, 4096)
		next = func() ([]byte, error) {
			line, err := br.ReadSlice('\n')
			if errors.Is(err, bufio.ErrBufferFull) {
				err = nil
			}
			if len(line) > 0 {
				line = pr.p.rewrite(line)
			}
			return line, err
		}
	}
	for {
		b, err := next()
		if len(b) > 0 && !send(chunk{at: time.Now(), b: b}) {
			return
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				send(chunk{at: time.Now(), eof: true})
			} else {
				pr.close(false)
			}
			return
		}
	}
}

// write delivers the chunks of ch to dst, each Delay after it was read,
// and applies f. down says dst is the client (bytes from the server). It
// reports true when it delivered the end of the stream (a half-close).
func (pr *pair) write(dst net.Conn, ch <-chan chunk, f *Fault, down bool) bool {
	var sent int64
	var kind Kind
	if f != nil {
		kind = f.Kind
	}
	for c := range ch {
		if wait := time.Until(c.at.Add(pr.p.cfg.Delay)); wait > 0 && !pr.wait(wait) {
			return false
		}
		if c.eof {
			if tc, ok := dst.(*net.TCPConn); ok {
				tc.CloseWrite()
			}
			return true
		}
		b := c.b
		hit := false
		if f != nil && f.Kind != Refuse && sent+int64(len(b)) > f.After && pr.p.hit(f) {
			b, hit = b[:f.After-sent], true
			f = nil
		}
		n, ok := pr.deliver(dst, b, down)
		sent += n
		if !ok {
			return false
		}
		if hit {
			pr.strike(kind)
			return false
		}
	}
	return false
}

// deliver writes b to dst, at Config.Rate towards the client, and
// counts it; it reports false when the pair ends first or the write
// fails.
func (pr *pair) deliver(dst net.Conn, b []byte, down bool) (int64, bool) {
	if len(b) == 0 {
		return 0, true
	}
	if down && pr.p.cfg.Rate > 0 {
		if wait := time.Until(pr.p.carry(len(b))); wait > 0 && !pr.wait(wait) {
			return 0, false
		}
	}
	n, err := dst.Write(b)
	pr.count(int64(n), down)
	return int64(n), err == nil
}

// strike applies a fault of kind once its bytes are delivered: Cut
// closes the pair, Reset resets it, Stall holds it until it or the
// proxy is closed.
func (pr *pair) strike(kind Kind) {
	switch kind {
	case Cut:
		pr.close(false)
	case Reset:
		pr.close(true)
	case Stall:
		select {
		case <-pr.done:
		case <-pr.p.done:
		}
	}
}

// carry puts n bytes on the link of Config.Rate, after those given to it
// before, and returns when they have crossed it.
func (p *Proxy) carry(n int) time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	if now := time.Now(); p.linkFree.Before(now) {
		p.linkFree = now
	}
	p.linkFree = p.linkFree.Add(time.Duration(int64(n) * int64(time.Second) / p.cfg.Rate))
	return p.linkFree
}

// wait sleeps d unless the pair or the proxy is closed first.
func (pr *pair) wait(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-pr.done:
		return false
	case <-pr.p.done:
		return false
	}
}

func (pr *pair) count(n int64, down bool) {
	defer pr.p.moved.Notify()
	pr.p.mu.Lock()
	defer pr.p.mu.Unlock()
	switch {
	case !down:
		pr.p.stats.Up += n
	case pr.data:
		pr.p.stats.DataDown += n
	default:
		pr.p.stats.Down += n
	}
}

// rewrite returns line, or for a 227 or 229 reply a reply naming the port
// of a new data listener that proxies to the port the server named.
func (p *Proxy) rewrite(line []byte) []byte {
	var port int
	ok := false
	switch {
	case bytes.HasPrefix(line, []byte("227 ")) && p.host == "127.0.0.1": // PASV cannot name ::1
		port, ok = pasvPort(line)
	case bytes.HasPrefix(line, []byte("229 ")):
		port, ok = epsvPort(line)
	}
	if !ok {
		return bytes.Clone(line)
	}
	local, ok := p.dataListener(port)
	switch {
	case !ok:
		return bytes.Clone(line)
	case line[2] == '7':
		return fmt.Appendf(nil, "227 Entering Passive Mode (127,0,0,1,%d,%d).\r\n", local>>8, local&0xff)
	}
	return fmt.Appendf(nil, "229 Entering Extended Passive Mode (|||%d|)\r\n", local)
}

// pasvPort reads the port of a 227 reply: six numbers h1,h2,h3,h4,p1,p2
// somewhere in the text (RFC 959 section 4.1.2; the parentheses are
// customary, not required).
func pasvPort(line []byte) (int, bool) {
	text := line[4:]
	start := bytes.IndexAny(text, "0123456789")
	if start < 0 {
		return 0, false
	}
	var nums []int
	cur, digits := 0, 0
	for _, c := range text[start:] {
		if c >= '0' && c <= '9' && digits < 3 {
			cur, digits = cur*10+int(c-'0'), digits+1
			continue
		}
		if digits == 0 {
			break
		}
		nums = append(nums, cur)
		cur, digits = 0, 0
		if c != ',' || len(nums) == 6 {
			break
		}
	}
	if len(nums) != 6 || nums[4] > 255 || nums[5] > 255 || nums[4] == 0 && nums[5] == 0 {
		return 0, false // port 0 names no port
	}
	return nums[4]<<8 | nums[5], true
}

// epsvPort reads the port of a 229 reply, "(|||port|)" (RFC 2428 section 3).
func epsvPort(line []byte) (int, bool) {
	i := bytes.Index(line, []byte("(|||"))
	if i < 0 {
		return 0, false
	}
	rest := line[i+4:]
	j := bytes.IndexByte(rest, '|')
	if j <= 0 {
		return 0, false
	}
	n, err := strconv.Atoi(string(rest[:j]))
	if err != nil || n <= 0 || n > 65535 {
		return 0, false
	}
	return n, true
}

// dataListener listens for one data connection, which it proxies to port
// of the target's host, and returns the port it listens on.
func (p *Proxy) dataListener(port int) (int, bool) {
	ln, err := net.Listen("tcp", net.JoinHostPort(p.host, "0"))
	if err != nil {
		return 0, false
	}
	p.mu.Lock()
	select {
	case <-p.done:
		p.mu.Unlock()
		ln.Close()
		return 0, false
	default:
	}
	p.lns[ln] = true
	p.mu.Unlock()
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		if tl, ok := ln.(*net.TCPListener); ok {
			tl.SetDeadline(time.Now().Add(acceptWait))
		}
		c, err := ln.Accept()
		ln.Close()
		p.mu.Lock()
		delete(p.lns, ln)
		p.mu.Unlock()
		if err != nil || !p.track(c) {
			return
		}
		p.mu.Lock()
		p.stats.DataConns++
		n := p.stats.DataConns
		p.mu.Unlock()
		p.wg.Add(1)
		p.connectPort(c, p.fault(n, true), true, strconv.Itoa(port))
	}()
	return ln.Addr().(*net.TCPAddr).Port, true
}
