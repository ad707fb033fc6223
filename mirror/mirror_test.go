package mirror

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
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

// fakeNode is one entry of the fake FTP tree.
type fakeNode struct {
	data   []byte
	mtime  time.Time
	link   string
	isDir  bool
	cutAt  int   // when > 0, the body fails after this many bytes of the file
	cuts   int   // how many fetches are cut at cutAt (0 means 1)
	refuse error // when set, every fetch (or listing) fails with it
	noSize bool  // listing gives no size (as a gopher or http server would)
	noTime bool  // listing gives no time either (as an http server would)
	skew   int64 // added to the size the listing gives
}

// fakeFTP serves a tree keyed by decoded path ("pub/a.txt"; dirs "pub").
// Directory listings may hold hostile names added with extra.
type fakeFTP struct {
	mu      sync.Mutex
	nodes   map[string]*fakeNode
	extra   map[string][]proto.Entry // additional raw entries per dir
	fetches []string                 // file paths fetched, in order
	offsets map[string]int64
}

func newFakeFTP() *fakeFTP {
	return &fakeFTP{nodes: map[string]*fakeNode{"": {isDir: true}}, extra: map[string][]proto.Entry{}, offsets: map[string]int64{}}
}

var t0 = time.Date(2024, 5, 6, 7, 8, 0, 0, time.UTC)

func (f *fakeFTP) file(p string, data string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nodes[p] = &fakeNode{data: []byte(data), mtime: t0}
	for d := filepath.Dir(p); d != "."; d = filepath.Dir(d) {
		f.nodes[d] = &fakeNode{isDir: true}
	}
}

func (f *fakeFTP) decodedPath(u *uri.URL) (string, bool) {
	v, err := u.FTP()
	if err != nil {
		panic(err)
	}
	p := strings.Join(append(v.CWD, v.Name), "/")
	return strings.Trim(p, "/"), v.Name == ""
}

func (f *fakeFTP) Fetch(ctx context.Context, u *uri.URL, req *proto.Request) (*proto.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p, isDir := f.decodedPath(u)
	f.mu.Lock()
	defer f.mu.Unlock()
	n, ok := f.nodes[p]
	if !ok {
		return nil, fmt.Errorf("fake: %s: %w", p, proto.ErrNotFound)
	}
	if isDir {
		if !n.isDir {
			return nil, fmt.Errorf("fake: %s not a dir: %w", p, proto.ErrNotFound)
		}
		if n.refuse != nil {
			return nil, n.refuse
		}
		return &proto.Response{Kind: proto.KindDirectory, Body: io.NopCloser(strings.NewReader("listing")), Entries: f.list(p), Size: -1}, nil
	}
	f.fetches = append(f.fetches, p)
	f.offsets[p] = req.Offset
	if n.refuse != nil {
		return nil, n.refuse
	}
	data := n.data[req.Offset:]
	var body io.Reader = bytes.NewReader(data)
	if n.cutAt > 0 {
		body = io.MultiReader(bytes.NewReader(data[:max(0, n.cutAt-int(req.Offset))]), errReader{})
		if n.cuts--; n.cuts <= 0 {
			n.cutAt = 0
		}
	}
	return &proto.Response{Kind: proto.KindData, Body: io.NopCloser(body), Size: int64(len(n.data)), Offset: req.Offset, ModTime: n.mtime}, nil
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, io.ErrUnexpectedEOF }

func (f *fakeFTP) list(dir string) []proto.Entry {
	var es []proto.Entry
	for p, n := range f.nodes {
		if p == "" || filepath.Dir(p) != dir && !(dir == "" && !strings.Contains(p, "/")) {
			continue
		}
		e := proto.Entry{Name: filepath.Base(p), Size: int64(len(n.data)), ModTime: n.mtime, Type: proto.EntryFile}
		switch {
		case n.isDir:
			e.Type, e.Size = proto.EntryDir, 0
		case n.link != "":
			e.Type, e.Target = proto.EntryLink, n.link
		}
		if n.noSize {
			e.Size = -1
		}
		if n.noTime {
			e.ModTime = time.Time{}
		}
		if !n.isDir && !n.noSize {
			e.Size += n.skew
		}
		es = append(es, e)
	}
	return append(es, f.extra[dir]...)
}

func (f *fakeFTP) fetched() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := append([]string(nil), f.fetches...)
	f.fetches = nil
	return out
}

