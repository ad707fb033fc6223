package mirror

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// endlessHole is a gopher server that generates menus without end: the
// menu of selector s, at depth n, links to the menu s+"/g", deeper, and
// to two files, s+"/n.a" and s+"/n.b" (names that differ from level to
// level, so that no menu is taken for a link back up: likeSum). It
// counts the menus it served.
func endlessHole(t *testing.T) (addr string, menus *counter) {
	menus = &counter{}
	addr = scriptedGopher(t, func(line string, _ int) string {
		if !strings.HasSuffix(line, "/g") && line != "" {
			return "file\r\n.\r\n"
		}
		menus.add("menu")
		n := strings.Count(line, "/")
		return fmt.Sprintf("1deeper\t%[1]s/g\tHOST\tPORT\r\n0a\t%[1]s/%[2]d.a\tHOST\tPORT\r\n0b\t%[1]s/%[2]d.b\tHOST\tPORT\r\n.\r\n", line, n)
	})
	return addr, menus
}

// TestMirrorEndlessHoleStopsAtDefaultDepth: a gopher server that
// generates a deeper menu in each menu was walked without end. The walk
// lists the menus at depths 0 to DefaultMaxDepth-1, fetches their files,
// reports the menu at DefaultMaxDepth as not listed, and ends with
// ErrBound (and ErrPartial: exit 8), the bound named in the summary.
func TestMirrorEndlessHoleStopsAtDefaultDepth(t *testing.T) {
	addr, menus := endlessHole(t)
	dir := t.TempDir()
	s, err := runGopher(t, addr, dir, Options{Jobs: 4})
	if !errors.Is(err, ErrBound) || !errors.Is(err, ErrPartial) {
		t.Fatalf("Run = %v, want ErrBound and ErrPartial; %+v", err, s.Entries)
	}
	want := fmt.Sprintf("max-depth %d", DefaultMaxDepth)
	if s.Bound != want {
		t.Errorf("Bound = %q, want %q", s.Bound, want)
	}
	if n := menus.get("menu"); n != DefaultMaxDepth {
		t.Errorf("%d menus listed, want %d", n, DefaultMaxDepth)
	}
	deepest := strings.TrimSuffix(strings.Repeat("g/", DefaultMaxDepth), "/")
	var notListed []EntryReport
	for _, e := range s.Entries {
		if e.Status == StatusSkipped {
			notListed = append(notListed, e)
		}
	}
	if len(notListed) != 1 || notListed[0].Path != deepest || !strings.Contains(notListed[0].Reason, want) {
		t.Errorf("skipped = %+v, want the directory at depth %d, naming %q", notListed, DefaultMaxDepth, want)
	}
	// Files down to depth DefaultMaxDepth: those of the last menu listed.
	last := filepath.Join(dir, filepath.FromSlash(strings.TrimSuffix(deepest, "/g")), fmt.Sprintf("%d.a", DefaultMaxDepth-1))
	if _, err := os.Stat(last); err != nil {
		t.Errorf("the last listed menu's file: %v", err)
	}
	if s.New != 2*DefaultMaxDepth {
		t.Errorf("new = %d, want %d (two files per menu listed)", s.New, 2*DefaultMaxDepth)
	}
}

// TestMirrorMaxDepth: MaxDepth 2 lists the start and its directory g,
// not g/g; with Delete, a file of g that the server no longer has goes,
// and nothing below the directory not listed does.
func TestMirrorMaxDepth(t *testing.T) {
	addr, menus := endlessHole(t)
	dir := t.TempDir()
	putFiles(t, dir, map[string]string{"g/stale": "x", "g/g/kept": "x", "g/g/g/kept": "x"})
	s, err := runGopher(t, addr, dir, Options{MaxDepth: 2, Delete: true})
	if !errors.Is(err, ErrBound) || s.Bound != "max-depth 2" {
		t.Fatalf("Run = %v, bound %q; want ErrBound, max-depth 2", err, s.Bound)
	}
	if n := menus.get("menu"); n != 2 {
		t.Errorf("%d menus listed, want 2", n)
	}
	checkFiles(t, dir, false, "g/stale")
	checkFiles(t, dir, true, "0.a", "g/1.b", "g/g/kept", "g/g/g/kept")
}

// boundTree is a fake FTP server's directory pub of ten 100-byte files.
func boundTree() *fakeFTP {
	f := newFakeFTP()
	for i := range 10 {
		f.file(fmt.Sprintf("pub/f%d", i), strings.Repeat(fmt.Sprint(i), 100))
	}
	f.file("pub/sub/s", "s")
	return f
}

