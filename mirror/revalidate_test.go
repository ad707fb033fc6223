package mirror

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rfc1738/fetch/proto"
	fetchhttp "github.com/rfc1738/fetch/proto/http"
	"github.com/rfc1738/fetch/uri"
)

// pipeFetcher fetches with drivers and revalidates with the HTTP
// driver's pipelined conditional requests, as fetch.Client's mirror
// fetcher does; same counts the files found unchanged that way.
type pipeFetcher struct {
	drivers
	h    *fetchhttp.Driver
	same *atomic.Int32
}

func (p pipeFetcher) Revalidate(ctx context.Context, dir *uri.URL, req *proto.Request, files []*uri.URL, since []time.Time) ([]bool, error) {
	checks := make([]fetchhttp.Check, len(files))
	for i, u := range files {
		checks[i] = fetchhttp.Check{URL: u, Since: since[i]}
	}
	same, err := p.h.Revalidate(ctx, req, checks)
	for _, s := range same {
		if s {
			p.same.Add(1)
		}
	}
	return same, err
}

// pipeTree serves three files under an index page to the minute, and
// mirrors them once into a new directory.
func pipeTree(t *testing.T, s *indexServer) (f pipeFetcher, start *uri.URL, dir string) {
	t.Helper()
	at := time.Date(2026, 11, 29, 6, 50, 52, 0, time.UTC)
	s.layout, s.hits = "02-Jan-2006 15:04", map[string]int{}
	s.files = map[string][]byte{"a.txt": []byte("alpha\n"), "b.txt": []byte("beta\n"), "c.txt": []byte("gamma\n")}
	s.mtime = map[string]time.Time{"a.txt": at, "b.txt": at, "c.txt": at}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	h := &fetchhttp.Driver{Config: fetchhttp.Config{KeepAlive: true}}
	t.Cleanup(h.CloseIdleConnections)
	f = pipeFetcher{drivers: drivers{"http": h}, h: h, same: &atomic.Int32{}}
	start = uri.MustParse(srv.URL + "/")
	dir = t.TempDir()
	if sum, err := Run(t.Context(), f, start, dir, pipeOptions()); err != nil || sum.New != 3 {
		t.Fatalf("first run: %v, %+v", err, sum)
	}
	s.fileHits()
	return f, start, dir
}

func pipeOptions() Options {
	return Options{Jobs: 2, Request: proto.Request{IdleTimeout: 10 * time.Second}}
}

// A re-run of an unchanged tree whose index page cannot tell a change
// asks for its files with pipelined conditional requests, each file
// once; a changed one is fetched on its own after its 200.
func TestMirrorHTTPPipelinedRerun(t *testing.T) {
	s := &indexServer{}
	f, start, dir := pipeTree(t, s)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if sum, err := Run(ctx, f, start, dir, pipeOptions()); err != nil || sum.Unchanged != 3 {
		t.Fatalf("re-run: %v, %+v", err, sum)
	}
	if n, same := s.fileHits(), f.same.Load(); n != 3 || same != 3 {
		t.Errorf("re-run: %d file requests, %d unchanged by the pipeline; want 3 and 3", n, same)
	}

	s.mu.Lock()
	s.files["b.txt"], s.mtime["b.txt"] = []byte("beta, changed\n"), s.mtime["b.txt"].Add(time.Hour)
	s.mu.Unlock()
	if sum, err := Run(ctx, f, start, dir, pipeOptions()); err != nil || sum.Unchanged != 2 || sum.Updated != 1 {
		t.Fatalf("after a change: %v, %+v", err, sum)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "b.txt")); string(got) != "beta, changed\n" {
		t.Errorf("b.txt = %q", got)
	}
}

// A server that closes the connection after each response does not
// pipeline: the files it left unanswered are asked for one at a time,
// and every file comes out right.
func TestMirrorHTTPPipelineFallback(t *testing.T) {
	s := &indexServer{}
	f, start, dir := pipeTree(t, s)
	s.mu.Lock()
	s.closeEach = true
	s.files["c.txt"], s.mtime["c.txt"] = []byte("gamma, changed\n"), s.mtime["c.txt"].Add(time.Hour)
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if sum, err := Run(ctx, f, start, dir, pipeOptions()); err != nil || sum.Unchanged != 2 || sum.Updated != 1 || sum.Failed != 0 {
		t.Fatalf("re-run: %v, %+v", err, sum)
	}
	for name, want := range map[string]string{"a.txt": "alpha\n", "b.txt": "beta\n", "c.txt": "gamma, changed\n"} {
		if got, _ := os.ReadFile(filepath.Join(dir, name)); string(got) != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	if same := f.same.Load(); same != 1 {
		t.Errorf("%d files unchanged by the pipeline of a server that closes after one response, want 1 (its first answer)", same)
	}
}
