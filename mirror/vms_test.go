package mirror

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// fakeFTPDir serves FTP directory listings (by decoded directory path,
// "/" or "/SUB/") as entries with notes, and files by decoded path; it
// records the decoded paths of the files fetched.
type fakeFTPDir struct {
	mu      sync.Mutex
	dirs    map[string][]proto.Entry
	notes   map[string]*proto.Listing
	files   map[string]string
	fetched []string
}

func (f *fakeFTPDir) Fetch(ctx context.Context, u *uri.URL, req *proto.Request) (*proto.Response, error) {
	v, err := u.FTP()
	if err != nil {
		return nil, err
	}
	p := "/" + strings.Join(append(slices.Clone(v.CWD), v.Name), "/")
	if v.Name == "" {
		es, ok := f.dirs[p]
		if !ok {
			return nil, proto.ErrNotFound
		}
		return &proto.Response{Kind: proto.KindDirectory, Body: io.NopCloser(strings.NewReader("")), Entries: es, Listing: f.notes[p], Size: 0}, nil
	}
	d, ok := f.files[p]
	if !ok {
		return nil, proto.ErrNotFound
	}
	f.mu.Lock()
	f.fetched = append(f.fetched, p)
	f.mu.Unlock()
	return &proto.Response{Kind: proto.KindData, Body: io.NopCloser(strings.NewReader(d)), Size: -1}, nil
}

// vmsFile is a VMS file entry as the ftp driver's parser gives it: the
// name as listed, the version in Extra, the size unknown (blocks).
func vmsFile(name, version string, t time.Time) proto.Entry {
	return proto.Entry{Name: name + ";" + version, Type: proto.EntryFile, Size: -1, ModTime: t,
		Extra: map[string]string{"vms_version": version, "blocks": "1"}}
}

func vmsServer() *fakeFTPDir {
	t1 := time.Date(1999, 3, 12, 12, 0, 0, 0, time.UTC)
	t2 := t1.Add(time.Hour)
	return &fakeFTPDir{
		dirs: map[string][]proto.Entry{
			"/": {vmsFile("README.TXT", "2", t2), vmsFile("README.TXT", "1", t1), vmsFile("A.B", "x", t1),
				{Name: "SUB", Type: proto.EntryDir, Size: -1, Extra: map[string]string{"vms_version": "1"}}},
			"/SUB/": {vmsFile("NOTES.TXT", "1", t1), vmsFile("NOTES.TXT", "10", t2), vmsFile("NOTES.TXT", "9", t2)},
		},
		files: map[string]string{
			"/README.TXT;1": "one", "/README.TXT;2": "two", "/A.B;x": "odd",
			"/SUB/NOTES.TXT;1": "n1", "/SUB/NOTES.TXT;9": "n9", "/SUB/NOTES.TXT;10": "n10",
		},
	}
}

// A VMS tree: the highest version of each file (10 above 9: numbers, not
// text) is kept under its name without ";n", and retrieved by its full
// name; a second run fetches nothing. A version that is no number is a
// name of its own.
func TestMirrorVMSVersions(t *testing.T) {
	f := vmsServer()
	dir := t.TempDir()
	start := uri.MustParse("ftp://127.0.0.1:2121/")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	sum, err := Run(ctx, f, start, dir, Options{Jobs: 2})
	if err != nil || sum.New != 3 {
		t.Fatalf("Run = %v, %+v", err, sum)
	}
	for rel, want := range map[string]string{"README.TXT": "two", "SUB/NOTES.TXT": "n10", "A.B": "odd"} {
		if b, err := os.ReadFile(filepath.Join(dir, rel)); err != nil || string(b) != want {
			t.Errorf("%s = %q, %v; want %q", rel, b, err, want)
		}
	}
	slices.Sort(f.fetched)
	if want := []string{"/A.B;x", "/README.TXT;2", "/SUB/NOTES.TXT;10"}; !slices.Equal(f.fetched, want) {
		t.Errorf("fetched %q, want %q", f.fetched, want)
	}
	f.fetched = nil
	sum, err = Run(ctx, f, start, dir, Options{Jobs: 2})
	if err != nil || sum.Unchanged != 3 || len(f.fetched) != 0 {
		t.Errorf("second run = %v, %d unchanged, fetched %q", err, sum.Unchanged, f.fetched)
	}
}