// TestMirrorMaxFiles: MaxFiles 3 starts three transfers and no more; the
// files left are reported as not fetched, the bound named, nothing
// deleted (the walk did not see the whole tree); a second run fetches
// the next three (files unchanged do not count).
func TestMirrorMaxFiles(t *testing.T) {
	f := boundTree()
	dir := t.TempDir()
	putFiles(t, dir, map[string]string{"old": "x", "sub/old": "x"})
	opts := Options{Jobs: 1, MaxFiles: 3, Delete: true}
	s, err := Run(t.Context(), f, uri.MustParse("ftp://h/pub/"), dir, opts)
	if !errors.Is(err, ErrBound) || !errors.Is(err, ErrPartial) || s.Bound != "max-files 3" {
		t.Fatalf("Run = %v, bound %q; want ErrBound, max-files 3", err, s.Bound)
	}
	if got := f.fetched(); len(got) != 3 || s.New != 3 {
		t.Errorf("fetched %v (new %d), want 3 files", got, s.New)
	}
	if s.Deleted != 0 {
		t.Errorf("deleted %d, want 0", s.Deleted)
	}
	checkFiles(t, dir, true, "old", "sub/old")
	for _, e := range s.Entries {
		if e.Status == StatusSkipped && !strings.Contains(e.Reason, "max-files 3") {
			t.Errorf("skipped %+v, without the bound", e)
		}
	}
	if _, err := Run(t.Context(), f, uri.MustParse("ftp://h/pub/"), dir, opts); !errors.Is(err, ErrBound) {
		t.Fatalf("second Run = %v, want ErrBound", err)
	}
	if got := f.fetched(); len(got) != 3 {
		t.Errorf("second run fetched %v, want 3 more", got)
	}
}

// TestMirrorQuota: no transfer starts once Quota bytes arrived; the one
// that crosses it is finished (wget's -Q).
func TestMirrorQuota(t *testing.T) {
	f := boundTree()
	dir := t.TempDir()
	s, err := Run(t.Context(), f, uri.MustParse("ftp://h/pub/"), dir, Options{Jobs: 1, Quota: 250})
	if !errors.Is(err, ErrBound) || s.Bound != "quota 250 bytes" {
		t.Fatalf("Run = %v, bound %q; want ErrBound, quota 250 bytes", err, s.Bound)
	}
	if got := f.fetched(); len(got) != 3 || s.Bytes != 300 {
		t.Errorf("fetched %v (%d bytes), want 3 files, 300 bytes", got, s.Bytes)
	}
	// Without a bound, the tree is whole and the run is not partial.
	if _, err := Run(t.Context(), f, uri.MustParse("ftp://h/pub/"), dir, Options{Jobs: 1}); err != nil {
		t.Fatalf("Run without a bound = %v", err)
	}
}

// TestMirrorListingCap: Options.ListingCap bounds every listing as it
// arrives (here gopher menus, read by the driver and by the mirror): a
// menu below the start over it is a failed directory, named, with nothing
// below it deleted; the start over it ends the run with an error wrapping
// proto.ErrProtocol (exit 9).
func TestMirrorListingCap(t *testing.T) {
	big := strings.Repeat("iinformation, no entry\t\terror.host\t1\r\n", 100) // 3.7 kB
	addr := scriptedGopher(t, func(line string, _ int) string {
		switch line {
		case "":
			return "1big\t/big\tHOST\tPORT\r\n0a\t/a\tHOST\tPORT\r\n.\r\n"
		case "/big":
			return big + "0b\t/big/b\tHOST\tPORT\r\n.\r\n"
		}
		return "text\r\n.\r\n"
	})
	dir := t.TempDir()
	putFiles(t, dir, map[string]string{"big/kept": "x"})
	s, err := runGopher(t, addr, dir, Options{ListingCap: 2000, Delete: true})
	if !errors.Is(err, ErrPartial) || s.Failed != 1 {
		t.Fatalf("Run = %v, failed %d; want ErrPartial, 1 failed", err, s.Failed)
	}
	for _, e := range s.Entries {
		if e.Status == StatusFailed && (e.Path != "big" || !strings.Contains(e.Reason, "2000 bytes")) {
			t.Errorf("failed entry %+v, want big, over 2000 bytes", e)
		}
	}
	checkFiles(t, dir, true, "a", "big/kept")
	// The default cap holds the menu.
	if _, err := runGopher(t, addr, t.TempDir(), Options{}); err != nil {
		t.Fatalf("Run with the default cap = %v", err)
	}
	_, err = runGopher(t, addr, t.TempDir(), Options{ListingCap: 40})
	if !errors.Is(err, proto.ErrProtocol) {
		t.Fatalf("Run with the start over the cap = %v, want proto.ErrProtocol", err)
	}
}
