package mirror

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// scaleFake serves over FTP a tree of dirs directories of perDir files
// each, made up as it is asked for, so that it holds nothing per file;
// the file missing, when set, is listed but not found.
type scaleFake struct {
	dirs, perDir int
	missing      string
}

func (f scaleFake) Fetch(ctx context.Context, u *uri.URL, req *proto.Request) (*proto.Response, error) {
	v, err := u.FTP()
	if err != nil {
		return nil, err
	}
	p := strings.Trim(strings.Join(append(v.CWD, v.Name), "/"), "/")
	switch {
	case p == "":
		es := make([]proto.Entry, f.dirs)
		for i := range es {
			es[i] = proto.Entry{Name: fmt.Sprintf("d%04d", i), Type: proto.EntryDir, Size: -1, ModTime: t0}
		}
		return &proto.Response{Kind: proto.KindDirectory, Body: io.NopCloser(strings.NewReader("")), Entries: es, Size: -1}, nil
	case v.Name == "":
		es := make([]proto.Entry, f.perDir)
		for i := range es {
			es[i] = proto.Entry{Name: fmt.Sprintf("f%05d.dat", i), Type: proto.EntryFile, Size: 8, ModTime: t0}
		}
		return &proto.Response{Kind: proto.KindDirectory, Body: io.NopCloser(strings.NewReader("")), Entries: es, Size: -1}, nil
	}
	if p == f.missing {
		return nil, fmt.Errorf("fake: %s: %w", p, proto.ErrNotFound)
	}
	data := strconv.Itoa(len(p) % 10)[:1] + "1234567"
	return &proto.Response{Kind: proto.KindData, Body: io.NopCloser(strings.NewReader(data[req.Offset:])), Size: int64(len(data)), Offset: req.Offset, ModTime: t0}, nil
}

// TestMirrorRerunHeapPerFile mirrors a tree of 20,000 files, then again
// unchanged, and measures the heap the second run holds once every file
// is done (its state at its largest: the manifest, the paths the walk
// found, the report), after a collection, less the heap before it. That
// must stay under heapPerFile bytes a file, so that a million files fit
// in a few hundred megabytes. It is about 130 bytes: the manifest's
// records packed (a path and 56 bytes), the walk's paths (24 bytes each)
// and no report line for an unchanged file (CountOnly); it was about 750
// with the manifest as encoding/json decoded it, two maps of the paths
// found and a report line a file (550 without the report lines).
func TestMirrorRerunHeapPerFile(t *testing.T) {
	const dirs, perDir, heapPerFile = 20, 1000, 400
	f := scaleFake{dirs: dirs, perDir: perDir}
	dir := t.TempDir()
	start := uri.MustParse("ftp://h/")
	s, err := Run(t.Context(), f, start, dir, Options{Jobs: 2, CountOnly: true})
	if err != nil || s.New != dirs*perDir {
		t.Fatalf("first run: %v, %d new", err, s.New)
	}
	var before, held runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	opts := Options{Jobs: 2, CountOnly: true, walked: func() {
		runtime.GC()
		runtime.ReadMemStats(&held)
	}}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	s, err = Run(ctx, f, start, dir, opts)
	if err != nil || s.Unchanged != dirs*perDir {
		t.Fatalf("re-run: %v, %d unchanged", err, s.Unchanged)
	}
	per := (int64(held.HeapAlloc) - int64(before.HeapAlloc)) / (dirs * perDir)
	t.Logf("re-run of %d files: %d bytes of heap a file", dirs*perDir, per)
	if per > heapPerFile {
		t.Errorf("the re-run held %d bytes of heap a file, over %d", per, heapPerFile)
	}
}

// TestMirrorCountOnly: with CountOnly, new, updated and unchanged files
// are counted and not listed in the report; a failed one is listed.
func TestMirrorCountOnly(t *testing.T) {
	f := scaleFake{dirs: 2, perDir: 3, missing: "d0001/f00002.dat"}
	start := uri.MustParse("ftp://h/")
	for _, countOnly := range []bool{false, true} {
		dir := t.TempDir()
		for run := range 2 {
			s, err := Run(t.Context(), f, start, dir, Options{Jobs: 2, CountOnly: countOnly})
			if !errors.Is(err, ErrPartial) || s.New+s.Unchanged != 5 || s.Failed != 1 {
				t.Fatalf("CountOnly %v, run %d: %v, %d new, %d unchanged, %d failed", countOnly, run, err, s.New, s.Unchanged, s.Failed)
			}
			want := 6
			if countOnly {
				want = 1
			}
			if len(s.Entries) != want || countOnly && s.Entries[0].Path != f.missing {
				t.Errorf("CountOnly %v, run %d: entries %+v, want %d", countOnly, run, s.Entries, want)
			}
		}
	}
}