func sum(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

func mustRun(t *testing.T, f Fetcher, raw, dir string, opts Options) *Summary {
	t.Helper()
	s, err := Run(context.Background(), f, uri.MustParse(raw), dir, opts)
	if err != nil {
		t.Fatalf("Run(%s) = %v", raw, err)
	}
	return s
}

func TestMirrorTreeByteExact(t *testing.T) {
	f := newFakeFTP()
	f.file("pub/a.txt", "alpha\n")
	f.file("pub/with space.txt", "space\n")
	f.file("pub/empty", "")
	f.file("pub/x/y/deep.bin", strings.Repeat("\x00\xff", 5000))
	dir := t.TempDir()
	s := mustRun(t, f, "ftp://h/pub/", dir, Options{Jobs: 3})
	if s.New != 4 || s.Failed != 0 {
		t.Fatalf("summary = %+v, want 4 new", s)
	}
	for p, n := range f.nodes {
		if n.isDir || !strings.HasPrefix(p, "pub/") {
			continue
		}
		got, err := os.ReadFile(filepath.Join(dir, strings.TrimPrefix(p, "pub/")))
		if err != nil || sum(got) != sum(n.data) {
			t.Errorf("%s: content differs (err %v)", p, err)
		}
		st, _ := os.Stat(filepath.Join(dir, strings.TrimPrefix(p, "pub/")))
		if !st.ModTime().Equal(t0) {
			t.Errorf("%s: mtime %v, want remote time %v", p, st.ModTime(), t0)
		}
	}
	m, err := os.ReadFile(filepath.Join(dir, ".fetch", "manifest.json"))
	if err != nil || !bytes.Contains(m, []byte(sum([]byte("alpha\n")))) {
		t.Errorf("manifest lacks the sha256 of a.txt: %v\n%s", err, m)
	}
	if _, err := os.Stat(filepath.Join(dir, ".fetch", "partial", "a.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("partial file left behind: %v", err)
	}
}

func TestMirrorIncremental(t *testing.T) {
	f := newFakeFTP()
	for i := 0; i < 20; i++ {
		f.file(fmt.Sprintf("d/f%02d", i), fmt.Sprintf("file %d\n", i))
	}
	dir := t.TempDir()
	mustRun(t, f, "ftp://h/d/", dir, Options{Jobs: 4})
	if got := len(f.fetched()); got != 20 {
		t.Fatalf("first run fetched %d files, want 20", got)
	}
	manifestPath := filepath.Join(dir, ".fetch", "manifest.json")
	before, err := os.Stat(manifestPath)
	if err != nil {
		t.Fatal(err)
	}
	s := mustRun(t, f, "ftp://h/d/", dir, Options{Jobs: 4})
	if got := f.fetched(); len(got) != 0 || s.Unchanged != 20 {
		t.Fatalf("second run fetched %v (unchanged %d), want nothing", got, s.Unchanged)
	}
	// Nothing changed: the manifest is not rewritten (no write, no fsync).
	if after, err := os.Stat(manifestPath); err != nil || !os.SameFile(before, after) {
		t.Errorf("a run that changed nothing replaced the manifest (%v)", err)
	}
	f.nodes["d/f07"] = &fakeNode{data: []byte("changed, longer\n"), mtime: t0.Add(time.Hour)}
	s = mustRun(t, f, "ftp://h/d/", dir, Options{Jobs: 4})
	if got := f.fetched(); len(got) != 1 || got[0] != "d/f07" || s.Updated != 1 {
		t.Fatalf("after one change fetched %v (updated %d), want [d/f07]", got, s.Updated)
	}
	// Without the manifest (a run killed before it saved), files whose size
	// and time match on disk are still not fetched again.
	os.Remove(filepath.Join(dir, ".fetch", "manifest.json"))
	mustRun(t, f, "ftp://h/d/", dir, Options{Jobs: 4})
	if got := f.fetched(); len(got) != 0 {
		t.Fatalf("run without manifest fetched %v, want nothing", got)
	}
}

func TestMirrorResumesCutTransfer(t *testing.T) {
	f := newFakeFTP()
	data := bytes.Repeat([]byte("0123456789"), 10000)
	f.file("big.bin", string(data))
	// Cut twice: the first run's own retry resumes at the cut and is cut
	// again, so the file is left partial for the next run.
	f.nodes["big.bin"].cutAt, f.nodes["big.bin"].cuts = 40000, 2
	dir := t.TempDir()
	s, err := Run(context.Background(), f, uri.MustParse("ftp://h/"), dir, Options{})
	if !errors.Is(err, ErrPartial) || s.Failed != 1 {
		t.Fatalf("first run = %v (failed %d), want ErrPartial", err, s.Failed)
	}
	if got := f.fetched(); len(got) != 2 || f.offsets["big.bin"] != 40000 {
		t.Fatalf("first run fetched %q, the retry at offset %d; want two fetches, the retry resuming at 40000", got, f.offsets["big.bin"])
	}
	if _, err := os.Stat(filepath.Join(dir, "big.bin")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a partial file stands under the final name: %v", err)
	}
	mustRun(t, f, "ftp://h/", dir, Options{})
	if f.offsets["big.bin"] != 40000 {
		t.Errorf("second run asked offset %d, want 40000 (resume)", f.offsets["big.bin"])
	}
	got, _ := os.ReadFile(filepath.Join(dir, "big.bin"))
	if sum(got) != sum(data) {
		t.Errorf("resumed file differs from the source")
	}
}

// TestMirrorResumesWithoutListedSize: when the listing gives no size
// (gopher, HTTP), a partial file is resumed at its end only if the
// response's size and time match those recorded with it; otherwise the
// file is fetched again from its start. When the listing gives a time (a
// Gopher+ Mod-Date) that differs from the one recorded, the partial file
// is not even tried.
func TestMirrorResumesWithoutListedSize(t *testing.T) {
	for _, listedTime := range []bool{false, true} {
		for _, changed := range []bool{false, true} {
			name := fmt.Sprintf("listedTime=%v changed=%v", listedTime, changed)
			f := newFakeFTP()
			data := bytes.Repeat([]byte("0123456789"), 10000)
			f.file("big.bin", string(data))
			n := f.nodes["big.bin"]
			n.noSize, n.noTime, n.cutAt, n.cuts = true, !listedTime, 40000, 2
			dir := t.TempDir()
			if _, err := Run(context.Background(), f, uri.MustParse("ftp://h/"), dir, Options{}); !errors.Is(err, ErrPartial) {
				t.Fatalf("%s: first run = %v, want ErrPartial", name, err)
			}
			f.fetched()
			if changed {
				data = bytes.Repeat([]byte("abcdefghij"), 11000)
				f.mu.Lock()
				f.nodes["big.bin"] = &fakeNode{data: data, mtime: t0.Add(time.Hour), noSize: true, noTime: !listedTime}
				f.mu.Unlock()
			}
			mustRun(t, f, "ftp://h/", dir, Options{})
			got := f.fetched()
			switch {
			case !changed && (len(got) != 1 || f.offsets["big.bin"] != 40000):
				t.Errorf("%s: fetched %q, last at offset %d; want one fetch resuming at 40000", name, got, f.offsets["big.bin"])
			case changed && !listedTime && (len(got) != 2 || f.offsets["big.bin"] != 0):
				t.Errorf("%s: fetched %q, last at offset %d; want a resume refused, then offset 0", name, got, f.offsets["big.bin"])
			case changed && listedTime && (len(got) != 1 || f.offsets["big.bin"] != 0):
				t.Errorf("%s: fetched %q, last at offset %d; want one fetch from offset 0", name, got, f.offsets["big.bin"])
			}
			if b, _ := os.ReadFile(filepath.Join(dir, "big.bin")); !bytes.Equal(b, data) {
				t.Errorf("%s: big.bin differs from the source", name)
			}
		}
	}
}

// TestMirrorRetriesOnce: a transfer cut short is tried once more in the
// same run (and resumes); a refusal by the server is not asked again.
func TestMirrorRetriesOnce(t *testing.T) {
	f := newFakeFTP()
	data := bytes.Repeat([]byte("abcdefgh"), 20000)
	f.file("cut.bin", string(data))
	f.nodes["cut.bin"].cutAt = 70000
	f.file("refused.txt", "no")
	f.nodes["refused.txt"].refuse = fmt.Errorf("fake: RETR refused.txt: 550: %w", proto.ErrPermission)
	f.file("gone.txt", "no")
	f.nodes["gone.txt"].refuse = fmt.Errorf("fake: 550: %w", proto.ErrNotFound)
	dir := t.TempDir()
	s, err := Run(context.Background(), f, uri.MustParse("ftp://h/"), dir, Options{Jobs: 2})
	if !errors.Is(err, ErrPartial) || s.Failed != 2 || s.New != 1 {
		t.Fatalf("Run = %v, failed %d new %d; want refused.txt and gone.txt failed, cut.bin new", err, s.Failed, s.New)
	}
	got := f.fetched()
	slices.Sort(got)
	if want := []string{"cut.bin", "cut.bin", "gone.txt", "refused.txt"}; !slices.Equal(got, want) {
		t.Errorf("fetched %q, want %q", got, want)
	}
	if f.offsets["cut.bin"] != 70000 {
		t.Errorf("the retry asked offset %d, want 70000", f.offsets["cut.bin"])
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "cut.bin")); !bytes.Equal(b, data) {
		t.Errorf("cut.bin differs after the retry")
	}
}

func TestMirrorHostileNames(t *testing.T) {
	f := newFakeFTP()
	f.file("ok.txt", "fine")
	f.extra[""] = []proto.Entry{
		{Name: "../escape", Type: proto.EntryFile, Size: 1, ModTime: t0},
		{Name: "/etc/passwd", Type: proto.EntryFile, Size: 1, ModTime: t0},
		{Name: "a/../../b", Type: proto.EntryFile, Size: 1, ModTime: t0},
		{Name: "bad\r\nname", Type: proto.EntryFile, Size: 1, ModTime: t0},
		{Name: "nul\x00", Type: proto.EntryFile, Size: 1, ModTime: t0},
		{Name: "..", Type: proto.EntryDir},
		{Name: ".fetch", Type: proto.EntryDir},
		{Name: "etc", Type: proto.EntryLink, Target: "/etc"},
		{Name: "up", Type: proto.EntryLink, Target: "../../x"},
		{Name: "inside", Type: proto.EntryLink, Target: "ok.txt"},
	}
	parent := t.TempDir()
	dir := filepath.Join(parent, "target")
	s, _ := Run(context.Background(), f, uri.MustParse("ftp://h/"), dir, Options{})
	var skipped, failed []string
	for _, e := range s.Entries {
		switch e.Status {
		case StatusSkipped:
			skipped = append(skipped, e.Path)
		case StatusFailed:
			failed = append(failed, e.Path)
		}
	}
	// "../escape", "/etc/passwd", "a/../../b", CR/LF, NUL, and the two
	// links that point outside are skipped; ".fetch" (the mirror's own
	// state) is a real entry that is not written: failed.
	if len(skipped) != 7 || !slices.Equal(failed, []string{".fetch"}) {
		t.Errorf("skipped %q, failed %q; want 7 hostile entries named, and .fetch failed", skipped, failed)
	}
	ents, _ := os.ReadDir(parent)
	if len(ents) != 1 {
		t.Errorf("something was written beside the target: %v", ents)
	}
	if l, err := os.Readlink(filepath.Join(dir, "inside")); err != nil || l != "ok.txt" {
		t.Errorf("link inside the tree not recreated: %q %v", l, err)
	}
	for _, bad := range []string{"etc", "up"} {
		if _, err := os.Lstat(filepath.Join(dir, bad)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("link %s pointing outside was created", bad)
		}
	}
}

func TestMirrorNeverFollowsLocalSymlinkOut(t *testing.T) {
	f := newFakeFTP()
	f.file("sub/file.txt", "data")
	outside := t.TempDir()
	dir := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, "sub")); err != nil {
		t.Fatal(err)
	}
	Run(context.Background(), f, uri.MustParse("ftp://h/"), dir, Options{})
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Fatalf("the mirror wrote through a local symlink out of the target: %v", ents)
	}
}

