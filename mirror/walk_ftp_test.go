package mirror

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/internal/testrig/localserver"
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/proto/ftp"
	"github.com/rfc1738/fetch/uri"
)

// linkLoopServer plays pyftpdlib 1.5.7 (Debian's python3-pyftpdlib)
// serving /pub with four symbolic links: self -> ., up -> .., alias ->
// real. Its MLSD follows links (os.stat): a link to a directory is listed
// as type=dir, with the unique fact (st_dev and st_ino, RFC 3659 section
// 7.5.2) of the directory it leads to, and may be entered. The lines are
// those pyftpdlib sent for the same tree. Every path the links lead to is
// served, up to maxDepth segments; a CWD below that is refused.
func linkLoopServer(maxDepth int) *localserver.RawFTP {
	const (
		rootLines = "modify=20010203040506;perm=el;size=4096;type=dir;unique=fe00g98c266; pub\r\n"
		pubLines  = "modify=20010203040506;perm=r;size=3;type=file;unique=fe00g9cc830; a.txt\r\n" +
			"modify=20010203040506;perm=el;size=4096;type=dir;unique=fe00g9cc828; real\r\n" +
			"modify=20010203040506;perm=el;size=4096;type=dir;unique=fe00g9cc828; alias\r\n" +
			"modify=20010203040506;perm=el;size=4096;type=dir;unique=fe00g98c266; self\r\n" +
			"modify=20010203040506;perm=el;size=4096;type=dir;unique=fe00g13; up\r\n"
		realLines = "modify=20010203040506;perm=r;size=3;type=file;unique=fe00g9cc831; in.txt\r\n"
	)
	srv := &localserver.RawFTP{Listings: map[string]string{}, MLSD: map[string]string{}, Files: map[string][]byte{}}
	var add func(dir, kind string)
	add = func(dir, kind string) {
		if strings.Count(dir, "/") > maxDepth {
			return
		}
		srv.Listings[dir] = ""
		switch kind {
		case "root":
			srv.MLSD[dir] = rootLines
			add(strings.TrimSuffix(dir, "/")+"/pub", "pub")
		case "pub":
			srv.MLSD[dir] = pubLines
			srv.Files[dir+"/a.txt"] = []byte("aaa")
			add(dir+"/real", "real")
			add(dir+"/alias", "real")
			add(dir+"/self", "pub")
			add(dir+"/up", "root")
		case "real":
			srv.MLSD[dir] = realLines
			srv.Files[dir+"/in.txt"] = []byte("in\n")
		}
	}
	add("/", "root")
	return srv
}

// A link back up the tree, which the server lists as a directory
// (pyftpdlib's MLSD), is not walked into: its listing has the same
// entries, with the same unique facts, as a directory above it on the
// walk, and it is skipped and named in the report. Before, the mirror of
// /pub went down self/self/self/... and up/pub/up/pub/... for as long as
// the server answered, listing and copying the tree again at each level:
// against pyftpdlib it never ended (lftp does the same). A link to
// another directory (alias -> real) is a directory of the mirror, as
// the server lists it; so is up, the server's root, whose pub is the
// start again and is skipped.
func TestMirrorLinkLoopMLSD(t *testing.T) {
	srv := linkLoopServer(8)
	if err := localserver.StartRawFTP(srv); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	dir := t.TempDir()
	for _, del := range []bool{false, true} {
		sum, err := mirrorPub(srv, dir, del)
		if err != nil || sum.Failed != 0 || sum.Deleted != 0 {
			t.Fatalf("Run (delete %v) = %v, %d failed, %d deleted; want nil, 0, 0", del, err, sum.Failed, sum.Deleted)
		}
		skipped := map[string]bool{}
		for _, e := range sum.Entries {
			if e.Status == StatusSkipped {
				skipped[e.Path] = true
			}
		}
		if !skipped["self"] || !skipped["up/pub"] || len(skipped) != 2 {
			t.Errorf("Run (delete %v) skipped %v, want self and up/pub", del, skipped)
		}
	}
	if got, want := treeOf(dir), []string{"a.txt", "alias/", "alias/in.txt", "real/", "real/in.txt", "up/"}; !slices.Equal(got, want) {
		t.Errorf("mirrored %q, want %q", got, want)
	}
	for _, p := range []string{"self", "up/pub"} {
		if _, err := os.Lstat(filepath.Join(dir, p)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Lstat(%s) = %v, want not found", p, err)
		}
	}
}

// mirrorPub mirrors /pub/ of srv into dir, with Delete or not.
func mirrorPub(srv *localserver.RawFTP, dir string, del bool) (*Summary, error) {
	drv := &ftp.Driver{}
	defer drv.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return Run(ctx, drivers{"ftp": drv}, uri.MustParse("ftp://"+srv.Addr()+"/pub/"), dir,
		Options{Jobs: 2, Delete: del, Request: proto.Request{IdleTimeout: 5 * time.Second}})
}

// listLoopServer is linkLoopServer answering LIST, as ls -l does, and not
// MLSD: no unique facts, so the links are told by what their listings
// hold (likeSum).
func listLoopServer(maxDepth int) *localserver.RawFTP {
	srv := linkLoopServer(maxDepth)
	for dir, lines := range srv.MLSD {
		var b strings.Builder
		for line := range strings.Lines(lines) {
			facts, name, _ := strings.Cut(strings.TrimRight(line, "\r\n"), " ")
			mode, size := "-rw-r--r--", "3"
			if strings.Contains(facts, "type=dir;") {
				mode, size = "drwxr-xr-x", "4096"
			}
			b.WriteString(mode + " 2 ftp ftp " + size + " Feb 03  2001 " + name + "\r\n")
		}
		srv.Listings[dir] = b.String()
	}
	srv.MLSD = nil
	return srv
}

