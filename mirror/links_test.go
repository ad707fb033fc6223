package mirror

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/internal/testrig/localserver"
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/proto/ftp"
	"github.com/rfc1738/fetch/uri"
)

// link adds a symbolic link at p to the fake tree, and its directories.
func (f *fakeFTP) link(p, target string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nodes[p] = &fakeNode{link: target, mtime: t0}
	for d := filepath.Dir(p); d != "."; d = filepath.Dir(d) {
		f.nodes[d] = &fakeNode{isDir: true}
	}
}

// resolvesInside fails the test when an entry of dir resolves, as the
// kernel resolves it, outside dir or into its state directory. An entry
// that does not resolve (a link to nothing) leads nowhere and passes.
func resolvesInside(t *testing.T, dir string) {
	t.Helper()
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(real, stateDir)
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == stateDir {
			return filepath.SkipDir
		}
		got, err := filepath.EvalSymlinks(p)
		if err != nil {
			return nil
		}
		if got != real && !strings.HasPrefix(got, real+string(filepath.Separator)) {
			t.Errorf("%s resolves to %s, outside the target", rel, got)
		}
		if got == state || strings.HasPrefix(got, state+string(filepath.Separator)) {
			t.Errorf("%s resolves to %s, in the mirror's state", rel, got)
		}
		return nil
	})
}

// reportReasons maps the paths of the report's entries of status st to their
// reasons.
func reportReasons(s *Summary, st Status) map[string]string {
	m := map[string]string{}
	for _, e := range s.Entries {
		if e.Status == st {
			m[e.Path] = e.Reason
		}
	}
	return m
}

// TestMirrorLinkChains mirrors the link chains of issue 29, each link of
// which reads as inside alone: each chain must make nothing that
// resolves outside the target or into .fetch, and name each link refused.
func TestMirrorLinkChains(t *testing.T) {
	for _, tc := range []struct {
		name    string
		links   [][2]string // path, target
		refused []string
		made    []string
	}{
		{"up through a link", [][2]string{{"x/y/d", "../.."}, {"e", "x/y/d/.."}, {"f", "x/y/d/../../etc"}},
			[]string{"e", "f"}, []string{"x/y/d"}},
		{"passwd", [][2]string{{"a/b/c/d/L", "../../../.."}, {"w", "a/b/c/d/L/../../../../../etc/passwd"}},
			[]string{"w"}, []string{"a/b/c/d/L"}},
		{"state", [][2]string{{"st", ".fetch"}, {"man", ".fetch/manifest.json"}, {"sub/st", "../.fetch/partial"}},
			[]string{"man", "st", "sub/st"}, nil},
		{"through a refused link", [][2]string{{"up", "../x"}, {"b", "up/y"}, {"c", "b/../.."}},
			[]string{"b", "c", "up"}, nil},
		{"loop", [][2]string{{"p", "q"}, {"q", "p"}, {"r", "r/.."}},
			[]string{"p", "q", "r"}, nil},
		{"chain of links to a sibling", [][2]string{{"k1", "s/k2"}, {"s/k2", "../t/k3"}, {"t/k3", "../f.txt"}},
			nil, []string{"k1", "s/k2", "t/k3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeFTP()
			f.file("pub/f.txt", "data")
			for _, l := range tc.links {
				f.link("pub/"+l[0], l[1])
			}
			dir := filepath.Join(t.TempDir(), "target")
			s, _ := Run(context.Background(), f, uri.MustParse("ftp://h/pub/"), dir, Options{})
			resolvesInside(t, dir)
			skipped := reportReasons(s, StatusSkipped)
			for _, p := range tc.refused {
				if _, ok := skipped[p]; !ok {
					t.Errorf("link %s not named in the report (skipped: %q)", p, skipped)
				}
				if _, err := os.Lstat(filepath.Join(dir, p)); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("link %s made: %v", p, err)
				}
			}
			if len(skipped) != len(tc.refused) {
				t.Errorf("skipped %q, want %q", skipped, tc.refused)
			}
			for _, p := range tc.made {
				if _, err := os.Readlink(filepath.Join(dir, p)); err != nil {
					t.Errorf("link %s not made: %v", p, err)
				}
			}
		})
	}
}

