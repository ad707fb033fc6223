package mirror

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// countFetcher counts its calls and fetches nothing.
type countFetcher struct{ n atomic.Int32 }

func (c *countFetcher) Fetch(context.Context, *uri.URL, *proto.Request) (*proto.Response, error) {
	c.n.Add(1)
	return nil, errors.New("countFetcher fetches nothing")
}

// Shards share no directory: a run of another shard into a directory that
// holds one is refused before anything is fetched or written.
func TestShardDirRefused(t *testing.T) {
	dir := t.TempDir()
	start := uri.MustParse("ftp://127.0.0.1:2121/pub/")
	os.MkdirAll(filepath.Join(dir, stateDir), 0o755)
	os.WriteFile(filepath.Join(dir, shardMark), []byte("1/4\n"), 0o644)
	for _, o := range []Options{{Shard: 2, Shards: 4}, {Shard: 1, Shards: 5}, {Shard: 2, Shards: 4, DryRun: true}} {
		f := &countFetcher{}
		_, err := Run(context.Background(), f, start, dir, o)
		if !errors.Is(err, ErrShard) || f.n.Load() != 0 {
			t.Errorf("shard %d/%d into shard 1/4's directory: %v, %d fetches", o.Shard, o.Shards, err, f.n.Load())
		}
	}
	if _, err := os.Stat(filepath.Join(dir, manifestName)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a refused run wrote a manifest: %v", err)
	}
	// The same shard again goes on (and fails on the fetch here).
	f := &countFetcher{}
	if _, err := Run(context.Background(), f, start, dir, Options{Shard: 1, Shards: 4}); errors.Is(err, ErrShard) || f.n.Load() == 0 {
		t.Errorf("shard 1/4 into its own directory: %v, %d fetches", err, f.n.Load())
	}
	// A run of the whole mirror makes the directory whole.
	Run(context.Background(), &countFetcher{}, start, dir, Options{})
	if _, err := os.Stat(filepath.Join(dir, shardMark)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a whole run left the shard mark: %v", err)
	}
	// A first sharded run records its shard.
	fresh := t.TempDir()
	Run(context.Background(), &countFetcher{}, start, fresh, Options{Shard: 3, Shards: 4})
	if b, _ := os.ReadFile(filepath.Join(fresh, shardMark)); strings.TrimSpace(string(b)) != "3/4" {
		t.Errorf("shard mark %q, want 3/4", b)
	}
}

// Shards started into one directory at once: exactly one claims it.
func TestShardDirClaimRace(t *testing.T) {
	dir := t.TempDir()
	const n = 8
	errs := make(chan error, n)
	for k := range n {
		go func() {
			root, err := os.OpenRoot(dir)
			if err != nil {
				errs <- err
				return
			}
			defer root.Close()
			errs <- claimShardDir(root, Options{Shard: k, Shards: n})
		}()
	}
	ok := 0
	for range n {
		switch err := <-errs; {
		case err == nil:
			ok++
		case !errors.Is(err, ErrShard):
			t.Errorf("unexpected error %v", err)
		}
	}
	if ok != 1 {
		t.Errorf("%d shards claimed one directory, want 1", ok)
	}
}

// FuzzMergeManifests merges two fuzzed manifest files: a merge that fails
// writes nothing; one that succeeds writes a manifest that reads back
// with exactly the union of the inputs' files, each with an input's
// record, and it succeeds whenever both inputs are file-only manifests of
// one source that agree on their common paths.
func FuzzMergeManifests(f *testing.F) {
	f.Add([]byte(`{"version": 1, "source": "s", "files": {"a": {"size": 1, "sha256": "x", "url": "u"}}}`),
		[]byte(`{"version": 1, "source": "s", "files": {"b/c": {"size": 2, "remote_time": "2024-01-02T03:04:05Z", "sha256": "y", "url": "u"}}}`))
	f.Add([]byte(`{"version": 1, "source": "s", "files": {"a": {"size": 1, "sha256": "x", "url": "u"}}}`),
		[]byte(`{"version": 1, "source": "s", "files": {"a": {"size": 1, "sha256": "z", "url": "u"}}}`))
	f.Add([]byte(`{"version": 1, "source": "s", "files": {}, "groups": {"g": {"high": 3, "low": 1}}}`), []byte(`not json`))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		dir := t.TempDir()
		pa, pb, out := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json"), filepath.Join(dir, "out", "m.json")
		os.WriteFile(pa, a, 0o644)
		os.WriteFile(pb, b, 0o644)
		err := MergeManifests(out, pa, pb)
		var ma, mb manifest
		erra, errb := json.Unmarshal(a, &ma), json.Unmarshal(b, &mb)
		if err != nil {
			if _, serr := os.Stat(out); serr == nil {
				t.Fatalf("failed (%v) but wrote %s", err, out)
			}
			var me *MergeError
			if erra == nil && errb == nil && ma.Source == mb.Source && len(ma.Groups)+len(ma.MessageIDs)+len(mb.Groups)+len(mb.MessageIDs) == 0 &&
				!errors.As(err, &me) {
				// Only a record encode() cannot write may stop it then.
				if _, e1 := ma.encode(); e1 == nil {
					if _, e2 := mb.encode(); e2 == nil {
						t.Fatalf("merge of two file-only manifests of one source: %v", err)
					}
				}
			}
			return
		}
		if erra != nil || errb != nil {
			t.Fatalf("merged despite %v, %v", erra, errb)
		}
		m, err := readManifestFile(out)
		if err != nil {
			t.Fatalf("the merge does not read back: %v", err)
		}
		for rel, r := range m.Files {
			ra, ina := ma.Files[rel]
			rb, inb := mb.Files[rel]
			if !(ina && sameRecord(r, ra)) && !(inb && sameRecord(r, rb)) {
				t.Fatalf("%q: %+v is in neither input", rel, r)
			}
		}
		for _, in := range []*manifest{&ma, &mb} {
			for rel := range in.Files {
				if _, ok := m.Files[rel]; !ok {
					t.Fatalf("%q is lost", rel)
				}
			}
		}
	})
}