func TestMirrorDeleteIncludeExcludeDryRun(t *testing.T) {
	f := newFakeFTP()
	f.file("keep.txt", "k")
	f.file("skip.log", "s")
	f.file("sub/x.txt", "x")
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "stale.txt"), []byte("old"), 0o644)

	dry := mustRun(t, f, "ftp://h/", dir, Options{DryRun: true, Delete: true})
	if dry.New != 3 || dry.Deleted != 1 || len(f.fetched()) != 0 {
		t.Fatalf("dry run: %+v, fetched something", dry)
	}
	if _, err := os.Stat(filepath.Join(dir, "keep.txt")); err == nil {
		t.Fatal("dry run wrote a file")
	}

	s := mustRun(t, f, "ftp://h/", dir, Options{Exclude: []string{"*.log"}})
	if s.New != 2 {
		t.Errorf("with --exclude *.log: %d new, want 2", s.New)
	}
	if _, err := os.Stat(filepath.Join(dir, "stale.txt")); err != nil {
		t.Errorf("stale file removed without --delete")
	}
	s = mustRun(t, f, "ftp://h/", dir, Options{Delete: true, Include: []string{"*.txt"}})
	if s.Deleted != 1 {
		t.Errorf("--delete removed %d, want 1 (stale.txt)", s.Deleted)
	}
	if _, err := os.Stat(filepath.Join(dir, "stale.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stale file kept with --delete")
	}
	if _, err := os.Stat(filepath.Join(dir, ".fetch", "manifest.json")); err != nil {
		t.Errorf("--delete removed the manifest: %v", err)
	}
}

