package warc_test

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base32"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/internal/testrig/warctest"
	"github.com/rfc1738/fetch/warc"
)

// capture writes one capture of payload through w.
func capture(t *testing.T, w *warc.Writer, c warc.Capture, payload []byte) {
	t.Helper()
	r, err := w.Begin(c)
	if err != nil {
		t.Fatal(err)
	}
	// In pieces, as a body arrives.
	for p := payload; len(p) > 0; {
		n := min(len(p), 7)
		if _, err := r.Write(p[:n]); err != nil {
			t.Fatal(err)
		}
		p = p[n:]
	}
	if err := r.Commit(); err != nil {
		t.Fatal(err)
	}
}

func types(recs []warctest.Record) []string {
	var out []string
	for _, r := range recs {
		out = append(out, r.Get("WARC-Type"))
	}
	return out
}

func TestWriterRecords(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "a")
	w, err := warc.Create(warc.Options{Name: name, CDX: true, Software: "fetch test", CommandLine: "fetch mirror --warc-file a ftp://u:xxxxx@h/"})
	if err != nil {
		t.Fatal(err)
	}
	date := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<17) // 2 MiB: spooled to disk
	capture(t, w, warc.Capture{URI: "ftp://h/pub/big.bin", Date: date, IP: "127.0.0.1",
		Metadata: []byte("> RETR big.bin\n< 150 ok\n")}, big)
	capture(t, w, warc.Capture{URI: "ftp://h/pub/copy.bin", Date: date, IP: "127.0.0.1"}, big) // revisit
	capture(t, w, warc.Capture{URI: "ftp://h/pub/big.bin", Date: date, IP: "127.0.0.1"}, big)  // nothing: same URI, same payload
	capture(t, w, warc.Capture{URI: "gopher://h/1/", Date: date, ContentType: "text/x-gopher-menu"}, []byte("iinfo\t\terror.host\t1\r\n"))
	capture(t, w, warc.Capture{URI: "http://www.Example.com/a?b=1&a=2", Date: date, IP: "::1",
		HTTPRequest:  []byte("GET /a?b=1&a=2 HTTP/1.1\r\nHost: www.example.com\r\n\r\n"),
		HTTPResponse: []byte("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n"),
		HTTPStatus:   200, ContentType: "text/plain"}, []byte("hello\n"))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got := w.Files(); !slices.Equal(got, []string{name + ".warc.gz"}) {
		t.Fatalf("Files() = %q", got)
	}
	recs := warctest.Read(t, name+".warc.gz")
	want := []string{"warcinfo", "resource", "metadata", "revisit", "resource", "request", "response"}
	if got := types(recs); !slices.Equal(got, want) {
		t.Fatalf("record types %q, want %q", got, want)
	}
	warctest.CheckDigests(t, recs)
	info := string(recs[0].Block)
	if !strings.Contains(info, "software: fetch test") || !strings.Contains(info, "--warc-file a") {
		t.Errorf("warcinfo block %q", info)
	}
	if !bytes.Equal(recs[1].Block, big) || recs[1].Get("Content-Type") != "application/octet-stream" || recs[1].Get("WARC-IP-Address") != "127.0.0.1" {
		t.Errorf("resource: %d bytes, header %v", len(recs[1].Block), recs[1].Header)
	}
	if recs[1].Get("WARC-Date") != "2024-05-06T07:08:09Z" {
		t.Errorf("WARC-Date %q", recs[1].Get("WARC-Date"))
	}
	if recs[2].Get("WARC-Concurrent-To") != recs[1].Get("WARC-Record-ID") {
		t.Errorf("metadata concurrent to %q, resource is %q", recs[2].Get("WARC-Concurrent-To"), recs[1].Get("WARC-Record-ID"))
	}
	rv := recs[3]
	if rv.Get("WARC-Refers-To-Target-URI") != "ftp://h/pub/big.bin" || rv.Get("WARC-Refers-To-Date") != "2024-05-06T07:08:09Z" || len(rv.Block) != 0 {
		t.Errorf("revisit header %v, %d bytes", rv.Header, len(rv.Block))
	}
	if rv.Get("WARC-Payload-Digest") != recs[1].Get("WARC-Payload-Digest") {
		t.Errorf("revisit payload digest %q, original %q", rv.Get("WARC-Payload-Digest"), recs[1].Get("WARC-Payload-Digest"))
	}
	if recs[4].Get("Content-Type") != "text/x-gopher-menu" {
		t.Errorf("menu Content-Type %q", recs[4].Get("Content-Type"))
	}
	rq, rs := recs[5], recs[6]
	if rq.Get("WARC-Concurrent-To") != rs.Get("WARC-Record-ID") || rs.Get("WARC-Concurrent-To") != rq.Get("WARC-Record-ID") {
		t.Errorf("request and response not linked: %v / %v", rq.Header, rs.Header)
	}
	if string(warctest.Payload(rs)) != "hello\n" || !strings.HasPrefix(string(rq.Block), "GET /a?b=1&a=2 HTTP/1.1\r\n") {
		t.Errorf("response payload %q, request %q", warctest.Payload(rs), rq.Block)
	}

	// The index: one line per resource, response and revisit, sorted,
	// each pointing at its gzip member.
	idx, err := os.ReadFile(name + ".cdxj")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(idx), "\n"), "\n")
	if len(lines) != 4 || !slices.IsSorted(lines) {
		t.Fatalf("index:\n%s", idx)
	}
	offsets := map[int64]warctest.Record{}
	for _, r := range recs {
		offsets[r.Offset] = r
	}
	for _, l := range lines {
		e, ok, err := warc.ParseIndexLine(l)
		if err != nil || !ok {
			t.Fatalf("index line %q: %v", l, err)
		}
		var off, length int64
		for _, f := range []struct {
			key string
			p   *int64
		}{{`"offset":"`, &off}, {`"length":"`, &length}} {
			_, rest, _ := strings.Cut(l, f.key)
			v, _, _ := strings.Cut(rest, `"`)
			if _, err := fmtSscan(v, f.p); err != nil {
				t.Fatalf("index line %q: %s: %v", l, f.key, err)
			}
		}
		r, ok := offsets[off]
		if !ok || r.Length != length || r.Get("WARC-Target-URI") != e.URL || r.Get("WARC-Payload-Digest") != e.Digest {
			t.Errorf("index line %q does not match the record at %d (%v)", l, off, r.Header)
		}
	}
	if !strings.HasPrefix(lines[0], "com,example)/a?a=2&b=1 20240506070809 ") {
		t.Errorf("first line %q", lines[0])
	}
}

