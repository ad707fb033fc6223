package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch"
)

// An unnamed output file has no name until it is complete: then it is
// linked at its final name, or, when that name exists, renamed over it.
// A file that is aborted leaves nothing behind.
func TestUnnamedSink(t *testing.T) {
	dir := t.TempDir()
	final := filepath.Join(dir, "out.txt")
	mt := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	resp := &fetch.Response{}
	resp.ModTime = mt
	for _, tt := range []struct {
		name  string
		abort bool
		want  string // the content of final after the sink ends
	}{
		{"new", false, "first"},
		{"over an existing file", false, "second"},
		{"aborted", true, "second"},
	} {
		s, ok := openUnnamed(final)
		if !ok {
			t.Fatalf("openUnnamed(%s) = false: no O_TMPFILE or no /proc (ext4 and tmpfs have O_TMPFILE)", final)
		}
		if des, _ := os.ReadDir(dir); len(des) > 1 {
			t.Fatalf("%s: an unnamed file is listed in the directory", tt.name)
		}
		if _, err := s.Write([]byte(tt.want)); err != nil {
			t.Fatal(err)
		}
		if tt.abort {
			s.Write([]byte("partial"))
			s.abort()
		} else if err := s.commit(resp, true); err != nil {
			t.Fatalf("%s: commit: %v", tt.name, err)
		}
		b, err := os.ReadFile(final)
		fi, _ := os.Stat(final)
		if err != nil || string(b) != tt.want || fi.Mode().Perm() != 0o644 || !fi.ModTime().Equal(mt) {
			t.Errorf("%s: %s = %q (%v), mode %v, mtime %v; want %q, 0644, %v", tt.name, final, b, err, fi.Mode(), fi.ModTime(), tt.want, mt)
		}
		assertOnly(t, dir, "out.txt")
	}
}