func TestMirrorCancel(t *testing.T) {
	f := newFakeFTP()
	for i := 0; i < 50; i++ {
		f.file(fmt.Sprintf("f%02d", i), "x")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Run(ctx, f, uri.MustParse("ftp://h/"), t.TempDir(), Options{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run after cancel = %v, want context.Canceled", err)
	}
}

func TestCheckName(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"file.txt", true},
		{"with space", true},
		{"ünï", true},
		{"", false},
		{".", false},
		{"..", false},
		{"a/b", false},
		{`a\b`, false},
		{"a\nb", false},
		{"a\x00", false},
		{"a\x7f", false},
		// Not UTF-8: the bytes of another charset are a name (Latin-1,
		// Shift JIS), as the server has it.
		{"\xff", true},
		{"caf\xe9.txt", true},
		{"\x83e\x83X\x83g", true},
	} {
		if err := checkName(tc.name); (err == nil) != tc.ok {
			t.Errorf("checkName(%q) = %v, want ok=%v", tc.name, err, tc.ok)
		}
	}
}

func FuzzCheckRel(f *testing.F) {
	for _, s := range []string{"a/b", "../x", "a/../../b", "/etc/passwd", ".fetch/x", "a\x00b", "ok"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, rel string) {
		if checkRel(rel) != nil {
			return
		}
		clean := filepath.Clean(rel)
		if filepath.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, "../") {
			t.Fatalf("checkRel accepted %q, which leaves the target", rel)
		}
		// Each name it accepts is one name: not empty, not . or .., no
		// backslash, NUL or other control byte; the first is not the state
		// directory in any case.
		for i, name := range strings.Split(rel, "/") {
			if name == "" || name == "." || name == ".." || strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f || r == '\\' }) ||
				i == 0 && strings.EqualFold(name, stateDir) {
				t.Fatalf("checkRel accepted %q, with the name %q", rel, name)
			}
		}
	})
}