func TestRotation(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "r")
	w, err := warc.Create(warc.Options{Name: name, MaxSize: 4 << 10, CDX: true})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 6 {
		// Incompressible enough: 3 KiB of varied bytes.
		p := make([]byte, 3<<10)
		for j := range p {
			p[j] = byte((j*j + i*7919) >> 3)
		}
		capture(t, w, warc.Capture{URI: "ftp://h/f" + string(rune('a'+i))}, p)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	files := w.Files()
	if len(files) < 2 || files[0] != name+"-00001.warc.gz" || files[1] != name+"-00002.warc.gz" {
		t.Fatalf("files %q", files)
	}
	n := 0
	for _, f := range files {
		recs := warctest.Read(t, f)
		if recs[0].Get("WARC-Type") != "warcinfo" || recs[0].Get("WARC-Filename") != filepath.Base(f) {
			t.Errorf("%s starts with %v", f, recs[0].Header)
		}
		warctest.CheckDigests(t, recs)
		n += len(recs) - 1
		// Each file's index points at its resource records' gzip
		// members, the last one of the file included.
		var members []string
		for _, r := range recs {
			if r.Get("WARC-Type") == "resource" {
				members = append(members, fmt.Sprintf(`"length":"%d","offset":"%d"`, r.Length, r.Offset))
			}
		}
		idx, err := os.ReadFile(strings.TrimSuffix(f, ".warc.gz") + ".cdxj")
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(string(idx), "\n"), "\n")
		if len(lines) != len(recs)-1 {
			t.Errorf("%s: %d index lines for %d records", f, len(lines), len(recs)-1)
		}
		for _, l := range lines {
			if !slices.ContainsFunc(members, func(m string) bool { return strings.Contains(l, m) }) {
				t.Errorf("%s: index line %q points at no resource record", f, l)
			}
		}
	}
	if n != 6 {
		t.Errorf("%d records in all, want 6", n)
	}
}

