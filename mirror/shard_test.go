package mirror

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The FNV-1a 64-bit hash of "a" is 0xaf63dc4c8601ec8c and of "foobar"
// 0x85944171f73967e8 (the test vectors of the FNV reference code,
// draft-eastlake-fnv section 8 / isthe.com/chongo/tech/comp/fnv).
func TestShardOf(t *testing.T) {
	for _, tc := range []struct {
		rel  string
		n    int
		want int
	}{
		{"a", 4, int(uint64(0xaf63dc4c8601ec8c) % 4)},
		{"a", 7, int(uint64(0xaf63dc4c8601ec8c) % 7)},
		{"foobar", 3, int(uint64(0x85944171f73967e8) % 3)},
		{"foobar", 1000, int(uint64(0x85944171f73967e8) % 1000)},
		{"anything", 1, 0},
		{"anything", 0, 0},
	} {
		if got := ShardOf(tc.rel, tc.n); got != tc.want {
			t.Errorf("ShardOf(%q, %d) = %d, want %d", tc.rel, tc.n, got, tc.want)
		}
	}
	// Spread: 2,000 names like pub/many's over 4 shards.
	count := make([]int, 4)
	for i := range 2000 {
		count[ShardOf(fmt.Sprintf("many/file%04d.txt", i), 4)]++
	}
	for k, c := range count {
		if c < 400 || c > 600 {
			t.Errorf("shard %d of 4 owns %d of 2000 files", k, c)
		}
	}
}

func TestCheckShard(t *testing.T) {
	for _, tc := range []struct {
		o  Options
		ok bool
	}{
		{Options{}, true},
		{Options{Shard: 0, Shards: 1}, true},
		{Options{Shard: 3, Shards: 4}, true},
		{Options{Shard: 4, Shards: 4}, false},
		{Options{Shard: -1, Shards: 4}, false},
		{Options{Shard: 1, Shards: 0}, false},
		{Options{Shard: 0, Shards: -2}, false},
		{Options{Shard: 1, Shards: 2, Delete: true}, false},
		{Options{Shards: 1, Delete: true}, true},
	} {
		err := checkShard(tc.o)
		if (err == nil) != tc.ok || (err != nil && !errors.Is(err, ErrShard)) {
			t.Errorf("checkShard(%d/%d, delete %v) = %v", tc.o.Shard, tc.o.Shards, tc.o.Delete, err)
		}
	}
}

func writeManifest(t *testing.T, dir, source string, files map[string]Record) string {
	t.Helper()
	m := &manifest{Version: 1, Source: source, Files: files}
	b, err := m.encode()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, ".fetch", "manifest.json")
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestMergeManifests(t *testing.T) {
	tm := time.Date(2001, 2, 3, 0, 0, 0, 0, time.UTC)
	a := Record{Size: 1, ModTime: tm, SHA256: "aa", URL: "ftp://h/pub/a"}
	b := Record{Size: 2, ModTime: tm, SHA256: "bb", URL: "ftp://h/pub/b"}
	root := t.TempDir()
	s0 := filepath.Join(root, "s0")
	s1 := filepath.Join(root, "s1")
	writeManifest(t, s0, "ftp://h/pub/", map[string]Record{"a": a})
	p1 := writeManifest(t, s1, "ftp://h/pub/", map[string]Record{"b": b, "a": a})
	out := filepath.Join(root, "all", ".fetch", "manifest.json")
	if err := MergeManifests(out, s0, p1); err != nil {
		t.Fatal(err)
	}
	m, err := readManifestFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if m.Source != "ftp://h/pub/" || len(m.Files) != 2 || !sameRecord(m.Files["a"], a) || !sameRecord(m.Files["b"], b) {
		t.Errorf("merged: %+v", m)
	}

	// A file recorded differently.
	s2 := filepath.Join(root, "s2")
	writeManifest(t, s2, "ftp://h/pub/", map[string]Record{"a": b})
	var me *MergeError
	if err := MergeManifests(out, s0, s2); !errors.As(err, &me) || me.Path != "a" {
		t.Errorf("conflict: %v", err)
	}
	// Another source, a missing file, no input, not JSON.
	s3 := filepath.Join(root, "s3")
	writeManifest(t, s3, "ftp://other/", nil)
	bad := filepath.Join(root, "bad.json")
	os.WriteFile(bad, []byte("{"), 0o644)
	for _, in := range [][]string{{s0, s3}, {filepath.Join(root, "none")}, {}, {bad}} {
		if err := MergeManifests(out, in...); err == nil {
			t.Errorf("MergeManifests(%q): no error", in)
		}
	}
	// The output is untouched by the failures.
	if m2, err := readManifestFile(out); err != nil || len(m2.Files) != 2 {
		t.Errorf("output after failed merges: %v, %v", m2, err)
	}
}
