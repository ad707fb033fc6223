package mirror

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/rfc1738/fetch/uri"
)

// syncFTP is a fakeFTP that is also a Syncer: it counts the Sync calls,
// and fails them with err when set. When a Sync runs, every file whose
// fetch ended must be one the records hold: it checks the manifest
// written last against what was fetched before that Sync.
type syncFTP struct {
	*fakeFTP
	mu    sync.Mutex
	calls int
	err   error
	// synced are the paths fetched before the last successful Sync.
	// (fakeFTP.fetched hands each path out once.)
	synced map[string]bool
}

func (s *syncFTP) Sync() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	if s.err != nil {
		return s.err
	}
	if s.synced == nil {
		s.synced = map[string]bool{}
	}
	for _, p := range s.fetched() { // fetched since the last call
		s.synced[p] = true
	}
	return nil
}

// The manifest is written only after a Sync, and lists only files
// fetched before it: a run killed after a save never has a manifest that
// claims a file whose records (a WARC capture) were still in memory.
func TestSyncBeforeManifest(t *testing.T) {
	f := &syncFTP{fakeFTP: newFakeFTP()}
	for _, n := range []string{"a", "b", "c", "d"} {
		f.file("pub/"+n+".txt", n+"\n")
	}
	dir := t.TempDir()
	mustRun(t, f, "ftp://h/", dir, Options{SaveEvery: time.Millisecond})
	if f.calls == 0 {
		t.Fatal("the manifest was saved without a Sync")
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	m, err := loadManifest(root, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Files) != 4 {
		t.Fatalf("manifest lists %d files, want 4", len(m.Files))
	}
	for p := range m.Files {
		if !f.synced[p] {
			t.Errorf("manifest lists %s, fetched after the last Sync", p)
		}
	}
}

// When Sync fails the manifest is not written, and the run fails: it
// cannot say the archive holds what it fetched.
func TestSyncFailureFailsRun(t *testing.T) {
	f := &syncFTP{fakeFTP: newFakeFTP(), err: errors.New("disk full")}
	f.file("pub/a.txt", "a\n")
	dir := t.TempDir()
	_, err := Run(context.Background(), f, uri.MustParse("ftp://h/"), dir, Options{})
	if err == nil || !errors.Is(err, f.err) {
		t.Fatalf("Run = %v, want the Sync error", err)
	}
	if _, err := os.Stat(filepath.Join(dir, manifestName)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a manifest was written after a failed Sync: %v", err)
	}
}

// A file on disk with the listed size and time that the manifest does not
// list (a killed run placed it after its last save) counts unchanged for a
// plain run, and is fetched again by an archiving one: its records may
// have been lost with the process.
func TestArchivingRunRefetchesUnlisted(t *testing.T) {
	for _, archiving := range []bool{false, true} {
		ff := newFakeFTP()
		ff.file("pub/a.txt", "alpha\n")
		var f Fetcher = ff
		if archiving {
			f = &syncFTP{fakeFTP: ff}
		}
		dir := t.TempDir()
		local := filepath.Join(dir, "pub", "a.txt")
		os.MkdirAll(filepath.Dir(local), 0o755)
		os.WriteFile(local, []byte("alpha\n"), 0o644)
		os.Chtimes(local, t0, t0)
		s := mustRun(t, f, "ftp://h/", dir, Options{})
		fetched := len(ff.fetched()) > 0
		if archiving {
			fetched = fetched || len(f.(*syncFTP).synced) > 0
		}
		if fetched != archiving {
			t.Errorf("archiving %v: fetched %v (new %d, unchanged %d)", archiving, fetched, s.New, s.Unchanged)
		}
	}
}
