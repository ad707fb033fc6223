package mirror

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/rfc1738/fetch/uri"
)

// fullDisk is a file system with room for free bytes of file data: a
// write past it fails as write(2) does on a full disk, with ENOSPC.
type fullDisk struct {
	mu   sync.Mutex
	free int64
}

func (d *fullDisk) wrap(rel string, w io.Writer) io.Writer {
	if rel == reserveName {
		return w // the reserve was made before the disk filled up
	}
	return writerFunc(func(p []byte) (int, error) {
		d.mu.Lock()
		n := int(min(int64(len(p)), d.free))
		d.free -= int64(n)
		d.mu.Unlock()
		w.Write(p[:n])
		if n < len(p) {
			return n, &os.PathError{Op: "write", Path: rel, Err: syscall.ENOSPC}
		}
		return n, nil
	})
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// TestMirrorDiskFull: a disk that fills up ended the mirror with exit 1,
// no report and no manifest, the failed files unnamed; and each transfer
// after the first that failed was tried, and tried again. Now the file
// that hit the full disk is a failed entry, tried once; the files left
// are failed entries too, not fetched; the run is partial (exit 8) with a
// notice; and the manifest records what was done.
func TestMirrorDiskFull(t *testing.T) {
	for _, c := range []struct {
		name       string
		size, free int // of each of 6 files; of the disk
		// inFlight: the files a worker may fetch after the one that
		// hit the full disk, before it learns of it: small files are
		// read whole and queued for the placer (placeQueue of them),
		// which writes them while the worker goes on.
		inFlight int
	}{
		{"large", 100 << 10, 250 << 10, 0},
		{"small", 10 << 10, 35 << 10, 2},
	} {
		t.Run(c.name, func(t *testing.T) { diskFull6(t, c.size, c.free, c.inFlight) })
	}
}

func diskFull6(t *testing.T, size, free, inFlight int) {
	f := newFakeFTP()
	for i := range 6 {
		f.file(fmt.Sprintf("f%d", i), strings.Repeat(string(rune('a'+i)), size))
	}
	disk := &fullDisk{free: int64(free)}
	dir := t.TempDir()
	s, err := Run(context.Background(), f, uri.MustParse("ftp://h/"), dir, Options{Jobs: 1, writeThrough: disk.wrap})
	fits := free / size
	if !errors.Is(err, ErrPartial) || s.New != fits || s.Failed != 6-fits {
		t.Fatalf("Run = %v, new %d failed %d; want ErrPartial, %d new, %d failed", err, s.New, s.Failed, fits, 6-fits)
	}
	for _, e := range s.Entries {
		if e.Status == StatusFailed && e.Reason == "" {
			t.Errorf("failed entry %s without a reason", e.Path)
		}
	}
	got := f.fetched()
	once := map[string]bool{}
	for _, p := range got {
		if once[p] {
			t.Errorf("%s fetched twice", p)
		}
		once[p] = true
	}
	if len(got) < fits+1 || len(got) > fits+1+inFlight {
		t.Errorf("fetched %q, want the %d that fit, the one that hit the full disk, and at most %d more", got, fits, inFlight)
	}
	if len(s.Notices) != 1 || !strings.Contains(s.Notices[0], "disk is full") {
		t.Errorf("notices %q, want one that says the disk is full", s.Notices)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	m, err := loadManifest(root, false)
	if err != nil || m.len() != fits {
		t.Fatalf("manifest: %v, %d records; want %d", err, m.len(), fits)
	}
	for _, e := range s.Entries {
		_, recorded := m.get(e.Path)
		_, serr := os.Stat(filepath.Join(dir, e.Path))
		if recorded != (e.Status == StatusNew) || (serr == nil) != recorded {
			t.Errorf("%s: %s, recorded %v, in place: %v", e.Path, e.Status, recorded, serr)
		}
	}
}
