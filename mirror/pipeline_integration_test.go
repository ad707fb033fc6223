package mirror

import (
	"context"
	"io/fs"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rfc1738/fetch/internal/testrig/servertest"
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/proto/http"
	"github.com/rfc1738/fetch/uri"
)

// TestServersPipelinedRerun re-runs mirrors of DIR/www from nginx and
// Apache (real servers that keep the order of pipelined requests, RFC
// 9112 section 9.3.2): their index pages give times to the minute, so
// every file is asked for on condition, all of a directory's at once on
// one connection, and every one is answered 304.
func TestServersPipelinedRerun(t *testing.T) {
	for _, tc := range []struct{ name, server, path string }{
		{"nginx", servertest.NGINX, "/"},
		{"apache fancy", servertest.Apache, "/fancy/"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := servertest.Get(t, tc.server)
			src := servertest.Fixture(t, "www")
			dir := t.TempDir()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			h := &http.Driver{Config: http.Config{KeepAlive: true}}
			defer h.CloseIdleConnections()
			f := pipeFetcher{drivers: drivers{"http": h}, h: h, same: &atomic.Int32{}}
			start := uri.MustParse("http://" + s.Addr + tc.path)
			sum, err := Run(ctx, f, start, dir, Options{Jobs: 4})
			if !partialForNames(err, sum) || sum.Skipped != 0 {
				t.Fatalf("first run = %v, failed %d skipped %d", err, sum.Failed, sum.Skipped)
			}
			ignore := func(rel string, d fs.DirEntry) bool {
				return strings.HasPrefix(filepath.Base(rel), ".") || notLocal(rel)
			}
			n := compareTree(t, src, dir, ignore)
			tr := &trace{}
			sum, err = Run(ctx, f, start, dir, Options{Jobs: 4, Request: proto.Request{Trace: tr}})
			if !partialForNames(err, sum) || sum.Unchanged != n || sum.New+sum.Updated != 0 {
				t.Fatalf("second run = %v, unchanged %d (want %d) new %d updated %d", err, sum.Unchanged, n, sum.New, sum.Updated)
			}
			if got, same := tr.replies("304"), f.same.Load(); got != n || int(same) != n {
				t.Errorf("second run: %d replies 304, %d files unchanged by the pipeline; want %d and %d", got, same, n, n)
			}
			compareTree(t, src, dir, ignore)
		})
	}
}
