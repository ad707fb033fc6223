package mirror

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
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
	if !bytes.Contains(want, []byte(`\ufffd`)) && !bytes.Equal(got, want) {
		t.Fatalf("encode differs from MarshalIndent:\ngot  %q\nwant %q", got, want)
	}
	// Where a string is not UTF-8 (MarshalIndent writes U+FFFD for each
	// such byte), encoding/json reads the same from both.
	var a, b any
	if err := json.Unmarshal(got, &a); err != nil {
		t.Fatalf("the encoding does not parse: %v", err)
	}
	json.Unmarshal(want, &b)
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("encoding/json reads %v from encode, %v from MarshalIndent", a, b)
	}
	// And decodeManifest reads every string back byte for byte.
	back, err := decodeManifest(got)
	if err != nil {
		t.Fatalf("decodeManifest: %v", err)
	}
	if back.Source != m.Source || len(back.Files) != len(m.Files) || len(back.Groups) != len(m.Groups) || len(back.MessageIDs) != len(m.MessageIDs) {
		t.Fatalf("decoded %+v, was %+v", back, m)
	}
	for name, r := range m.Files {
		br, ok := back.Files[name]
		// RFC 3339 has no seconds in an offset: the time as written.
		mt, _ := time.Parse(time.RFC3339Nano, r.ModTime.Format(time.RFC3339Nano))
		if !ok || br.URL != r.URL || br.Link != r.Link || br.SHA256 != r.SHA256 || br.Size != r.Size || !br.ModTime.Equal(mt) {
			t.Fatalf("file %q decoded as %+v (%v), was %+v", name, br, ok, r)
		}
	}
	for name, g := range m.Groups {
		if back.Groups[name] != g {
			t.Fatalf("group %q decoded as %+v, was %+v", name, back.Groups[name], g)
		}
	}
	for id, rel := range m.MessageIDs {
		if back.MessageIDs[id] != rel {
			t.Fatalf("message ID %q decoded as %q, was %q", id, back.MessageIDs[id], rel)
		}
	}
}

// TestManifestBytes: names that are not UTF-8 (Latin-1, Shift JIS), and
// names that differ only in such a byte, are kept apart and come back
// byte for byte, written as PEP 383 escapes that Python reads as they
// are (json.loads, then os.fsencode).
func TestManifestBytes(t *testing.T) {
	m := &manifest{Version: 1, Source: "ftp://h/pub/", Files: map[string]Record{
		"caf\xe9.txt":               {Size: 1, SHA256: "a", URL: "ftp://h/pub/caf%E9.txt;type=i"},
		"caf\xe8.txt":               {Size: 2, SHA256: "b", URL: "ftp://h/pub/caf%E8.txt;type=i"},
		"d\xff/\x83e\x83X\x83g.txt": {Size: 3, SHA256: "c", URL: "u"},
		"link":                      {Size: -1, Link: "caf\xe9.txt", URL: "u"},
		"nul\x00e9":                 {URL: "\x00"},
	}}
	compareEncodings(t, m)
	b, _ := m.encode()
	for _, want := range []string{`"caf\udce9.txt": {`, `"caf\udce8.txt": {`, `"d\udcff/\udc83e\udc83X\udc83g.txt": {`, `"link": "caf\udce9.txt"`} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("the manifest lacks %s:\n%s", want, b)
		}
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
	got, err := loadManifest(root, true)
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

// TestReportJSONBytes: a path that is not UTF-8 is written in the JSON
// report as in the manifest (PEP 383 escapes), the other fields and every
// UTF-8 path as encoding/json writes them.
func TestReportJSONBytes(t *testing.T) {
	for _, c := range []struct {
		v    any
		want string
	}{
		{EntryReport{Path: "odd/caf\xe9.txt", URL: "ftp://h/odd/caf%E9.txt", Status: StatusFailed, Reason: "<550>", Bytes: 3},
			`{"path":"odd/caf\udce9.txt","url":"ftp://h/odd/caf%E9.txt","status":"failed","reason":"\u003c550\u003e","bytes":3}`},
		{EntryReport{Path: "café.txt", Status: StatusNew},
			`{"path":"café.txt","status":"new"}`},
		{Warning{Path: "d\xff", URL: "ftp://h/d%FF/", Kind: WarnUnparsed, Line: "x\xff", Message: "m"},
			`{"path":"d\udcff","url":"ftp://h/d%FF/","kind":"unparsed","line":"x\ufffd","message":"m"}`},
		{Warning{Path: "", URL: "u", Kind: WarnUnparsed, Message: "m"},
			`{"path":"","url":"u","kind":"unparsed","message":"m"}`},
	} {
		b, err := json.Marshal(c.v)
		if err != nil || string(b) != c.want {
			t.Errorf("%+v: %s, %v; want %s", c.v, b, err, c.want)
		}
	}
	// In a summary, through an Encoder as the command uses it.
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(&Summary{Entries: []EntryReport{{Path: "caf\xe9", Status: StatusNew}}}); err != nil || !strings.Contains(buf.String(), `"entries":[{"path":"caf\udce9","status":"new"}]`) {
		t.Errorf("summary: %s, %v", buf.String(), err)
	}
}

// A record put while a save waits in before (the Syncer's sync, with the
// manifest unlocked) is not in the copy being written: the manifest stays
// dirty, so that the next save writes it.
func TestManifestPutDuringSaveStaysDirty(t *testing.T) {
	root, err := os.OpenRoot(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	m := newManifest(false)
	m.put("a", Record{Size: 1, URL: "u"})
	before := func() error {
		m.put("b", Record{Size: 2, URL: "v"})
		return nil
	}
	if err := m.save(root, before); err != nil {
		t.Fatal(err)
	}
	if !m.dirty {
		t.Fatal("a record put during the save left the manifest clean: the next save would skip it")
	}
	if err := m.save(root, nil); err != nil {
		t.Fatal(err)
	}
	got, err := loadManifest(root, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := got.Files["b"]; !ok {
		t.Fatalf("manifest on disk = %v, want a and b", got.Files)
	}
}

// encode returns the manifest as the run writes it, without its final
// newline, as json.MarshalIndent writes it. The caller holds m.mu.
func (m *manifest) encode() ([]byte, error) {
	var buf bytes.Buffer
	if err := m.writeTo(&buf); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
