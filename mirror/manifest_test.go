package mirror

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestManifestEncode checks that the hand-written encoder gives the bytes
// json.MarshalIndent gives, including the escapes of encoding/json (RFC
// 8259 section 7 leaves the choice of escapes to the writer).
func TestManifestEncode(t *testing.T) {
	t0 := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	east := time.FixedZone("", 5*3600+30*60)
	cases := []struct {
		name  string
		files map[string]Record
	}{
		{"no files", map[string]Record{}},
		{"no remote time", map[string]Record{"a": {Size: 0, SHA256: "e3b0", URL: "ftp://h/a;type=i"}}},
		{"time with nanoseconds and offset", map[string]Record{"a": {Size: 1 << 40, ModTime: time.Date(1999, 12, 31, 23, 59, 59, 120000000, east), SHA256: "x", URL: "u"}}},
		{"link", map[string]Record{"l": {Size: -1, Link: "../t", URL: "u"}}},
		{"sorted keys", map[string]Record{"b": {ModTime: t0}, "a/c": {ModTime: t0}, "a": {}, "B": {}, "é": {}}},
		{"escapes", map[string]Record{
			"q\"b\\s/":                  {URL: "<>&"},
			"ctl\x00\x01\x1f\x7f\n\r\t": {SHA256: "\b\f"},
			"bad\xff\xfe utf8 \xe2\x82": {URL: "\xc3"},
			"sep\u2028\u2029 é 日本 🙂":    {Link: "\u2028x"},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := &manifest{Version: 1, Source: "ftp://h:21/pub/<&>\u2029\xff", Files: c.files}
			compareEncodings(t, m)
		})
	}
	m := &manifest{Version: 1, Files: map[string]Record{"y": {ModTime: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}}}
	if _, err := m.encode(); err == nil {
		t.Errorf("year 10000 encoded without an error")
	}
}

func compareEncodings(t *testing.T, m *manifest) {
	t.Helper()
	want, werr := json.MarshalIndent(m, "", "  ")
	got, err := m.encode()
	if (err != nil) != (werr != nil) {
		t.Fatalf("encode error %v, MarshalIndent error %v", err, werr)
	}
	if err != nil {
		return
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("encode differs from MarshalIndent:\ngot  %q\nwant %q", got, want)
	}
	var back manifest
	if err := json.Unmarshal(got, &back); err != nil {
		t.Fatalf("the encoding does not parse: %v", err)
	}
}

func FuzzManifestEncode(f *testing.F) {
	f.Add("a.txt", "ftp://h/a.txt;type=i", "", int64(10), int64(981173106), 0)
	f.Add("<&>\u2028", "\xff\xfe", "../x", int64(-1), int64(0), 3)
	f.Add("\x00\x7f\"\\", "é", "\u2029", int64(1<<62), int64(-62135596800), -7200)
	f.Fuzz(func(t *testing.T, name, url, link string, size, unix int64, offset int) {
		tm := time.Unix(unix, unix%1000*1000).In(time.FixedZone("", offset%86400))
		m := &manifest{Version: 1, Source: url + name, Files: map[string]Record{
			name:        {Size: size, ModTime: tm, SHA256: link, URL: url, Link: link},
			name + "/2": {Size: size, URL: name},
		}}
		compareEncodings(t, m)
		m.Groups = map[string]GroupMark{name: {High: size, Low: unix}, url: {}}
		m.MessageIDs = map[string]string{"<" + name + ">": url, link: name}
		compareEncodings(t, m)
	})
}

// A news mirror's manifest: high water marks and the Message-ID index
// encode as MarshalIndent does; a manifest written before they existed
// (or by an FTP mirror) loads with them empty and encodes as before.
func TestManifestNewsKeys(t *testing.T) {
	m := &manifest{Version: 1, Source: "nntp://h/comp.*", Files: map[string]Record{"comp/a/1": {Size: 3, SHA256: "x", URL: "nntp://h/comp.a/1"}},
		Groups:     map[string]GroupMark{"comp.b": {High: 7, Low: 2}, "comp.a": {High: 1, Low: 1}},
		MessageIDs: map[string]string{"<1@x>": "comp/a/1", "<&\"@x>": "comp/b/7"}}
	compareEncodings(t, m)
	m.Groups = map[string]GroupMark{}
	compareEncodings(t, m)

	old := []byte(`{"version": 1, "source": "ftp://h/pub/", "files": {"a": {"size": 1, "sha256": "s", "url": "u"}}}`)
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, stateDir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, manifestName), old, 0o644); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	got, err := loadManifest(root)
	if err != nil || got.len() != 1 || len(got.Groups) != 0 || len(got.MessageIDs) != 0 {
		t.Fatalf("old manifest = %+v, %v", got, err)
	}
	b, _ := got.encode()
	if bytes.Contains(b, []byte("groups")) || bytes.Contains(b, []byte("message_ids")) {
		t.Errorf("an FTP manifest gained news keys:\n%s", b)
	}
}

func BenchmarkManifestEncode(b *testing.B) {
	m := &manifest{Version: 1, Source: "ftp://127.0.0.1:2121/pub/many/", Files: map[string]Record{}}
	for i := range 2000 {
		m.Files[fmt.Sprintf("f%04d.txt", i)] = Record{Size: 10, ModTime: time.Date(2001, 2, 3, 0, 0, 0, 0, time.UTC),
			SHA256: "3af2d771415d553cc34c090f6c8edc68afe55f89ac90298ed814977952ac416d",
			URL:    fmt.Sprintf("ftp://127.0.0.1:2121/pub/many/f%04d.txt;type=i", i)}
	}
	b.Run("encode", func(b *testing.B) {
		for b.Loop() {
			if _, err := m.encode(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("MarshalIndent", func(b *testing.B) {
		for b.Loop() {
			if _, err := json.MarshalIndent(m, "", "  "); err != nil {
				b.Fatal(err)
			}
		}
	})
}