// TestMirrorLinkOfEarlierRunRemoved: a link an earlier run made inside is
// removed when a later run's tree makes it lead out, whether the later
// listing still has it or not.
func TestMirrorLinkOfEarlierRunRemoved(t *testing.T) {
	f := newFakeFTP()
	f.file("f.txt", "data")
	f.link("e", "q/..")    // q is nowhere: e leads to the top
	f.link("kept", "q/..") // listed again below
	dir := filepath.Join(t.TempDir(), "target")
	s := mustRun(t, f, "ftp://h/", dir, Options{})
	if s.New != 3 {
		t.Fatalf("first run: %+v", s)
	}
	f.mu.Lock()
	delete(f.nodes, "e")
	f.mu.Unlock()
	f.link("q", ".") // now q/.. leads above the top
	s, _ = Run(context.Background(), f, uri.MustParse("ftp://h/"), dir, Options{})
	resolvesInside(t, dir)
	if why, ok := reportReasons(s, StatusDeleted)["e"]; !ok || !strings.Contains(why, errLinkOutside.Error()) {
		t.Errorf("link e of the first run not reported deleted: %+v", s.Entries)
	}
	if _, ok := reportReasons(s, StatusSkipped)["kept"]; !ok {
		t.Errorf("link kept not reported skipped: %+v", s.Entries)
	}
	for _, p := range []string{"e", "kept"} {
		if _, err := os.Lstat(filepath.Join(dir, p)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("link %s still stands: %v", p, err)
		}
	}
	m, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	man, _ := loadManifest(m, false)
	for _, p := range []string{"e", "kept"} {
		if _, ok := man.get(p); ok {
			t.Errorf("manifest still records %s", p)
		}
	}
}

// randomTarget is a link target of up to five components drawn from
// names of the random tree, "..", "." and the state directory's names.
func randomTarget(rng *rand.Rand) string {
	parts := []string{"..", "..", ".", "a", "b", "c", "L", "M", ".fetch", "manifest.json", "f"}
	n := 1 + rng.IntN(5)
	out := make([]string, n)
	for i := range out {
		out[i] = parts[rng.IntN(len(parts))]
	}
	return strings.Join(out, "/")
}

// randomTree fills f with a random tree below pub: directories a, b, c up
// to three deep, files f, and links L and M with random targets.
func randomTree(rng *rand.Rand, f *fakeFTP) {
	dirs := []string{"pub"}
	for range 1 + rng.IntN(6) {
		d := dirs[rng.IntN(len(dirs))]
		if strings.Count(d, "/") < 3 {
			dirs = append(dirs, d+"/"+string(rune('a'+rng.IntN(3))))
		}
	}
	for _, d := range dirs {
		if rng.IntN(2) == 0 {
			f.file(d+"/f", "x")
		} else {
			f.file(d+"/f.keep", "x")
		}
	}
	for range 1 + rng.IntN(8) {
		d := dirs[rng.IntN(len(dirs))]
		name := []string{"L", "M"}[rng.IntN(2)]
		if n, ok := f.nodes[d+"/"+name]; ok && n.isDir {
			continue
		}
		f.link(d+"/"+name, randomTarget(rng))
	}
}

// TestMirrorRandomLinkTrees mirrors random trees of links and "..", twice
// into one target (the second tree over the first, without Delete): after
// each run no entry resolves outside the target or into its state.
func TestMirrorRandomLinkTrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 1))
	for i := range 60 {
		dir := filepath.Join(t.TempDir(), "target")
		for run := range 2 {
			f := newFakeFTP()
			randomTree(rng, f)
			s, _ := Run(context.Background(), f, uri.MustParse("ftp://h/pub/"), dir, Options{Jobs: 2})
			resolvesInside(t, dir)
			if t.Failed() {
				t.Fatalf("tree %d, run %d: %s", i, run, describeTree(f, s))
			}
		}
	}
}

