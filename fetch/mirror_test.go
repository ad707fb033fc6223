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

// A mirror of an HTTP index tree keeps its connections alive: 40 files
// with two workers take a handful of connections, not one per file, and
// the copy is byte-exact. (fetch get keeps one connection per URL.)
func TestMirrorHTTPKeepAlive(t *testing.T) {
	src := t.TempDir()
	want := map[string][]byte{}
	for i := range 40 {
		name := fmt.Sprintf("f%02d.txt", i)
		want[name] = bytes.Repeat([]byte{byte('a' + i%26)}, 100+i)
		if err := os.WriteFile(filepath.Join(src, name), want[name], 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.FileServer(http.Dir(src)))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	c := &Client{ConnectTimeout: 5 * time.Second, IdleTimeout: 5 * time.Second}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	dir := t.TempDir()
	sum, err := c.Mirror(ctx, srv.URL+"/", dir, MirrorOptions{Jobs: 2})
	if err != nil || sum.New != len(want) {
		t.Fatalf("Mirror = %v, %+v", err, sum)
	}
	for name, b := range want {
		if got, err := os.ReadFile(filepath.Join(dir, name)); err != nil || !bytes.Equal(got, b) {
			t.Errorf("%s differs (%v)", name, err)
		}
	}
	if n := conns.Load(); n > 10 {
		t.Errorf("%d connections for an index page and %d files, want them kept alive", n, len(want))
	}
	t.Logf("%d connections for %d files", conns.Load(), len(want))
}
