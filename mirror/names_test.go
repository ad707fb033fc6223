package mirror

import (
	"bufio"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// TestCheckLocal: the names a mirror does not write on any system, so
// that a mirror made on Linux holds only names Windows and every Unix can
// hold as they are (Microsoft's "Naming Files, Paths, and Namespaces":
// reserved device names with any extension, no trailing space or dot,
// none of < > : " | ? *; NAME_MAX of 255 bytes).
func TestCheckLocal(t *testing.T) {
	for _, c := range []struct {
		name string
		want error
	}{
		{"plain.txt", nil},
		{"con", errNameWindows},
		{"CON", errNameWindows},
		{"aux.txt", errNameWindows},
		{"Aux.tar.gz", errNameWindows},
		{"nul", errNameWindows},
		{"PRN.c", errNameWindows},
		{"com1", errNameWindows},
		{"COM9.log", errNameWindows},
		{"com0", errNameWindows},
		{"lpt1.txt", errNameWindows},
		{"LPT¹", errNameWindows},
		{"com².txt", errNameWindows},
		{"aux .txt", errNameWindows}, // Windows drops the spaces before the dot
		{"com10", nil},
		{"console", nil},
		{"auxiliary.txt", nil},
		{"xaux", nil},
		{"com", nil},
		{"lpt", nil},
		{".con", nil}, // the stem before the first dot is empty
		{"name.", errNameEnd},
		{"name ", errNameEnd},
		{"...", errNameEnd},
		{"a:b.txt", errNameChar},
		{"x?y", errNameChar},
		{"a*", errNameChar},
		{"<lt>", errNameChar},
		{`quo"te`, errNameChar},
		{"a|b", errNameChar},
		{strings.Repeat("a", 255), nil},
		{strings.Repeat("a", 256), errNameLong},
		{strings.Repeat("é", 128), errNameLong}, // 256 bytes
		{" leading space", nil},
		{"x\u202egpj.exe", nil}, // written; the reports escape it
	} {
		if got := checkLocal(c.name); got != c.want {
			t.Errorf("checkLocal(%q) = %v, want %v", c.name, got, c.want)
		}
		if got := checkName(c.name); c.want != nil && !errors.Is(got, errNotLocal) {
			t.Errorf("checkName(%q) = %v, want one wrapping errNotLocal", c.name, got)
		}
	}
	longest := strings.Repeat("ab/", maxRelLen)[:maxRelLen] // ends with "a"
	if err := checkRel(longest); err != nil {
		t.Errorf("checkRel of a path of %d bytes = %v, want nil", len(longest), err)
	}
	if err := checkRel(longest + "b"); !errors.Is(err, errPathLong) {
		t.Errorf("checkRel of a path of %d bytes = %v, want errPathLong", len(longest)+1, err)
	}
	for _, rel := range []string{".fetch/x", ".FETCH", ".Fetch/manifest.json",
		".fe\u200ctch/manifest.json", "\ufeff.fetch", ".\u202efetch\u206f", "FETCH~1/partial", "fetch~4"} {
		if err := checkRel(rel); err != errNameReserved {
			t.Errorf("checkRel(%q) = %v, want errNameReserved", rel, err)
		}
	}
}

// TestSameName: the forms in which a file system takes a name for the
// mirror's own: case (NTFS, APFS), the code points HFS+ ignores
// (Apple TN1150, "Unicode Subtleties"), the 8.3 short name of NTFS.
func TestSameName(t *testing.T) {
	for _, c := range []struct {
		name, own string
		same      bool
	}{
		{".fetch", stateDir, true},
		{".FeTcH", stateDir, true},
		{".fe\u200ctch", stateDir, true},
		{".fetch\u200f", stateDir, true},
		{"\u202a.fetch\u202e", stateDir, true},
		{"\ufeff.fetch", stateDir, true},
		{"FETCH~1", stateDir, true},
		{"fetch~2", stateDir, true},
		{"gopher\u200dmap", menuName, true},
		{"GOPHER~1", menuName, true},
		{".fetch2", stateDir, false},
		{".fe\u200btch", stateDir, false}, // U+200B is not ignored
		{"FETCH~5", stateDir, false},
		{"FETCH~10", stateDir, false},
		{"FETCH~", stateDir, false},
		{"fetch", stateDir, false},
		{"GOPHERMAP~1", menuName, false},
		{"gophermaps", menuName, false},
	} {
		if got := sameName(c.name, c.own); got != c.same {
			t.Errorf("sameName(%q, %q) = %v, want %v", c.name, c.own, got, c.same)
		}
	}
}

// TestMirrorNamesNotLocal: entries whose names cannot be local names (too
// long for NAME_MAX, Windows device names, a colon, a trailing dot, the
// state directory in another case) are failed entries, named, exit 8,
// and never fetched: names of 400 and 5,000 bytes were downloaded whole
// before "file name too long", and "aux.txt" and "a:b" were written.
func TestMirrorNamesNotLocal(t *testing.T) {
	f := newFakeFTP()
	f.file("ok.txt", "fine")
	long400, long5000 := strings.Repeat("n", 400), strings.Repeat("m", 5000)
	bad := []string{long400, long5000, "aux.txt", "CON", "a:b", "x.", "LPT1.log"}
	for _, n := range bad {
		f.file(n, "data of a file with a name no local system takes")
	}
	f.file("sub/"+strings.Repeat("d", 255), "x")
	f.extra[""] = []proto.Entry{{Name: ".FETCH", Type: proto.EntryDir}}
	dir := t.TempDir()
	s, err := Run(context.Background(), f, uri.MustParse("ftp://h/"), dir, Options{Jobs: 2})
	if !errors.Is(err, ErrPartial) || s.New != 2 || s.Failed != len(bad)+1 {
		t.Fatalf("Run = %v, new %d failed %d; want ErrPartial, 2 new, %d failed", err, s.New, s.Failed, len(bad)+1)
	}
	failed := map[string]bool{}
	for _, e := range s.Entries {
		if e.Status == StatusFailed {
			failed[e.Path] = true
			if e.Reason == "" {
				t.Errorf("%q failed without a reason", e.Path)
			}
		}
	}
	for _, n := range append(bad, ".FETCH") {
		if !failed[n] && !failed[quoteName(n)] {
			t.Errorf("%.40q... not named in the report as failed", n)
		}
	}
	if got := f.fetched(); !slices.Equal(slices.Sorted(slices.Values(got)), []string{"ok.txt", "sub/" + strings.Repeat("d", 255)}) {
		t.Errorf("fetched %.200q, want ok.txt and the 255-byte name only", got)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 3 { // ok.txt, sub, .fetch
		t.Errorf("the target holds %v, want ok.txt, sub and .fetch", ents)
	}
}

// TestMirrorGopherMenuName: an item named gophermap in a directory whose
// menu the mirror keeps (/sub/gophermap, a document, and a menu of that
// name) would overwrite the kept menu, which later runs trust to tell a
// cut menu. It is a failed entry, named, exit 8, and the kept menu of
// /sub is the menu the server sent.
func TestMirrorGopherMenuName(t *testing.T) {
	var fetchedMap bool
	addr := scriptedGopher(t, func(line string, _ int) string {
		switch line {
		case "":
			return "1sub\t/sub\tHOST\tPORT\r\n0sub's map\t/sub/gophermap\tHOST\tPORT\r\n1map dir\t/GopherMap\tHOST\tPORT\r\n.\r\n"
		case "/sub":
			return "0a\t/sub/a\tHOST\tPORT\r\n.\r\n"
		case "/sub/gophermap", "/GopherMap":
			fetchedMap = true
			return "not the menu\r\n.\r\n"
		case "/sub/a":
			return "a\r\n.\r\n"
		}
		return "3no\t\terror.host\t1\r\n.\r\n"
	})
	dir := t.TempDir()
	s, err := runGopher(t, addr, dir, Options{})
	if !errors.Is(err, ErrPartial) || s.Failed != 2 || s.New != 1 {
		t.Fatalf("Run = %v, failed %d new %d; want ErrPartial, 2 failed, 1 new", err, s.Failed, s.New)
	}
	var failed []string
	for _, e := range s.Entries {
		if e.Status == StatusFailed {
			failed = append(failed, e.Path)
		}
	}
	if slices.Sort(failed); !slices.Equal(failed, []string{quoteName("/GopherMap"), quoteName("/sub/gophermap")}) {
		t.Errorf("failed %q, want the two items named gophermap", failed)
	}
	if fetchedMap {
		t.Error("the item named gophermap was fetched")
	}
	f, err := os.Open(filepath.Join(dir, "sub", menuName))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	first, _ := bufio.NewReader(f).ReadString('\n')
	if !strings.HasPrefix(first, "0a\t/sub/a\t") {
		t.Errorf("sub/gophermap begins %q, want the menu of /sub", first)
	}
}

// TestMirrorNamesNotLocalExcluded: an entry whose name cannot be a local
// name is left out of the report, and of the run's failures, when
// --exclude matches it: the user asked for it not to be mirrored.
func TestMirrorNamesNotLocalExcluded(t *testing.T) {
	f := newFakeFTP()
	f.file("ok.txt", "fine")
	f.file("aux.txt", "x")
	f.file("sub/a:b", "x")
	s, err := Run(context.Background(), f, uri.MustParse("ftp://h/"), t.TempDir(), Options{Exclude: []string{"aux.txt", "a:b"}})
	if err != nil || s.Failed != 0 || s.New != 1 {
		t.Fatalf("Run = %v, failed %d new %d; want no failure, ok.txt new: %+v", err, s.Failed, s.New, s.Entries)
	}
}

// checkName of an ordinary name allocates nothing: a listing of 545,000
// names made an upper-case copy of each (26 MB) to compare with the
// device names, which are at most five bytes.
func TestCheckNameNoAlloc(t *testing.T) {
	name := "file-0000001-abcdefghijklmnopqrstuvwxyzabcdefghij.txt"
	if n := testing.AllocsPerRun(100, func() { _ = checkName(name) }); n != 0 {
		t.Errorf("checkName(%q) made %v allocations, want 0", name, n)
	}
	for _, dev := range []string{"com¹", "COM¹.txt", "lpt9 .tar", "aux"} {
		if !windowsDevice(dev) {
			t.Errorf("windowsDevice(%q) = false, want true", dev)
		}
	}
}
