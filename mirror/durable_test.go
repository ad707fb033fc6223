package mirror

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch/fetchtest"
	"github.com/rfc1738/fetch/proto/nntp"
	"github.com/rfc1738/fetch/uri"
)

// syncRecorder stands in for syncWritten: it records the paths it was
// given, and fails while fail is set.
type syncRecorder struct {
	mu     sync.Mutex
	synced map[string]bool
	calls  int
	fail   error
}

func (s *syncRecorder) sync(root *os.Root, rels []string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	if s.fail != nil {
		return s.fail
	}
	for _, rel := range rels {
		s.synced[rel] = true
	}
	return nil
}

func recordSyncs(t *testing.T) *syncRecorder {
	rec := &syncRecorder{synced: map[string]bool{}}
	old := syncWritten
	syncWritten = rec.sync
	t.Cleanup(func() { syncWritten = old })
	return rec
}

// Every article file the manifest of a news mirror records, crossposts
// linked included, was put on stable storage before the manifest was
// saved: a news mirror never looks at a stored article again, so one left
// empty or short by a power loss after the save would stay so for good.
// Before, nothing was synced (the manifest alone was). A run that stores
// nothing syncs nothing.
func TestNewsMirrorSyncsBeforeManifest(t *testing.T) {
	rec := recordSyncs(t)
	srv := &fetchtest.NNTP{Over: "OVER"}
	fillNews(srv)
	srv.Start(t)
	dir := t.TempDir()
	raw := "nntp://" + srv.Addr + "/n.*"
	opts := newsRunOpts(3)
	opts.SaveEvery = time.Millisecond
	mirrorNews(t, raw, dir, opts)
	m := readManifest(t, dir)
	if len(m.Files) != 36 {
		t.Fatalf("manifest: %d files, want 36", len(m.Files))
	}
	for rel := range m.Files {
		if !rec.synced[rel] {
			t.Errorf("%s is in the manifest, never synced", rel)
		}
	}
	calls := rec.calls
	mirrorNews(t, raw, dir, opts)
	if rec.calls != calls {
		t.Errorf("a run that stored nothing synced %d times", rec.calls-calls)
	}
}

// When the articles cannot be synced the manifest is not saved: the run
// fails with that error, and the next run (sync working) finds nothing
// recorded and stores the articles again, unchanged.
func TestNewsMirrorSyncFails(t *testing.T) {
	rec := recordSyncs(t)
	errDisk := errors.New("disk gone")
	rec.fail = errDisk
	srv := &fetchtest.NNTP{Over: "OVER"}
	for i := 1; i <= 3; i++ {
		srv.Post(article(i, "g"), []string{"g"}, []int64{int64(i)})
	}
	srv.Start(t)
	dir := t.TempDir()
	raw := "nntp://" + srv.Addr + "/g"
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := Run(ctx, newsFetcher{&nntp.Driver{}}, uri.MustParse(raw), dir, newsRunOpts(1))
	if !errors.Is(err, errDisk) {
		t.Errorf("Run with sync failing = %v, want %v", err, errDisk)
	}
	if _, err := os.Stat(filepath.Join(dir, manifestName)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("manifest saved though its articles were not synced: %v", err)
	}
	rec.fail = nil
	if sum := mirrorNews(t, raw, dir, newsRunOpts(1)); sum.Failed != 0 || sum.New+sum.Updated != 3 {
		t.Errorf("next run: %+v", sum)
	}
	if m := readManifest(t, dir); m.Groups["g"].High != 3 || len(m.Files) != 3 {
		t.Errorf("manifest after: %+v", m)
	}
}

// written.sync hands syncWritten the paths written since the last sync,
// and keeps them when it fails, for the next save.
func TestWrittenSync(t *testing.T) {
	rec := recordSyncs(t)
	root, err := os.OpenRoot(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	var w written
	w.add("a/1")
	rec.fail = errors.New("x")
	if err := w.sync(root); err == nil {
		t.Fatal("sync hid the failure")
	}
	rec.fail = nil
	w.add("a/2")
	if err := w.sync(root); err != nil || !rec.synced["a/1"] || !rec.synced["a/2"] {
		t.Errorf("sync after a failure = %v, synced %v; want a/1 and a/2", err, rec.synced)
	}
	calls := rec.calls
	if err := w.sync(root); err != nil || rec.calls != calls {
		t.Errorf("sync of nothing = %v, %d calls", err, rec.calls-calls)
	}
}

// syncEach, the other systems' syncWritten, fsyncs each file and its
// directory; a file removed since is skipped.
func TestSyncEach(t *testing.T) {
	dir := t.TempDir()
	for _, rel := range []string{"g/1", "g/2", "h/1"} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(rel)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, rel), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	rels := []string{"g/1", "g/2", "h/1", "g/gone"}
	if err := syncEach(root, slices.Clone(rels)); err != nil {
		t.Errorf("syncEach(%q) = %v", rels, err)
	}
}
