package mirror

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// treeFake is an FTP server, in process, whose listings are given line
// by line: names may repeat, climb, hold separators, or be reserved.
type treeFake struct {
	mu     sync.Mutex
	lists  map[string][]proto.Entry // directory -> its listing
	dirs   map[string]bool          // directories it serves
	files  map[string]string        // file path -> content
	listed map[string]bool          // directories the mirror listed
}

// parseTree reads a tree of lines "DIR|NAME|KIND|TARGET": KIND d, f, F (a
// file listed one byte longer than it is) or l (a link to TARGET). At
// most 64 lines are read.
func parseTree(src string) *treeFake {
	f := &treeFake{lists: map[string][]proto.Entry{}, dirs: map[string]bool{"": true}, files: map[string]string{}, listed: map[string]bool{}}
	lines := strings.Split(src, "\n")
	for _, line := range lines[:min(len(lines), 64)] {
		fields := strings.SplitN(line, "|", 4)
		if len(fields) < 3 || len(fields[2]) != 1 {
			continue
		}
		dir, name := strings.Trim(fields[0], "/"), fields[1]
		f.dirs[dir] = true
		p := strings.TrimPrefix(dir+"/"+name, "/")
		e := proto.Entry{Name: name, ModTime: t0}
		switch fields[2] {
		case "d":
			e.Type = proto.EntryDir
			f.dirs[p] = true
		case "f", "F":
			data := "content of " + p
			e.Type, e.Size = proto.EntryFile, int64(len(data))
			if fields[2] == "F" {
				e.Size++
			}
			f.files[p] = data
		case "l":
			e.Type, e.ModTime = proto.EntryLink, time.Time{}
			if len(fields) == 4 {
				e.Target = fields[3]
			}
		default:
			continue
		}
		f.lists[dir] = append(f.lists[dir], e)
	}
	return f
}

func (f *treeFake) Fetch(ctx context.Context, u *uri.URL, req *proto.Request) (*proto.Response, error) {
	v, err := u.FTP()
	if err != nil {
		return nil, err
	}
	p := strings.Trim(strings.Join(append(v.CWD, v.Name), "/"), "/")
	f.mu.Lock()
	defer f.mu.Unlock()
	if v.Name == "" {
		if !f.dirs[p] {
			return nil, fmt.Errorf("fake: %s: %w", p, proto.ErrNotFound)
		}
		f.listed[p] = true
		return &proto.Response{Kind: proto.KindDirectory, Body: io.NopCloser(strings.NewReader("")), Entries: f.lists[p], Size: -1}, nil
	}
	data, ok := f.files[p]
	if !ok {
		return nil, fmt.Errorf("fake: %s: %w", p, proto.ErrNotFound)
	}
	return &proto.Response{Kind: proto.KindData, Body: io.NopCloser(strings.NewReader(data[req.Offset:])), Size: int64(len(data)), Offset: req.Offset, ModTime: t0}, nil
}

// nothingLost fails the test when an entry of a listing the mirror read
// is neither in the target, as what it was listed as, nor named in the
// report (by its path, its quoted name, or its directory's path).
func nothingLost(t *testing.T, f *treeFake, dir string, s *Summary) {
	t.Helper()
	named := map[string]bool{}
	for _, e := range s.Entries {
		named[e.Path] = true
	}
	for d := range f.listed {
		for _, e := range f.lists[d] {
			if e.Name == "." || e.Name == ".." {
				continue // the directory itself and its parent
			}
			rel := joinRel(d, e.Name)
			if named[rel] || named[joinRel(d, quoteName(e.Name))] || d != "" && named[d] || mirroredAs(dir, rel, e.Type) {
				continue
			}
			t.Errorf("%s (%s) listed in %q: neither mirrored nor named in the report", rel, e.Type, d)
		}
	}
}

// mirroredAs reports whether the target holds rel as an entry of type typ.
func mirroredAs(dir, rel string, typ proto.EntryType) bool {
	if checkRel(rel) != nil {
		return false
	}
	st, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		return false
	}
	switch typ {
	case proto.EntryDir:
		return st.IsDir()
	case proto.EntryLink:
		return st.Mode()&os.ModeSymlink != 0
	}
	return st.Mode().IsRegular()
}

// FuzzMirrorTree mirrors trees of listing lines (links, "..", names
// listed twice or as a file and a directory, reserved names), a first
// tree and then, into the same target, a second one (the input's part
// after a line "=="): after each run nothing in the target resolves out
// of it or into its state, and every entry listed is mirrored or named
// in the report.
func FuzzMirrorTree(f *testing.F) {
	for _, seed := range []string{
		"x/y|d|l|../..\n|e|l|x/y/d/..\n|f|l|x/y/d/../../etc\n|x|d\nx|y|d",
		"a/b/c/d|L|l|../../../..\n|w|l|a/b/c/d/L/../../../../../etc/passwd\n|a|d\na|b|d\na/b|c|d\na/b/c|d|d",
		"|st|l|.fetch\n|man|l|.fetch/manifest.json\n|.fetch|d\n|gophermap|f\nsub|gophermap|f\n|sub|d",
		"|a|f\n|a|d\n|b|d\n|b|f\n|c|f\n|c|f\n|e|f\n|e|F\na|in|f\nb|in|f",
		"|p|l|q\n|q|l|p\n|up|l|../x\n|b|l|up/y\n|c|l|b/../..",
		"|e|l|q/..\n|f|f\n==\n|q|l|.\n|f|f",
		"|..|d\n|.|d\n|../x|f\n|a/b|f\n|n\x00|f\n|ok|l|/etc\n|bs|l|..\\x",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, src string) {
		dir := filepath.Join(t.TempDir(), "target")
		first, second, _ := strings.Cut(src, "\n==\n")
		for _, tree := range []string{first, second} {
			fake := parseTree(tree)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			s, _ := Run(ctx, fake, uri.MustParse("ftp://127.0.0.1/"), dir, Options{Jobs: 2, Retry: nil})
			cancel()
			resolvesInside(t, dir)
			nothingLost(t, fake, dir, s)
			if t.Failed() {
				t.Fatalf("tree %q: report %+v", tree, s.Entries)
			}
		}
	})
}
