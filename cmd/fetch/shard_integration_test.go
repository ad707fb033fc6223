package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/internal/jsonstr"
	"github.com/rfc1738/fetch/internal/testrig/servertest"
	"github.com/rfc1738/fetch/internal/testrig/warctest"
)

// symlinkMark starts the "bytes" regularFiles gives a symbolic link.
const symlinkMark = "\x00symlink\x00"

// regularFiles maps the relative path of every regular file under dir
// (.fetch excepted) to its bytes, and of every symbolic link to
// symlinkMark and its target.
func regularFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".fetch" {
			return filepath.SkipDir
		}
		if d.Type()&fs.ModeSymlink != 0 {
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			out[filepath.ToSlash(rel)] = []byte(symlinkMark + target)
			return nil
		}
		if d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			out[filepath.ToSlash(rel)] = b
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestShardsFTP: four shards of the FTP tree, run one after the other on
// this machine, give exactly the whole mirror: each file in one shard,
// byte for byte; their WARC files hold each file once; their merged
// manifest makes the joined tree a finished mirror.
func TestShardsFTP(t *testing.T) {
	s := servertest.Get(t, servertest.FTP)
	url := "ftp://" + s.Addr + "/pub/"
	// noaccess and noread.txt are refused by the server; scratch-* are
	// made and removed by the tests of mirror while this runs.
	skip := append([]string{"--exclude", "noaccess", "--exclude", "noread.txt", "--exclude", "scratch-*"}, notLocalExcludes()...)
	work := t.TempDir()
	whole := filepath.Join(work, "whole")
	if r := runLong(t, append([]string{"mirror", "-s"}, append(skip, url, whole)...)...); r.code != 0 {
		t.Fatalf("whole mirror = %d:\n%s", r.code, r.err)
	}
	want := regularFiles(t, whole)
	if len(want) < 2000 {
		t.Fatalf("the whole mirror has %d files", len(want))
	}

	const n = 4
	got := map[string][]byte{}
	owner := map[string]int{}
	var warcs, shardDirs []string
	for k := range n {
		dir := filepath.Join(work, fmt.Sprintf("shard-%d", k))
		name := filepath.Join(work, fmt.Sprintf("w-%d", k))
		args := append([]string{"mirror", "-s", "--shard", fmt.Sprintf("%d/%d", k, n), "--warc-file", name}, append(skip, url, dir)...)
		if r := runLong(t, args...); r.code != 0 {
			t.Fatalf("shard %d = %d:\n%s", k, r.code, r.err)
		}
		files := regularFiles(t, dir)
		if len(files) == 0 || len(files) > len(want)*2/3 {
			t.Errorf("shard %d holds %d of %d files", k, len(files), len(want))
		}
		for rel, b := range files {
			if o, dup := owner[rel]; dup {
				t.Errorf("%s is in shards %d and %d", rel, o, k)
			}
			owner[rel], got[rel] = k, b
		}
		warcs = append(warcs, warcFiles(t, name)...)
		shardDirs = append(shardDirs, dir)
	}
	if len(got) != len(want) {
		t.Errorf("the shards hold %d files, the whole mirror %d", len(got), len(want))
	}
	for rel, b := range want {
		if !bytes.Equal(got[rel], b) {
			t.Errorf("%s: the shards' copy (%d bytes) differs from the whole mirror's (%d bytes)", rel, len(got[rel]), len(b))
		}
	}

	// The WARC files together: each file's URL (as the whole mirror's
	// manifest has it) once as a resource (or a revisit, for a copy of
	// another file's bytes).
	var man struct {
		Files map[string]struct {
			URL string `json:"url"`
		} `json:"files"`
	}
	mb, err := os.ReadFile(filepath.Join(whole, ".fetch", "manifest.json"))
	// The names that are not UTF-8 (pub/odd) are PEP 383 escapes there.
	mb, escaped := jsonstr.KeepBytes(mb)
	if err == nil {
		err = json.Unmarshal(mb, &man)
	}
	if err != nil {
		t.Fatal(err)
	}
	// The mirror fetches each file with ";type=i"; its record is named
	// without the typecode (a binary transfer: the file's own bytes).
	urls := map[string]string{}
	for rel, r := range man.Files {
		if escaped {
			rel = jsonstr.RestoreBytes(rel)
		}
		urls[rel] = strings.TrimSuffix(r.URL, ";type=i")
	}
	captured := map[string]int{}
	for _, rec := range warctest.Check(t, warcs...) {
		u := rec.Get("WARC-Target-URI")
		if ty := rec.Get("WARC-Type"); (ty == "resource" || ty == "revisit") && !strings.HasSuffix(u, "/") {
			captured[u]++
		}
	}
	for rel, b := range want {
		if bytes.HasPrefix(b, []byte(symlinkMark)) {
			continue // recreated, not fetched
		}
		if captured[urls[rel]] != 1 {
			t.Errorf("%s: captured %d times in the shards' WARC files", rel, captured[urls[rel]])
		}
	}
	links := 0
	for _, b := range want {
		if bytes.HasPrefix(b, []byte(symlinkMark)) {
			links++
		}
	}
	if len(captured) != len(want)-links {
		t.Errorf("%d files captured, %d mirrored", len(captured), len(want))
	}

	// Joined: the shards' files in one tree, the manifests merged; a run
	// of the whole there finds everything unchanged.
	all := filepath.Join(work, "all")
	for rel, b := range got {
		p := filepath.Join(all, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if target, ok := strings.CutPrefix(string(b), symlinkMark); ok {
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The times of the files are not compared by the mirror when the
	// manifest records them (the listing's time and size are).
	if r := runArgs(t, nil, "", append([]string{"manifest", "merge", "-o", filepath.Join(all, ".fetch", "manifest.json")}, shardDirs...)...); r.code != 0 {
		t.Fatalf("manifest merge = %d:\n%s", r.code, r.err)
	}
	r := runLong(t, append([]string{"mirror", "--json"}, append(skip, url, all)...)...)
	if r.code != 0 || !strings.Contains(r.out, `"new": 0`) || !strings.Contains(r.out, `"updated": 0`) {
		t.Errorf("mirror of the joined tree = %d, want nothing new or updated:\n%.600s", r.code, r.out)
	}
}

func TestShardFlags(t *testing.T) {
	for _, s := range []string{"4/4", "-1/4", "1/0", "a/4", "1", "1/4/2", "0/100001"} {
		r := runArgs(t, nil, "", "mirror", "--shard", s, "ftp://127.0.0.1/x/", t.TempDir())
		if r.code != 2 || !strings.Contains(r.err, "--shard") {
			t.Errorf("--shard %s = %d (%s)", s, r.code, r.err)
		}
	}
	r := runArgs(t, nil, "", "mirror", "--shard", "1/2", "--delete", "ftp://127.0.0.1/x/", t.TempDir())
	if r.code == 0 || !strings.Contains(r.err, "--delete cannot be combined with shards") {
		t.Errorf("--shard with --delete = %d (%s)", r.code, r.err)
	}
	if r := runArgs(t, nil, "", "manifest", "merge", "x"); r.code != 2 {
		t.Errorf("merge without -o = %d (%s)", r.code, r.err)
	}
}
