package mirror

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// TestMirrorDeleteUnlistableRoot: when what the starting directory holds
// is in doubt (here a line of its listing that fits no layout, which may
// be the file), --delete removes nothing at all. belowUnlistable took the
// starting directory's "" as the prefix "/", which no path has: gone.txt
// and sub/old.txt were deleted beside the unparsed line.
func TestMirrorDeleteUnlistableRoot(t *testing.T) {
	f := &fakeFTPDir{
		dirs: map[string][]proto.Entry{
			"/": {{Name: "a", Type: proto.EntryFile, Size: 1, ModTime: time.Unix(1e9, 0)}},
		},
		notes: map[string]*proto.Listing{"/": {Unparsed: []string{"?? gone.txt"}}},
		files: map[string]string{"/a": "A"},
	}
	dir := t.TempDir()
	for _, rel := range []string{"gone.txt", "sub/old.txt"} {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("keep me"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	sum, err := Run(ctx, f, uri.MustParse("ftp://127.0.0.1:2121/"), dir, Options{Delete: true})
	if !errors.Is(err, ErrPartial) || sum.Unparsed != 1 || sum.New != 1 || sum.Deleted != 0 {
		t.Fatalf("Run = %v, %+v; want ErrPartial, 1 unparsed, 1 new, 0 deleted", err, sum)
	}
	for _, rel := range []string{"gone.txt", "sub/old.txt"} {
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(rel))); err != nil {
			t.Errorf("%s deleted beside a listing line not understood: %v", rel, err)
		}
	}
}