func TestNameTaken(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "a")
	if err := os.WriteFile(name+".warc.gz", []byte("earlier"), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := warc.Create(warc.Options{Name: name})
	if err != nil {
		t.Fatal(err)
	}
	capture(t, w, warc.Capture{URI: "ftp://h/x"}, []byte("x"))
	w.Close()
	if got := w.Files(); !slices.Equal(got, []string{name + "-00001.warc.gz"}) {
		t.Fatalf("files %q", got)
	}
	if b, _ := os.ReadFile(name + ".warc.gz"); string(b) != "earlier" {
		t.Errorf("the earlier file was overwritten")
	}
}

// TestDedupAcrossRuns: the second run reads the first one's index (its own
// name's, and one given in Dedup): an unchanged capture writes nothing, a
// copy under another name is a revisit.
func TestDedupAcrossRuns(t *testing.T) {
	dir := t.TempDir()
	first := filepath.Join(dir, "one")
	w, err := warc.Create(warc.Options{Name: first, CDX: true})
	if err != nil {
		t.Fatal(err)
	}
	capture(t, w, warc.Capture{URI: "ftp://h/a.txt"}, []byte("same bytes"))
	w.Close()

	for _, tc := range []struct {
		name  string
		opts  warc.Options
		files []string
	}{
		{"same name", warc.Options{Name: first}, []string{first + "-00001.warc.gz"}},
		{"dedup index", warc.Options{Name: filepath.Join(dir, "two"), Dedup: []string{first + ".cdxj"}}, []string{filepath.Join(dir, "two.warc.gz")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, err := warc.Create(tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			capture(t, w, warc.Capture{URI: "ftp://h/a.txt"}, []byte("same bytes"))
			if got := w.Files(); len(got) != 0 {
				t.Errorf("an unchanged capture wrote %q", got)
			}
			capture(t, w, warc.Capture{URI: "ftp://h/copy.txt"}, []byte("same bytes"))
			w.Close()
			if got := w.Files(); !slices.Equal(got, tc.files) {
				t.Fatalf("files %q, want %q", got, tc.files)
			}
			recs := warctest.Read(t, tc.files[0])
			if got := types(recs); !slices.Equal(got, []string{"warcinfo", "revisit"}) {
				t.Fatalf("types %q", got)
			}
			if recs[1].Get("WARC-Refers-To-Target-URI") != "ftp://h/a.txt" {
				t.Errorf("revisit refers to %q", recs[1].Get("WARC-Refers-To-Target-URI"))
			}
			warctest.CheckDigests(t, append(warctest.Read(t, first+".warc.gz"), recs...))
		})
	}
}

// TestKnown: a mirror's manifest (URL and SHA-256 of each file).
func TestKnown(t *testing.T) {
	dir := t.TempDir()
	w, err := warc.Create(warc.Options{Name: filepath.Join(dir, "k")})
	if err != nil {
		t.Fatal(err)
	}
	// SHA-256 of "abc" (FIPS 180-2 appendix B.1).
	w.Known("ftp://h/abc.txt", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
	capture(t, w, warc.Capture{URI: "ftp://h/abc.txt"}, []byte("abc"))
	capture(t, w, warc.Capture{URI: "ftp://h/other.txt"}, []byte("abc"))
	capture(t, w, warc.Capture{URI: "ftp://h/new.txt"}, []byte("abcd"))
	w.Close()
	recs := warctest.Read(t, w.Files()[0])
	if got := types(recs); !slices.Equal(got, []string{"warcinfo", "revisit", "resource"}) {
		t.Fatalf("types %q", got)
	}
	if recs[1].Get("WARC-Refers-To-Target-URI") != "ftp://h/abc.txt" || recs[1].Get("WARC-Target-URI") != "ftp://h/other.txt" {
		t.Errorf("revisit %v", recs[1].Header)
	}
}

func TestPasswordRefused(t *testing.T) {
	dir := t.TempDir()
	_, err := warc.Create(warc.Options{Name: filepath.Join(dir, "p"), CommandLine: "fetch get --warc-file p ftp://user:secret@h/"})
	if !errors.Is(err, warc.ErrPassword) {
		t.Errorf("Create with a password in the command line: %v", err)
	}
	w, err := warc.Create(warc.Options{Name: filepath.Join(dir, "p"), CommandLine: "fetch get ftp://user:xxxxx@h/ http://h/?a=b:c@d"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.Begin(warc.Capture{URI: "ftp://user:secret@h/x"}); !errors.Is(err, warc.ErrPassword) {
		t.Errorf("Begin with a password in the URI: %v", err)
	}
}

func TestAbort(t *testing.T) {
	dir := t.TempDir()
	w, err := warc.Create(warc.Options{Name: filepath.Join(dir, "x")})
	if err != nil {
		t.Fatal(err)
	}
	r, err := w.Begin(warc.Capture{URI: "ftp://h/x"})
	if err != nil {
		t.Fatal(err)
	}
	r.Write([]byte("partial"))
	r.Abort()
	if err := r.Commit(); err == nil {
		t.Error("Commit after Abort succeeded")
	}
	w.Close()
	if got := w.Files(); len(got) != 0 {
		t.Errorf("an aborted capture wrote %q", got)
	}
}

// TestDropped: Dropped counts the URIs whose last capture was aborted (a
// transfer tried again that came whole is archived), each once, and names
// them in order, at most 20.
func TestDropped(t *testing.T) {
	w, err := warc.Create(warc.Options{Name: filepath.Join(t.TempDir(), "x")})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	capture := func(uri string, commit bool) {
		t.Helper()
		r, err := w.Begin(warc.Capture{URI: uri})
		if err != nil {
			t.Fatal(err)
		}
		r.Write([]byte("bytes of " + uri))
		if !commit {
			r.Abort()
		} else if err := r.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	if n, uris := w.Dropped(); n != 0 || len(uris) != 0 {
		t.Errorf("before any capture: %d, %q", n, uris)
	}
	capture("ftp://h/b", false)
	capture("ftp://h/a", false)
	capture("ftp://h/b", false) // tried again, cut again
	capture("ftp://h/c", true)
	if n, uris := w.Dropped(); n != 2 || !slices.Equal(uris, []string{"ftp://h/a", "ftp://h/b"}) {
		t.Errorf("two URIs dropped: %d, %q", n, uris)
	}
	capture("ftp://h/b", true) // and the third attempt came whole
	if n, uris := w.Dropped(); n != 1 || !slices.Equal(uris, []string{"ftp://h/a"}) {
		t.Errorf("b archived at last: %d, %q", n, uris)
	}
	capture("ftp://h/b", false) // the last attempt decides
	for i := range 30 {
		capture(fmt.Sprintf("ftp://h/many/%02d", i), false)
	}
	n, uris := w.Dropped()
	if n != 32 || len(uris) != 20 || uris[0] != "ftp://h/a" || uris[1] != "ftp://h/b" || uris[19] != "ftp://h/many/17" {
		t.Errorf("32 dropped: %d, %q", n, uris)
	}
}

func TestCreateErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.cdxj")
	os.WriteFile(bad, []byte("key 2024 {\"url\":\"ftp://h/\"}\nkey notatime {}\n"), 0o644)
	for _, tc := range []struct {
		name string
		opts warc.Options
	}{
		{"no name", warc.Options{}},
		{"no directory", warc.Options{Name: filepath.Join(dir, "missing", "a")}},
		{"missing index", warc.Options{Name: filepath.Join(dir, "a"), Dedup: []string{filepath.Join(dir, "none.cdxj")}}},
		{"bad index", warc.Options{Name: filepath.Join(dir, "a"), Dedup: []string{bad}}},
	} {
		if _, err := warc.Create(tc.opts); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
	_, err := warc.Create(warc.Options{Name: filepath.Join(dir, "a"), Dedup: []string{bad}})
	var ie *warc.IndexError
	if !errors.As(err, &ie) || ie.Line != 2 {
		t.Errorf("bad index: %v, want an IndexError at line 2", err)
	}
}

// A header field value with a line break would end the record's header
// early and let a server write header fields of its own (WARC 1.1
// section 4): Begin refuses it, naming the field, and nothing is written.
func TestHeaderInjectionRefused(t *testing.T) {
	dir := t.TempDir()
	w, err := warc.Create(warc.Options{Name: filepath.Join(dir, "i")})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		c     warc.Capture
		field string
		at    int
	}{
		{warc.Capture{URI: "ftp://h/x", ContentType: "text/plain\r\nWARC-Type: revisit"}, "ContentType", 10},
		{warc.Capture{URI: "ftp://h/x\nWARC-Type: revisit"}, "URI", 9},
		{warc.Capture{URI: "ftp://h/x", IP: "127.0.0.1\r"}, "IP", 9},
		{warc.Capture{URI: "ftp://h/x", MetadataType: "text/plain\x00"}, "MetadataType", 10},
	} {
		_, err := w.Begin(tt.c)
		var fe *warc.FieldError
		if !errors.As(err, &fe) || fe.Field != tt.field || fe.At != tt.at {
			t.Errorf("Begin(%+v): %v, want a *FieldError for %s at byte %d", tt.c, err, tt.field, tt.at)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got := w.Files(); len(got) != 0 {
		t.Errorf("refused captures wrote %q", got)
	}
}

// SizeHint only sizes a buffer: a payload longer (or shorter) than
// announced is recorded whole, with its own length and digest.
func TestSizeHintWrong(t *testing.T) {
	dir := t.TempDir()
	w, err := warc.Create(warc.Options{Name: filepath.Join(dir, "h"), TempDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	long := bytes.Repeat([]byte("0123456789abcdef"), 4096) // 64 KiB
	capture(t, w, warc.Capture{URI: "ftp://h/long", SizeHint: 10}, long)
	capture(t, w, warc.Capture{URI: "ftp://h/short", SizeHint: 5000}, []byte("short"))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	recs := warctest.Read(t, filepath.Join(dir, "h.warc.gz"))
	got := map[string][]byte{}
	for _, r := range recs {
		if r.Get("WARC-Type") == "resource" {
			got[r.Get("WARC-Target-URI")] = r.Block
		}
	}
	if !bytes.Equal(got["ftp://h/long"], long) || string(got["ftp://h/short"]) != "short" {
		t.Errorf("payloads: long %d bytes, short %q", len(got["ftp://h/long"]), got["ftp://h/short"])
	}
}

// Sync puts every committed capture in the file (still NAME.warc.gz.open)
// before it returns: what a mirror's manifest lists is there even if the
// process is killed before Close.
func TestSync(t *testing.T) {
	dir := t.TempDir()
	w, err := warc.Create(warc.Options{Name: filepath.Join(dir, "s")})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		capture(t, w, warc.Capture{URI: fmt.Sprintf("ftp://h/f%d", i), Metadata: []byte("> RETR\n")}, []byte(fmt.Sprint("payload ", i)))
	}
	if err := w.Sync(); err != nil {
		t.Fatal(err)
	}
	recs := warctest.Read(t, filepath.Join(dir, "s.warc.gz.open"))
	if got := types(recs); len(got) != 11 {
		t.Errorf("after Sync the open file holds %q, want warcinfo and 5 resource and metadata pairs", got)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Sync(); err == nil {
		t.Error("Sync after Close succeeded")
	}
}

// Sync while captures are written and the files rotate: no error, no
// race (go test -race), and every capture in the files.
func TestSyncDuringRotation(t *testing.T) {
	dir := t.TempDir()
	w, err := warc.Create(warc.Options{Name: filepath.Join(dir, "r"), MaxSize: 2000})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	errs := make(chan error, 1)
	go func() {
		defer close(errs)
		for {
			select {
			case <-done:
				return
			default:
			}
			if err := w.Sync(); err != nil {
				errs <- err
				return
			}
		}
	}()
	for i := range 200 {
		capture(t, w, warc.Capture{URI: fmt.Sprintf("ftp://h/f%d", i)}, []byte(fmt.Sprintf("payload %d %s", i, strings.Repeat("x", 300))))
	}
	close(done)
	if err := <-errs; err != nil {
		t.Errorf("Sync: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range w.Files() {
		for _, r := range warctest.Read(t, f) {
			if r.Get("WARC-Type") == "resource" {
				n++
			}
		}
	}
	if n != 200 || len(w.Files()) < 10 {
		t.Errorf("%d resource records in %d files, want 200 in many", n, len(w.Files()))
	}
}

// Deduplication keeps one record of a payload per URI: a payload met again
// at the URI of its first capture, or at a URI where it was revisited, adds
// nothing; at a new URI it is a revisit; another payload at a URI is a
// record of its own.
func TestDedupRepeats(t *testing.T) {
	name := filepath.Join(t.TempDir(), "d")
	w, err := warc.Create(warc.Options{Name: name, CDX: true})
	if err != nil {
		t.Fatal(err)
	}
	p, q := []byte("payload p\n"), []byte("payload q\n")
	for _, c := range []struct {
		uri     string
		payload []byte
	}{
		{"ftp://h/u1", p}, // resource
		{"ftp://h/u2", p}, // revisit
		{"ftp://h/u2", p}, // nothing
		{"ftp://h/u1", p}, // nothing
		{"ftp://h/u3", p}, // revisit
		{"ftp://h/u1", q}, // resource
		{"ftp://h/u1", p}, // nothing
		{"ftp://h/u3", p}, // nothing
	} {
		capture(t, w, warc.Capture{URI: c.uri}, c.payload)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	recs := warctest.Read(t, name+".warc.gz")
	var got []string
	for _, r := range recs[1:] {
		got = append(got, r.Get("WARC-Type")+" "+r.Get("WARC-Target-URI"))
	}
	want := []string{"resource ftp://h/u1", "revisit ftp://h/u2", "revisit ftp://h/u3", "resource ftp://h/u1"}
	if !slices.Equal(got, want) {
		t.Fatalf("records %q, want %q", got, want)
	}
	for _, r := range recs[2:4] {
		if r.Get("WARC-Refers-To-Target-URI") != "ftp://h/u1" {
			t.Errorf("%s refers to %q", r.Get("WARC-Target-URI"), r.Get("WARC-Refers-To-Target-URI"))
		}
	}
	warctest.CheckDigests(t, recs)
}

// Write after Commit is refused: the capture belongs to the writer then.
func TestWriteAfterCommit(t *testing.T) {
	w, err := warc.Create(warc.Options{Name: filepath.Join(t.TempDir(), "c")})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	r, err := w.Begin(warc.Capture{URI: "ftp://h/x"})
	if err != nil {
		t.Fatal(err)
	}
	r.Write([]byte("abc"))
	want := r.Digest()
	if err := r.Commit(); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Write([]byte("more")); err == nil {
		t.Error("Write after Commit: no error")
	}
	if got := r.Digest(); got != want || got != "sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5" {
		t.Errorf("Digest after Commit %q, before %q", got, want)
	}
	// The block of a chunked HTTP body, likewise.
	f, err := w.Begin(warc.Capture{URI: "http://h/x", HTTPRequest: []byte("GET /x HTTP/1.1\r\n\r\n"),
		HTTPResponse: []byte("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"), HTTPFramed: true})
	if err != nil {
		t.Fatal(err)
	}
	f.WriteBlock([]byte("3\r\nabc\r\n0\r\n\r\n"))
	f.Write([]byte("abc"))
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteBlock([]byte("more")); err == nil {
		t.Error("WriteBlock after Commit: no error")
	}
}

// A block that looks incompressible (random bytes, 200 KiB: past the
// first MiB's spool too, with a 1.2 MiB one) is written as stored deflate
// blocks and reads back whole, its digests recomputed, beside a
// compressible one.
func TestIncompressibleRecords(t *testing.T) {
	name := filepath.Join(t.TempDir(), "i")
	w, err := warc.Create(warc.Options{Name: name, CDX: true})
	if err != nil {
		t.Fatal(err)
	}
	random := make([]byte, 1200<<10)
	rand.NewChaCha8([32]byte{9}).Read(random)
	text := bytes.Repeat([]byte("gopher menu line\tselector\thost\t70\r\n"), 6000)
	payloads := [][]byte{random[:200<<10], text, random}
	for i, p := range payloads {
		capture(t, w, warc.Capture{URI: fmt.Sprintf("http://h/%d", i),
			HTTPRequest:  []byte(fmt.Sprintf("GET /%d HTTP/1.1\r\nHost: h\r\n\r\n", i)),
			HTTPResponse: []byte("HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n\r\n"),
			HTTPStatus:   200, SizeHint: int64(len(p))}, p)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	recs := warctest.Read(t, name+".warc.gz")
	warctest.CheckDigests(t, recs)
	var got [][]byte
	for _, r := range recs {
		if r.Get("WARC-Type") == "response" {
			got = append(got, warctest.Payload(r))
		}
	}
	if len(got) != len(payloads) {
		t.Fatalf("%d responses, want %d", len(got), len(payloads))
	}
	for i := range payloads {
		if !bytes.Equal(got[i], payloads[i]) {
			t.Errorf("payload %d: %d bytes back, want %d", i, len(got[i]), len(payloads[i]))
		}
	}
	st, err := os.Stat(name + ".warc.gz")
	if err != nil {
		t.Fatal(err)
	}
	if max := int64(len(random) + 200<<10 + len(text)/4); st.Size() > max {
		t.Errorf("file of %d bytes: the text was not compressed (at most %d)", st.Size(), max)
	}
}

// The digests of a capture are computed by the writer's goroutine from the
// spool's memory, or, for a payload that outgrows it (1 MiB and 4 KiB with
// the HTTP header), summed as the bytes pass from the moment it does: each
// way, every digest is that of the bytes written, whatever the pieces they
// came in, for a resource and for an HTTP response; Digest gives the
// payload's before and after Commit; and the SHA-256 of a manifest's file
// (Known) still finds its copy under another name.
func TestLazyDigests(t *testing.T) {
	random := make([]byte, 3<<20+4096)
	rand.NewChaCha8([32]byte{4}).Read(random)
	name := filepath.Join(t.TempDir(), "l")
	w, err := warc.Create(warc.Options{Name: name})
	if err != nil {
		t.Fatal(err)
	}
	header := []byte("HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n\r\n")
	// What a spool holds in memory (spoolMem): the block (the HTTP
	// header, then the payload) of that length, and one byte more.
	const mem = 1<<20 + 4<<10
	sizes := []int{0, 1, 1 << 20, mem - len(header), mem - len(header) + 1, mem, mem + 1, 3 << 20}
	want := map[string]string{}
	n := 0
	for _, size := range sizes {
		for _, http := range []bool{false, true} {
			for _, piece := range []int{4093, 64 << 10} {
				n++
				// From a place of its own: no payload is another's.
				payload := random[n : n+size]
				uri := fmt.Sprintf("ftp://h/%d-%d-%d", size, piece, n)
				c := warc.Capture{URI: uri, SizeHint: int64(len(payload))}
				if http {
					uri = strings.Replace(uri, "ftp:", "http:", 1)
					c = warc.Capture{URI: uri, HTTPRequest: []byte("GET / HTTP/1.1\r\n\r\n"), HTTPResponse: header, HTTPStatus: 200, SizeHint: c.SizeHint}
				}
				r, err := w.Begin(c)
				if err != nil {
					t.Fatal(err)
				}
				for p := payload; len(p) > 0; {
					k := min(len(p), piece)
					if _, err := r.Write(p[:k]); err != nil {
						t.Fatal(err)
					}
					p = p[k:]
				}
				sum := sha1.Sum(payload)
				want[uri] = "sha1:" + base32.StdEncoding.EncodeToString(sum[:])
				if got := r.Digest(); got != want[uri] {
					t.Errorf("%s: Digest before Commit %s, want %s", uri, got, want[uri])
				}
				if err := r.Commit(); err != nil {
					t.Fatal(err)
				}
				if got := r.Digest(); got != want[uri] {
					t.Errorf("%s: Digest after Commit %s, want %s", uri, got, want[uri])
				}
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	recs := warctest.Read(t, name+".warc.gz")
	warctest.CheckDigests(t, recs)
	found := 0
	for _, r := range recs {
		if d, ok := want[r.Get("WARC-Target-URI")]; ok && r.Get("WARC-Type") != "request" {
			found++
			if r.Get("WARC-Payload-Digest") != d {
				t.Errorf("%s: payload digest %s, want %s", r.Get("WARC-Target-URI"), r.Get("WARC-Payload-Digest"), d)
			}
		}
	}
	if found != n {
		t.Errorf("%d records of captures, want %d", found, n)
	}

	// A file the manifest lists (by SHA-256), captured under another
	// name: a revisit, whether its digests were computed from memory or
	// as the bytes passed.
	for _, size := range []int{100, 2 << 20} {
		dir := t.TempDir()
		w, err := warc.Create(warc.Options{Name: filepath.Join(dir, "k")})
		if err != nil {
			t.Fatal(err)
		}
		w.Known("ftp://h/old", fmt.Sprintf("%x", sha256.Sum256(random[:size])))
		capture(t, w, warc.Capture{URI: "ftp://h/new", SizeHint: int64(size)}, random[:size])
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		recs := warctest.Read(t, filepath.Join(dir, "k.warc.gz"))
		if got := types(recs); !slices.Equal(got, []string{"warcinfo", "revisit"}) {
			t.Errorf("size %d: records %v, want a revisit", size, got)
		}
	}
}
