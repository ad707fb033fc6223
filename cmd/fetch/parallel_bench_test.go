package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/rfc1738/fetch/internal/testrig/localserver"
)

// BenchmarkGetMany runs "fetch get -s --output-dir DIR -O" for 100 small
// files from one in-process server (RawFTP, or httptest for HTTP), one
// after another and with -Z --parallel-max 8, on plain loopback and with
// 10 ms added to every round trip (latencyDial: the replies of the server
// arrive 10 ms after it sent them, and each connection takes 10 ms to
// open). One op is the whole command. Run it with
//
//	go test -run '^$' -bench GetMany -benchtime 3x ./cmd/fetch/
func BenchmarkGetMany(b *testing.B) {
	const n = 100
	files := map[string][]byte{}
	for i := range n {
		files[fmt.Sprintf("/pub/f%03d.txt", i)] = []byte(fmt.Sprintf("file %04d\n", i))
	}
	ftpSrv := &localserver.RawFTP{Listings: map[string]string{"/": "", "/pub": ""}, Files: files}
	if err := localserver.StartRawFTP(ftpSrv); err != nil {
		b.Fatal(err)
	}
	defer ftpSrv.Close()
	httpSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(body)
	}))
	defer httpSrv.Close()
	bases := map[string]string{"ftp": "ftp://" + ftpSrv.Addr(), "http": httpSrv.URL}
	for _, scheme := range []string{"ftp", "http"} {
		var urls []string
		for i := range n {
			urls = append(urls, fmt.Sprintf("%s/pub/f%03d.txt", bases[scheme], i))
		}
		for _, rtt := range []time.Duration{0, 10 * time.Millisecond} {
			for _, mode := range []struct {
				name string
				args []string
			}{{"serial", nil}, {"Z8", []string{"-Z", "--parallel-max", "8"}}} {
				b.Run(fmt.Sprintf("%s/rtt=%v/%s", scheme, rtt, mode.name), func(b *testing.B) {
					for b.Loop() {
						dir := b.TempDir()
						args := append([]string{"get", "-s", "-O", "--output-dir", dir}, mode.args...)
						e := &env{in: nil, out: io.Discard, err: io.Discard, getenv: func(string) string { return "" }, dial: latencyDial(rtt)}
						ctx, cancel := context.WithTimeout(b.Context(), 2*time.Minute)
						code := execute(ctx, append(args, urls...), e)
						cancel()
						if code != 0 {
							b.Fatalf("exit %d", code)
						}
						if got, _ := os.ReadFile(dir + "/f099.txt"); !bytes.Equal(got, files["/pub/f099.txt"]) {
							b.Fatalf("f099.txt = %q", got)
						}
						os.RemoveAll(dir)
					}
				})
			}
		}
	}
}

// latencyDial dials with rtt added: the connection is handed over rtt
// after it opened, and every byte the server sends is delivered rtt after
// it came (the whole round trip's delay on the way back, which is the
// same for a client that waits for each reply). Bytes are never held back
// by earlier ones beyond their own delay, so throughput is not limited.
func latencyDial(rtt time.Duration) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		var d net.Dialer
		c, err := d.DialContext(ctx, network, addr)
		if err != nil || rtt == 0 {
			return c, err
		}
		time.Sleep(rtt)
		lc := &latencyConn{Conn: c, rtt: rtt, ch: make(chan chunk, 1024)}
		go lc.pump()
		return lc, nil
	}
}

type chunk struct {
	b   []byte
	at  time.Time
	err error
}

type latencyConn struct {
	net.Conn
	rtt  time.Duration
	ch   chan chunk
	mu   sync.Mutex
	rest []byte
	err  error
}

func (c *latencyConn) pump() {
	for {
		b := make([]byte, 32<<10)
		n, err := c.Conn.Read(b)
		c.ch <- chunk{b: b[:n], at: time.Now(), err: err}
		if err != nil {
			close(c.ch)
			return
		}
	}
}

func (c *latencyConn) Read(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for len(c.rest) == 0 {
		if c.err != nil {
			return 0, c.err
		}
		k, ok := <-c.ch
		if !ok {
			return 0, io.EOF
		}
		time.Sleep(time.Until(k.at.Add(c.rtt)))
		c.rest, c.err = k.b, k.err
	}
	n := copy(p, c.rest)
	c.rest = c.rest[n:]
	return n, nil
}
