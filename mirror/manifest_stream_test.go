package mirror

import (
	"bytes"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// streamCases are manifests to write with encode and read back with
// streamManifest: records that pack (an FTP URL with ";type=i", an HTTP
// one) and records that do not (a link, an MDTM time, an upper-case
// digest, a URL that is not the source and the path, a time with an
// offset or beyond Unix nanoseconds), names that are not UTF-8, and a
// news mirror's groups and Message-IDs. Strings are JSON strings (RFC
// 8259 section 7), escaped as encoding/json escapes them.
func streamCases() map[string]*manifest {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 600, time.UTC)
	sum := "3af2d771415d553cc34c090f6c8edc68afe55f89ac90298ed814977952ac416d"
	src := "ftp://h/pub/"
	return map[string]*manifest{
		"empty": {Version: 1, Source: src, Files: map[string]Record{}},
		"packed and not": {Version: 1, Source: src, Files: map[string]Record{
			"a":              {Size: 1, ModTime: t0, SHA256: sum, URL: src + "a;type=i"},
			"d/b":            {Size: 2, SHA256: sum, URL: src + "d/b"},
			"link":           {Size: -1, Link: "../t", URL: src + "link"},
			"mdtm":           {Size: 3, ModTime: t0, ExactTime: t0.Add(time.Second), SHA256: sum, URL: src + "mdtm;type=i"},
			"fetched":        {Size: 3, ModTime: t0, Fetched: t0, SHA256: sum, URL: src + "fetched;type=i"},
			"upper":          {Size: 4, SHA256: "3AF2D771415D553CC34C090F6C8EDC68AFE55F89AC90298ED814977952AC416D", URL: src + "upper"},
			"other url":      {Size: 5, SHA256: sum, URL: src + "other%20url;type=i"},
			"offset":         {Size: 6, ModTime: t0.In(time.FixedZone("", 3600)), SHA256: sum, URL: src + "offset"},
			"year 1500":      {Size: 7, ModTime: time.Date(1500, 1, 1, 0, 0, 0, 0, time.UTC), SHA256: sum, URL: src + "year 1500"},
			"caf\xe9.txt":    {Size: 8, SHA256: sum, URL: "ftp://h/pub/caf%E9.txt;type=i"},
			"caf\xe9\xff/x":  {Size: 9, SHA256: sum, URL: src + "caf\xe9\xff/x"},
			"q\"\\<&>\u2028": {Size: 10, ModTime: t0, SHA256: sum, URL: src + "q\"\\<&>\u2028"},
		}},
		"news": {Version: 1, Source: "nntp://h/comp.*", Files: map[string]Record{"comp/a/1": {Size: 3, SHA256: "x", URL: "nntp://h/comp.a/1"}},
			Groups:     map[string]GroupMark{"comp.b": {High: 7, Low: 2}, "comp.a": {High: 1, Low: 1}},
			MessageIDs: map[string]string{"<1@x>": "comp/a/1", "<\xe9@x>": "comp/b/7"}},
	}
}

// TestManifestStream: what encode writes, streamManifest reads back as
// it was, packed or not; the packed records are those that fit.
func TestManifestStream(t *testing.T) {
	for name, want := range streamCases() {
		b, err := want.encode()
		if err != nil {
			t.Fatalf("%s: encode: %v", name, err)
		}
		for _, pack := range []bool{false, true} {
			got, err := streamManifest(bytes.NewReader(b), pack)
			if err != nil {
				t.Fatalf("%s, pack %v: %v", name, pack, err)
			}
			sameManifest(t, name, got, want)
			if !pack && got.packed.len() != 0 {
				t.Errorf("%s: %d records packed without pack", name, got.packed.len())
			}
			if pack && name == "packed and not" && got.packed.len() != 4 {
				t.Errorf("%s: %d records packed, want 4 (a, d/b, caf\\xe9\\xff/x, q...)", name, got.packed.len())
			}
			again, err := got.encode()
			if err != nil || !bytes.Equal(again, b) {
				t.Errorf("%s, pack %v: encoded again:\n%s\nwant\n%s", name, pack, again, b)
			}
		}
	}
}