// TestMirrorPrunesPartials: a run that walks the whole tree removes the
// partial downloads no later run can use (the remote file was deleted, or
// it is complete now) and keeps the one of an entry that failed again, so
// that the next run still resumes it.
func TestMirrorPrunesPartials(t *testing.T) {
	f := newFakeFTP()
	big := bytes.Repeat([]byte("0123456789"), 10000)
	f.file("d/gone.bin", string(big))
	f.file("d/again.bin", string(big))
	f.nodes["d/gone.bin"].cutAt, f.nodes["d/gone.bin"].cuts = 30000, 2
	f.nodes["d/again.bin"].cutAt, f.nodes["d/again.bin"].cuts = 20000, 4
	f.file("small.txt", "s")
	dir := t.TempDir()
	if _, err := Run(context.Background(), f, uri.MustParse("ftp://h/"), dir, Options{}); !errors.Is(err, ErrPartial) {
		t.Fatalf("first run = %v, want ErrPartial", err)
	}
	part := func(top, rel string) bool {
		_, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(top), filepath.FromSlash(rel)))
		return err == nil
	}
	for _, rel := range []string{"d/gone.bin", "d/again.bin"} {
		if !part(partialDir, rel) || !part(partMeta, rel) {
			t.Fatalf("after the first run, %s has no partial file and record", rel)
		}
	}
	// gone.bin disappears from the server; again.bin is cut once more.
	f.mu.Lock()
	delete(f.nodes, "d/gone.bin")
	f.mu.Unlock()
	if _, err := Run(context.Background(), f, uri.MustParse("ftp://h/"), dir, Options{}); !errors.Is(err, ErrPartial) {
		t.Fatalf("second run = %v, want ErrPartial (again.bin cut again)", err)
	}
	if part(partialDir, "d/gone.bin") || part(partMeta, "d/gone.bin") {
		t.Errorf("the partial download of a file the server no longer has was kept")
	}
	if !part(partialDir, "d/again.bin") || !part(partMeta, "d/again.bin") {
		t.Fatalf("the partial download of a file that failed again was removed")
	}
	f.fetched()
	mustRun(t, f, "ftp://h/", dir, Options{})
	if f.offsets["d/again.bin"] != 20000 {
		t.Errorf("third run asked offset %d for again.bin, want 20000 (resume)", f.offsets["d/again.bin"])
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "d", "again.bin")); !bytes.Equal(b, big) {
		t.Errorf("again.bin differs from the source")
	}
	for _, top := range []string{partialDir, partMeta} {
		if _, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(top))); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("after a complete run, %s is still there (%v)", top, err)
		}
	}
}