// The tree of TestMirrorLinkLoopMLSD from a server that lists with LIST
// (no unique facts): self lists what pub lists, and up/pub too, so each
// is taken for a link back up the tree and not walked. Since that is a
// guess, each is a failed entry (exit 8), and with Delete nothing below
// them is deleted. Before, the walk went down self/self/... and
// up/pub/up/pub/... as far as the server let it (here 8 levels), copying
// pub at each level, the tree doubling at each; a server without such a
// bound never let it end.
func TestMirrorLinkLoopLIST(t *testing.T) {
	srv := listLoopServer(8)
	if err := localserver.StartRawFTP(srv); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	dir := t.TempDir()
	for _, del := range []bool{false, true} {
		sum, err := mirrorPub(srv, dir, del)
		if got, want := failed(sum), []string{"self", "up/pub"}; !errors.Is(err, ErrPartial) || !slices.Equal(got, want) || sum.Deleted != 0 {
			t.Fatalf("Run (delete %v) = %v, failed %q, %d deleted; want ErrPartial, %q, 0 deleted", del, err, got, sum.Deleted, want)
		}
	}
	if got, want := treeOf(dir), []string{"a.txt", "alias/", "alias/in.txt", "real/", "real/in.txt", "up/"}; !slices.Equal(got, want) {
		t.Errorf("mirrored %q, want %q", got, want)
	}
}

// treeOf lists the mirror in dir, its state directory left out: the
// relative paths, directories with a final "/", sorted.
func treeOf(dir string) []string {
	var got []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(dir, p)
		if d != nil && d.IsDir() && rel == stateDir {
			return fs.SkipDir
		}
		if err != nil || rel == "." {
			return err
		}
		if d.IsDir() {
			rel += "/"
		}
		got = append(got, filepath.ToSlash(rel))
		return nil
	})
	sort.Strings(got)
	return got
}

// A directory whose MLSD listing has the same names, types, sizes and
// times as its parent's, but other unique facts, is a directory of its
// own (a copy of the tree kept below it, x/x): it is walked, since the
// server's identifiers tell it apart. Only listings without unique facts
// are compared by what they hold.
func TestMirrorCopyBelowItselfMLSD(t *testing.T) {
	const facts = "modify=20010203040506;perm=el;size=4096;type=dir;unique=%s; x\r\n" +
		"modify=20010203040506;perm=r;size=3;type=file;unique=%s; a.txt\r\n"
	srv := &localserver.RawFTP{
		Listings: map[string]string{"/": "", "/x": "", "/x/x": ""},
		MLSD: map[string]string{
			"/":    fmt.Sprintf(facts, "d1", "f1"),
			"/x":   fmt.Sprintf(facts, "d2", "f2"),
			"/x/x": "modify=20010203040506;perm=r;size=3;type=file;unique=f3; b.txt\r\n",
		},
		Files: map[string][]byte{"/a.txt": []byte("aaa"), "/x/a.txt": []byte("aaa"), "/x/x/b.txt": []byte("bbb")},
	}
	if err := localserver.StartRawFTP(srv); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	dir := t.TempDir()
	drv := &ftp.Driver{}
	defer drv.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sum, err := Run(ctx, drivers{"ftp": drv}, uri.MustParse("ftp://"+srv.Addr()+"/"), dir, Options{Jobs: 1})
	if err != nil || sum.Failed+sum.Skipped != 0 {
		t.Fatalf("Run = %v, %+v", err, sum.Entries)
	}
	if got, want := treeOf(dir), []string{"a.txt", "x/", "x/a.txt", "x/x/", "x/x/b.txt"}; !slices.Equal(got, want) {
		t.Errorf("mirrored %q, want %q", got, want)
	}
}

// A directory whose listing differs from the one above it only in files
// that --exclude leaves out is still its own directory: the loop check
// (likeSum) sees every entry listed, not only the files the run keeps,
// though the walker keeps nothing for the excluded ones. Without that,
// "sub" here (the same names and y.bin as the root, x.txt of another
// size) is taken for a link back up and fails.
func TestMirrorExcludedStillCompared(t *testing.T) {
	const lines = "drwxr-xr-x 2 u g 4096 Jan 01 2024 sub\r\n" +
		"-rw-r--r-- 1 u g %d Jan 01 2024 x.txt\r\n" +
		"-rw-r--r-- 1 u g 3 Jan 01 2024 y.bin\r\n"
	srv := &localserver.RawFTP{
		Listings: map[string]string{"/": fmt.Sprintf(lines, 1), "/sub": fmt.Sprintf(lines, 2), "/sub/sub": ""},
		Files:    map[string][]byte{"/y.bin": []byte("yyy"), "/sub/y.bin": []byte("yyy")},
	}
	if err := localserver.StartRawFTP(srv); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	dir := t.TempDir()
	drv := &ftp.Driver{}
	defer drv.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sum, err := Run(ctx, drivers{"ftp": drv}, uri.MustParse("ftp://"+srv.Addr()+"/"), dir, Options{Jobs: 1, Exclude: []string{"*.txt"}})
	if err != nil || sum.Failed+sum.Skipped != 0 {
		t.Fatalf("Run = %v, %+v", err, sum.Entries)
	}
	if got, want := treeOf(dir), []string{"sub/", "sub/sub/", "sub/y.bin", "y.bin"}; !slices.Equal(got, want) {
		t.Errorf("mirrored %q, want %q", got, want)
	}
}