// sameManifest fails the test when got does not hold what want holds.
func sameManifest(t *testing.T, name string, got, want *manifest) {
	t.Helper()
	if got.Version != want.Version || got.Source != want.Source || got.len() != len(want.Files) ||
		!maps.Equal(got.Groups, want.Groups) || !maps.Equal(got.MessageIDs, want.MessageIDs) {
		t.Fatalf("%s: got version %d, source %q, %d files, groups %v, ids %v", name, got.Version, got.Source, got.len(), got.Groups, got.MessageIDs)
	}
	for rel, w := range want.Files {
		g, ok := got.get(rel)
		if !ok || !sameRecord(g, w) || !g.ExactTime.Equal(w.ExactTime) || !g.Fetched.Equal(w.Fetched) {
			t.Errorf("%s: %q = %+v, %v; want %+v", name, rel, g, ok, w)
		}
	}
}

// TestManifestLayouts: a manifest in another layout than encode's (one
// line, as another program may write it; a record with a member of its
// own) is decoded whole; one that is not JSON loads as no manifest.
func TestManifestLayouts(t *testing.T) {
	cases := []struct {
		name, doc string
		files     int
	}{
		{"one line", `{"version": 1, "source": "ftp://h/", "files": {"a": {"size": 1, "sha256": "s", "url": "ftp://h/a"}}}`, 1},
		{"files first", "{\n  \"files\": {\n    \"a\": {\n      \"size\": 1\n    }\n  },\n  \"version\": 1,\n  \"source\": \"ftp://h/\"\n}", 1},
		{"a record on one line", "{\n  \"version\": 1,\n  \"source\": \"ftp://h/\",\n  \"files\": {\n    \"a\": {\"size\": 1},\n    \"b\": {\n      \"size\": 2\n    }\n  }\n}", 2},
		{"cut short", "{\n  \"version\": 1,\n  \"source\": \"ftp://h/\",\n  \"files\": {\n    \"a\": {\n      \"size\": 1\n", 0},
		{"not JSON", "{\n  \"version\": 1,\n  \"source\": \"ftp://h/\",\n  \"files\": {\n    \"a\": {\n      \"size\": x\n    }\n  }\n}", 0},
	}
	for _, c := range cases {
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, stateDir), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, manifestName), []byte(c.doc), 0o644); err != nil {
			t.Fatal(err)
		}
		root, err := os.OpenRoot(dir)
		if err != nil {
			t.Fatal(err)
		}
		m, err := loadManifest(root, true)
		root.Close()
		if err != nil || m.len() != c.files || m.fresh {
			t.Errorf("%s: %d files, fresh %v, %v; want %d", c.name, m.len(), m.fresh, err, c.files)
		}
	}
	if _, err := streamManifest(bytes.NewReader([]byte(cases[0].doc)), true); !errors.Is(err, errLayout) {
		t.Errorf("one line: streamManifest = %v, want errLayout", err)
	}
}

// FuzzManifestStream: whatever streamManifest reads, it reads as
// decodeManifest reads the whole document.
func FuzzManifestStream(f *testing.F) {
	for _, m := range streamCases() {
		b, _ := m.encode()
		f.Add(b)
	}
	f.Add([]byte("{\n  \"version\": 1,\n  \"files\": {\n    \"a\": {\n    }\n  }\n}"))
	f.Fuzz(func(t *testing.T, doc []byte) {
		got, err := streamManifest(bytes.NewReader(doc), true)
		if err != nil {
			return
		}
		want, err := decodeManifest(doc)
		if err != nil {
			t.Fatalf("streamManifest read what decodeManifest refuses: %v\n%q", err, doc)
		}
		sameManifest(t, "fuzz", got, want)
	})
}