// TestMirrorUnchangedByTimeAlone: a listing with a time but no size (a
// gopher menu with Gopher+ Mod-Dates) is enough for a second run to fetch
// nothing; a local file whose size no longer matches the manifest is
// fetched again, and so is a file whose listed time changed.
func TestMirrorUnchangedByTimeAlone(t *testing.T) {
	f := newFakeFTP()
	f.file("a.txt", "alpha")
	f.file("b.txt", "bravo")
	f.file("c.txt", "charlie")
	for _, n := range f.nodes {
		n.noSize = true
	}
	dir := t.TempDir()
	mustRun(t, f, "ftp://h/", dir, Options{})
	f.fetched()
	s := mustRun(t, f, "ftp://h/", dir, Options{})
	if got := f.fetched(); len(got) != 0 || s.Unchanged != 3 {
		t.Fatalf("second run fetched %q, unchanged %d; want nothing fetched, 3 unchanged", got, s.Unchanged)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("local edit"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	f.nodes["b.txt"].mtime = t0.Add(time.Minute)
	f.mu.Unlock()
	mustRun(t, f, "ftp://h/", dir, Options{})
	got := f.fetched()
	slices.Sort(got)
	if want := []string{"a.txt", "b.txt"}; !slices.Equal(got, want) {
		t.Errorf("third run fetched %q, want %q", got, want)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "alpha" {
		t.Errorf("a.txt = %q after the third run, want the server's", b)
	}
}

// warmFake is a fakeFTP that can warm connections; it records each call
// and the most connections (warm logins and fetches) open at once.
type warmFake struct {
	*fakeFTP
	mu      sync.Mutex
	calls   []int
	open    int
	maxOpen int
}

func (w *warmFake) enter() {
	w.mu.Lock()
	w.open++
	w.maxOpen = max(w.maxOpen, w.open)
	w.mu.Unlock()
}

func (w *warmFake) leave() {
	w.mu.Lock()
	w.open--
	w.mu.Unlock()
}

func (w *warmFake) Warm(ctx context.Context, u *uri.URL, req *proto.Request, n int) {
	w.mu.Lock()
	w.calls = append(w.calls, n)
	w.mu.Unlock()
	for range n {
		w.enter()
	}
	time.Sleep(20 * time.Millisecond) // the logins
	for range n {
		w.leave()
	}
}

func (w *warmFake) Fetch(ctx context.Context, u *uri.URL, req *proto.Request) (*proto.Response, error) {
	w.enter()
	defer w.leave()
	return w.fakeFTP.Fetch(ctx, u, req)
}

// TestMirrorWarmsConnections: a first run with Jobs > 1 asks a Warmer for
// Jobs-1 connections once, while it lists, and never has more than Jobs
// connections open; a dry run and a one-job run ask for none, a run over
// a mirror with a manifest for as many as it has directories to list.
func TestMirrorWarmsConnections(t *testing.T) {
	f := newFakeFTP()
	for i := range 50 {
		f.file(fmt.Sprintf("d%d/f%02d.txt", i%3, i), "x")
	}
	w := &warmFake{fakeFTP: f}
	mustRun(t, w, "ftp://h/", t.TempDir(), Options{Jobs: 4})
	if !slices.Equal(w.calls, []int{3}) {
		t.Errorf("Warm calls %v, want one of 3", w.calls)
	}
	if w.maxOpen > 4 {
		t.Errorf("%d connections open at once, want at most Jobs (4)", w.maxOpen)
	}
	w.calls = nil
	mustRun(t, w, "ftp://h/", t.TempDir(), Options{Jobs: 4, DryRun: true})
	mustRun(t, w, "ftp://h/", t.TempDir(), Options{Jobs: 1})
	if len(w.calls) != 0 {
		t.Errorf("Warm calls %v in a dry run and a one-job run, want none", w.calls)
	}
	// A second run into a mirror with a manifest may find nothing to
	// fetch, but lists every directory: it warms one connection for each
	// directory below the start that the manifest has files in (3 here),
	// up to Jobs-1; none for a mirror of one directory.
	dir := t.TempDir()
	mustRun(t, w, "ftp://h/", dir, Options{Jobs: 8})
	w.calls = nil
	mustRun(t, w, "ftp://h/", dir, Options{Jobs: 8})
	mustRun(t, w, "ftp://h/", dir, Options{Jobs: 3})
	if !slices.Equal(w.calls, []int{3, 2}) {
		t.Errorf("Warm calls %v in runs over a complete mirror with -j 8 and -j 3, want [3 2]", w.calls)
	}
	flat := t.TempDir()
	mustRun(t, w, "ftp://h/d0/", flat, Options{Jobs: 8})
	w.calls = nil
	mustRun(t, w, "ftp://h/d0/", flat, Options{Jobs: 8})
	if len(w.calls) != 0 {
		t.Errorf("Warm calls %v in a run over a complete mirror of one directory, want none", w.calls)
	}
}

// aheadFake is a fakeFTP that counts the EPSVs an FTP driver would have
// sent ahead and not used (ahead), and those sent (sent): a retrieval
// without NoSendAhead, or a listing with ListAhead, leaves one when it
// ends, and a retrieval or listing that begins while one is left uses it.
// The retrieval or listing of a path in waits begins only once that of
// the path it names has begun.
type aheadFake struct {
	*fakeFTP
	waits       map[string]string
	begun       map[string]chan struct{} // closed when the transfer of its path begins
	mu          sync.Mutex
	ahead, sent int
}

func (a *aheadFake) Fetch(ctx context.Context, u *uri.URL, req *proto.Request) (*proto.Response, error) {
	p, dir := a.decodedPath(u)
	a.mu.Lock()
	a.ahead = max(0, a.ahead-1)
	a.mu.Unlock()
	if ch, ok := a.begun[p]; ok {
		close(ch)
	}
	if w, ok := a.waits[p]; ok {
		select {
		case <-a.begun[w]:
		case <-ctx.Done():
		}
	}
	resp, err := a.fakeFTP.Fetch(ctx, u, req)
	if o := req.Options.FTP; dir && o.ListAhead || !dir && !o.NoSendAhead {
		a.mu.Lock()
		a.ahead++
		a.sent++
		a.mu.Unlock()
	}
	return resp, err
}

// TestMirrorNoEPSVWasted: an FTP worker sends the EPSV of its next
// transfer ahead only when it holds the file it fetches next, so that no
// port goes unused however the other workers' transfers run. Here one
// worker takes g0 while d1 is still to be listed (nothing held: nothing
// sent ahead) and waits in it until the other has begun d1/f1, which
// waits until d1/f3 has begun: the first fetches the rest meanwhile. A
// worker that counted on the files queued (and the listing to come) sent
// EPSVs ahead with g0 and d1/f1, and found nothing left after d1/f1.
func TestMirrorNoEPSVWasted(t *testing.T) {
	f := newFakeFTP()
	for _, p := range []string{"g0", "d1/f1", "d1/f2", "d1/f3"} {
		f.file(p, "x")
	}
	begun := map[string]chan struct{}{}
	for _, p := range []string{"g0", "d1/f1", "d1/f3"} {
		begun[p] = make(chan struct{})
	}
	a := &aheadFake{fakeFTP: f, begun: begun, waits: map[string]string{"d1": "g0", "g0": "d1/f1", "d1/f1": "d1/f3"}}
	mustRun(t, a, "ftp://h/", t.TempDir(), Options{Jobs: 2})
	if a.ahead != 0 {
		t.Errorf("%d EPSV sent ahead and not used, want none", a.ahead)
	}
}

// TestMirrorRerunListsAhead: a re-run, whose workers fetch nothing from an
// unchanged tree, sends the EPSV of a directory's listing ahead with the
// listing before it: with the start's, as the manifest names directories
// below it, and with each listing whose lister holds the directory it
// lists next. None goes unused.
func TestMirrorRerunListsAhead(t *testing.T) {
	f := newFakeFTP()
	for i := range 5 {
		f.file(fmt.Sprintf("d%d/f", i), "x")
	}
	dir := t.TempDir()
	mustRun(t, f, "ftp://h/", dir, Options{Jobs: 2})
	a := &aheadFake{fakeFTP: f}
	mustRun(t, a, "ftp://h/", dir, Options{Jobs: 2})
	if a.sent < 2 || a.ahead != 0 {
		t.Errorf("%d EPSV sent ahead, %d of them unused; want 2 or more, none unused", a.sent, a.ahead)
	}
}

// TestMirrorSmallFileLengthChecked: a small file (read whole and handed to
// the placer) that is longer or shorter than its listed size fails, and
// nothing stands under its final name; the others are placed.
func TestMirrorSmallFileLengthChecked(t *testing.T) {
	f := newFakeFTP()
	f.file("long.txt", "four")
	f.file("short.txt", "four")
	f.file("ok.txt", "four")
	f.nodes["long.txt"].skew = -1
	f.nodes["short.txt"].skew = +1
	dir := t.TempDir()
	s, err := Run(context.Background(), f, uri.MustParse("ftp://h/"), dir, Options{Jobs: 2})
	if !errors.Is(err, ErrPartial) || s.Failed != 2 || s.New != 1 {
		t.Fatalf("Run = %v, failed %d new %d; want long.txt and short.txt failed, ok.txt new", err, s.Failed, s.New)
	}
	reasons := map[string]string{}
	for _, e := range s.Entries {
		reasons[e.Path] = e.Reason
	}
	if !strings.Contains(reasons["long.txt"], "long transfer") || !strings.Contains(reasons["short.txt"], "short transfer") {
		t.Errorf("reasons %q", reasons)
	}
	for _, name := range []string{"long.txt", "short.txt"} {
		if _, err := os.Lstat(filepath.Join(dir, name)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s stands under its final name after a failed transfer (%v)", name, err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "ok.txt")); string(b) != "four" {
		t.Errorf("ok.txt = %q", b)
	}
}

// TestMirrorLatin1Names: names in bytes that are not UTF-8 (Latin-1 é and
// è, Shift JIS, 0xff) are mirrored under those bytes, kept apart in the
// manifest though they differ in one such byte, found unchanged by the
// next run, and a file gone from the server is deleted with --delete and
// the others kept, even with the manifest gone (then compared on disk).
func TestMirrorLatin1Names(t *testing.T) {
	names := []string{"caf\xe9.txt", "caf\xe8.txt", "d\xff/\x83e\x83X\x83g.txt", "plain.txt"}
	f := newFakeFTP()
	for _, n := range names {
		f.file("pub/"+n, "the bytes of "+n)
	}
	dir := t.TempDir()
	s := mustRun(t, f, "ftp://h/pub/", dir, Options{Jobs: 2})
	if got := f.fetched(); s.New != len(names) || s.Skipped+s.Failed != 0 || len(got) != len(names) {
		t.Fatalf("first run: %+v, fetched %q", s, got)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	m, err := loadManifest(root, false)
	if err != nil || m.len() != len(names) {
		t.Fatalf("manifest: %d records, %v; want %d", m.len(), err, len(names))
	}
	for _, n := range names {
		if b, err := os.ReadFile(filepath.Join(dir, n)); err != nil || string(b) != "the bytes of "+n {
			t.Errorf("%q: %q, %v", n, b, err)
		}
		if r, ok := m.get(n); !ok || r.SHA256 != sum([]byte("the bytes of "+n)) {
			t.Errorf("%q: manifest record %+v, %v", n, r, ok)
		}
	}
	s = mustRun(t, f, "ftp://h/pub/", dir, Options{Jobs: 2})
	if got := f.fetched(); s.Unchanged != len(names) || len(got) != 0 {
		t.Fatalf("second run: %+v, fetched %q", s, got)
	}
	delete(f.nodes, "pub/caf\xe8.txt")
	s = mustRun(t, f, "ftp://h/pub/", dir, Options{Jobs: 2, Delete: true})
	if s.Deleted != 1 || s.Unchanged != len(names)-1 {
		t.Fatalf("--delete: %+v", s)
	}
	if _, err := os.Stat(filepath.Join(dir, "caf\xe8.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("caf\\xe8.txt kept: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "caf\xe9.txt")); err != nil {
		t.Errorf("caf\\xe9.txt: %v", err)
	}
	os.Remove(filepath.Join(dir, manifestName))
	s = mustRun(t, f, "ftp://h/pub/", dir, Options{Jobs: 2, Delete: true})
	if got := f.fetched(); s.Unchanged != len(names)-1 || s.Deleted != 0 || len(got) != 0 {
		t.Fatalf("without the manifest: %+v, fetched %q", s, got)
	}
}