func describeTree(f *fakeFTP, s *Summary) string {
	var lines []string
	for p, n := range f.nodes {
		if n.link != "" {
			lines = append(lines, p+" -> "+n.link)
		}
	}
	slices.Sort(lines)
	return fmt.Sprintf("links %q, report %+v", lines, s.Entries)
}

// TestMirrorLinkChainsRealFTP mirrors the listings of issue 29 as an FTP
// server sends them (LIST lines, through the ftp driver): /pub/x/y holds
// d -> ../.., /pub holds e -> x/y/d/.. and f -> x/y/d/../../etc, the
// chain a/b/c/d/L and w, links into .fetch, a name listed twice and a
// file beside a directory of its name. Nothing made resolves out of the
// target or into .fetch; each link refused and each collision is named;
// the run is partial (the collisions).
func TestMirrorLinkChainsRealFTP(t *testing.T) {
	file := func(name string, size int) string {
		return fmt.Sprintf("-rw-r--r--    1 0        0    %d Feb 03  2001 %s\r\n", size, name)
	}
	dir := func(name string) string { return "drwxr-xr-x    2 0        0    4096 Feb 03  2001 " + name + "\r\n" }
	link := func(name, target string) string {
		return fmt.Sprintf("lrwxrwxrwx    1 0        0    %d Feb 03  2001 %s -> %s\r\n", len(target), name, target)
	}
	srv := &localserver.RawFTP{
		Listings: map[string]string{
			"/pub": dir("x") + link("e", "x/y/d/..") + link("f", "x/y/d/../../etc") + dir("a") +
				link("w", "a/b/c/d/L/../../../../../etc/passwd") + link("st", ".fetch") + link("man", ".fetch/manifest.json") +
				file("twice", 4) + file("twice", 5) + file("same", 4) + file("same", 4) + file("k", 4) + dir("k"),
			"/": dir("pub"), "/pub/x": dir("y"), "/pub/x/y": link("d", "../.."),
			"/pub/a": dir("b"), "/pub/a/b": dir("c"), "/pub/a/b/c": dir("d"), "/pub/a/b/c/d": link("L", "../../../.."),
			"/pub/k": file("in", 4),
		},
		Files: map[string][]byte{"/pub/twice": []byte("two!"), "/pub/same": []byte("same"), "/pub/k": []byte("file"), "/pub/k/in": []byte("in!\n")},
	}
	if err := localserver.StartRawFTP(srv); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	drv := &ftp.Driver{}
	defer drv.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	target := filepath.Join(t.TempDir(), "target")
	s, err := Run(ctx, drivers{"ftp": drv}, uri.MustParse("ftp://"+srv.Addr()+"/pub/"), target,
		Options{Jobs: 2, Request: proto.Request{IdleTimeout: 5 * time.Second}})
	resolvesInside(t, target)
	if got, want := collided(s), []string{"k", "twice"}; !errors.Is(err, ErrPartial) || !slices.Equal(got, want) {
		t.Errorf("Run = %v, collisions %q; want ErrPartial, %q", err, got, want)
	}
	skipped := reportReasons(s, StatusSkipped)
	for _, p := range []string{"e", "f", "w", "st", "man"} {
		if _, ok := skipped[p]; !ok {
			t.Errorf("link %s not named in the report (skipped %q)", p, skipped)
		}
	}
	for _, p := range []string{"x/y/d", "a/b/c/d/L"} {
		if _, err := os.Readlink(filepath.Join(target, p)); err != nil {
			t.Errorf("link %s, which stays inside, not made: %v", p, err)
		}
	}
	wantDirKept(t, target, "k", "in", "in!\n")
}