// KeepVersions: every version, under its listed name.
func TestMirrorVMSKeepVersions(t *testing.T) {
	f := vmsServer()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	sum, err := Run(ctx, f, uri.MustParse("ftp://127.0.0.1:2121/"), dir, Options{Jobs: 2, KeepVersions: true})
	if err != nil || sum.New != 6 {
		t.Fatalf("Run = %v, %+v", err, sum)
	}
	for p, want := range f.files {
		rel := strings.TrimPrefix(p, "/")
		if b, err := os.ReadFile(filepath.Join(dir, rel)); err != nil || string(b) != want {
			t.Errorf("%s = %q, %v; want %q", rel, b, err, want)
		}
	}
}

// Lines of a listing that fit no layout: counted, reported with the
// directory and the line, the run is partial, and --delete removes
// nothing below that directory (the line may be the file).
func TestMirrorUnparsedKeepsLocalFiles(t *testing.T) {
	f := &fakeFTPDir{
		dirs: map[string][]proto.Entry{
			"/":    {{Name: "a", Type: proto.EntryFile, Size: 1, ModTime: time.Unix(1e9, 0)}, {Name: "d", Type: proto.EntryDir, Size: -1}},
			"/d/":  {},
			"/ok/": {},
		},
		notes: map[string]*proto.Listing{"/d/": {Unparsed: []string{"?? old.txt", "?? x"}}},
		files: map[string]string{"/a": "A"},
	}
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "d"), 0o755)
	os.WriteFile(filepath.Join(dir, "d", "old.txt"), []byte("keep me"), 0o644)
	os.WriteFile(filepath.Join(dir, "gone.txt"), []byte("delete me"), 0o644)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	sum, err := Run(ctx, f, uri.MustParse("ftp://127.0.0.1:2121/"), dir, Options{Jobs: 2, Delete: true})
	if !errors.Is(err, ErrPartial) || sum.Unparsed != 2 || sum.New != 1 || sum.Failed != 0 {
		t.Fatalf("Run = %v, %+v; want ErrPartial, 2 unparsed, 1 new", err, sum)
	}
	if len(sum.Warnings) != 2 || sum.Warnings[0].Path != "d" || sum.Warnings[0].Line != "?? old.txt" ||
		sum.Warnings[0].URL != "ftp://127.0.0.1:2121/d/" || sum.Warnings[0].Kind != WarnUnparsed {
		t.Errorf("warnings %+v", sum.Warnings)
	}
	if _, err := os.Stat(filepath.Join(dir, "d", "old.txt")); err != nil {
		t.Errorf("d/old.txt was deleted below a directory with unparsed lines: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "gone.txt")); !os.IsNotExist(err) {
		t.Errorf("gone.txt, in a directory listed whole, was not deleted: %v", err)
	}
}

// One directory's unparsed lines are reported one by one up to
// maxLineWarnings, and all counted.
func TestMirrorUnparsedBounded(t *testing.T) {
	lines := make([]string, maxLineWarnings+5)
	for i := range lines {
		lines[i] = "junk"
	}
	f := &fakeFTPDir{
		dirs:  map[string][]proto.Entry{"/": {}},
		notes: map[string]*proto.Listing{"/": {Unparsed: lines, Fallback: true}},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	sum, err := Run(ctx, f, uri.MustParse("ftp://127.0.0.1:2121/"), t.TempDir(), Options{})
	if !errors.Is(err, ErrPartial) || sum.Unparsed != len(lines) || sum.NLSTFallback != 1 {
		t.Fatalf("Run = %v, unparsed %d, fallback %d", err, sum.Unparsed, sum.NLSTFallback)
	}
	if n := len(sum.Warnings); n != maxLineWarnings+2 {
		t.Errorf("%d warnings, want %d lines, one 'more' and the fallback", n, maxLineWarnings)
	}
}
