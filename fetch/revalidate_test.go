package fetch

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

// burstListener records the most conditional requests (If-Modified-Since)
// that one read of a connection brought: more than one is a pipeline.
type burstListener struct {
	net.Listener
	most *atomic.Int64
}

func (l burstListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return burstConn{Conn: c, most: l.most}, nil
}

type burstConn struct {
	net.Conn
	most *atomic.Int64
}

func (c burstConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	k := int64(bytes.Count(p[:n], []byte("\r\nIf-Modified-Since: ")))
	for {
		m := c.most.Load()
		if k <= m || c.most.CompareAndSwap(m, k) {
			break
		}
	}
	return n, err
}

// A re-run of an HTTP index tree through Client.Mirror asks its files'
// conditions pipelined (the requests arrive together); a client with a
// Wait between requests asks one at a time. Every file stays intact and
// unchanged either way.
func TestMirrorHTTPRevalidatePipelined(t *testing.T) {
	src := t.TempDir()
	want := map[string][]byte{}
	for i := range 20 {
		name := fmt.Sprintf("f%02d.txt", i)
		want[name] = bytes.Repeat([]byte{byte('a' + i)}, 50+i)
		if err := os.WriteFile(filepath.Join(src, name), want[name], 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name      string
		wait      time.Duration
		pipelined bool
	}{
		{"no wait", 0, true},
		{"wait", time.Millisecond, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			most := &atomic.Int64{}
			srv := httptest.NewUnstartedServer(http.FileServer(http.Dir(src)))
			srv.Listener = burstListener{Listener: srv.Listener, most: most}
			srv.Start()
			defer srv.Close()
			c := &Client{ConnectTimeout: 5 * time.Second, IdleTimeout: 5 * time.Second, Wait: tc.wait}
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			dir := t.TempDir()
			if sum, err := c.Mirror(ctx, srv.URL+"/", dir, MirrorOptions{Jobs: 2}); err != nil || sum.New != len(want) {
				t.Fatalf("first run: %v, %+v", err, sum)
			}
			most.Store(0)
			sum, err := c.Mirror(ctx, srv.URL+"/", dir, MirrorOptions{Jobs: 2})
			if err != nil || sum.Unchanged != len(want) {
				t.Fatalf("re-run: %v, %+v", err, sum)
			}
			if got := most.Load() > 1; got != tc.pipelined {
				t.Errorf("re-run: at most %d conditional requests in one read; pipelined %v, want %v", most.Load(), got, tc.pipelined)
			}
			for name, b := range want {
				if got, err := os.ReadFile(filepath.Join(dir, name)); err != nil || !bytes.Equal(got, b) {
					t.Errorf("%s differs (%v)", name, err)
				}
			}
		})
	}
}
