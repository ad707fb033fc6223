package gopher

import (
	"bufio"
	"bytes"
	"context"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rfc1738/fetch/proto"
)

// fakeServer is an in-process gopher server on 127.0.0.1:0. It records
// every request it receives, byte for byte, and answers each from a
// handler chosen by the request line (without its CRLF). A request whose
// line ends in "\t1" is followed by a data block, read up to its "." line
// (gopherplus.txt section 2.4).
type fakeServer struct {
	Addr string
	ln   net.Listener

	mu       sync.Mutex
	requests []string // each request as received
	wire     bytes.Buffer
	conns    int

	handlers map[string]handler
	fallback handler
	wg       sync.WaitGroup
}

// handler answers one request on c; c is closed when it returns.
type handler func(c net.Conn)

// reply answers with fixed bytes.
func reply(s string) handler {
	return func(c net.Conn) { c.Write([]byte(s)) }
}

// silent never answers (until the client goes away or the test ends).
func silent(done <-chan struct{}) handler {
	return func(c net.Conn) {
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		select {
		case <-done:
		case <-readEOF(c):
		}
	}
}

func readEOF(c net.Conn) <-chan struct{} {
	ch := make(chan struct{})
	go func() {
		defer close(ch)
		b := make([]byte, 64)
		for {
			if _, err := c.Read(b); err != nil {
				return
			}
		}
	}()
	return ch
}

// endless sends prefix, then chunk again and again until the client goes
// away (bounded at 1 GiB and 30 s so that a broken client cannot hang the
// test run).
func endless(prefix, chunk string) handler {
	return func(c net.Conn) {
		c.SetWriteDeadline(time.Now().Add(30 * time.Second))
		if _, err := c.Write([]byte(prefix)); err != nil {
			return
		}
		b := []byte(strings.Repeat(chunk, max(1, 32<<10/len(chunk))))
		for sent := 0; sent < 1<<30; sent += len(b) {
			if _, err := c.Write(b); err != nil {
				return
			}
		}
	}
}

func newFake(t *testing.T, handlers map[string]handler) *fakeServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &fakeServer{Addr: ln.Addr().String(), ln: ln, handlers: handlers}
	s.fallback = reply("3not here\t\terror.host\t1\r\n")
	s.wg.Add(1)
	go s.serve()
	t.Cleanup(func() {
		ln.Close()
		s.wg.Wait()
	})
	return s
}

func (s *fakeServer) serve() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer c.Close()
			s.handle(c)
		}()
	}
}

func (s *fakeServer) handle(c net.Conn) {
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	br := bufio.NewReader(c)
	var raw bytes.Buffer
	line, err := br.ReadString('\n')
	raw.WriteString(line)
	key := strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
	if err == nil && strings.HasSuffix(key, "\t1") {
		for {
			l, err := br.ReadString('\n')
			raw.WriteString(l)
			if err != nil || l == ".\r\n" {
				break
			}
		}
	}
	s.mu.Lock()
	s.conns++
	s.requests = append(s.requests, raw.String())
	s.wire.Write(raw.Bytes())
	h, ok := s.handlers[key]
	s.mu.Unlock()
	if !ok {
		h = s.fallback
	}
	c.SetReadDeadline(time.Time{})
	h(c)
}

// Requests returns the requests received so far.
func (s *fakeServer) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.requests...)
}

// Wire returns every byte received so far.
func (s *fakeServer) Wire() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return bytes.Clone(s.wire.Bytes())
}

// Conns returns the number of connections that sent a request.
func (s *fakeServer) Conns() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conns
}

// request returns a Request whose dialer sends every connection to the
// fake server, whatever the URL's host (so that transcripts can use
// gopher://h/), with short timeouts, and counts the dials.
func (s *fakeServer) request(dials *int) *proto.Request {
	var mu sync.Mutex
	return &proto.Request{
		ConnectTimeout: 5 * time.Second,
		IdleTimeout:    5 * time.Second,
		Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
			if dials != nil {
				mu.Lock()
				*dials++
				mu.Unlock()
			}
			var d net.Dialer
			return d.DialContext(ctx, network, s.Addr)
		},
	}
}

// fakePrompter answers prompts from a list and records what it was asked.
type fakePrompter struct {
	answers []string
	asked   []string
	echo    []bool
}

func (p *fakePrompter) Ask(_ context.Context, prompt string, echo bool) (string, error) {
	p.asked = append(p.asked, prompt)
	p.echo = append(p.echo, echo)
	if len(p.answers) == 0 {
		return "", context.Canceled
	}
	a := p.answers[0]
	p.answers = p.answers[1:]
	return a, nil
}
