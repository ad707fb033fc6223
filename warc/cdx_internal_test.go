package warc

import (
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/uri"
)

// The CDXJ lines are built by hand (cdxEntry.line, appendSURT): these
// tests hold them to what encoding/json and net/url give, the plain
// implementation they replace, byte for byte.

// refSURT is SURT through net/url alone.
func refSURT(raw string) string {
	lower := strings.ToLower(raw)
	if !strings.HasPrefix(lower, "http:") && !strings.HasPrefix(lower, "https:") {
		return raw
	}
	u, err := url.Parse(lower)
	if err != nil || u.Host == "" {
		return raw
	}
	host := u.Hostname()
	if i := strings.IndexByte(host, '.'); i >= 3 && strings.HasPrefix(host, "www") && strings.Trim(host[3:i], "0123456789") == "" {
		host = host[i+1:]
	}
	labels := strings.Split(host, ".")
	for i, j := 0, len(labels)-1; i < j; i, j = i+1, j-1 {
		labels[i], labels[j] = labels[j], labels[i]
	}
	key := strings.Join(labels, ",")
	if p := u.Port(); p != "" && p != strconv.Itoa(uri.DefaultPort(u.Scheme)) {
		key += ":" + p
	}
	key += ")"
	if p := u.EscapedPath(); p != "" {
		key += p
	} else {
		key += "/"
	}
	if u.RawQuery != "" {
		args := strings.Split(u.RawQuery, "&")
		sort.Strings(args)
		key += "?" + strings.Join(args, "&")
	}
	return key
}

// refLine is a CDXJ line through encoding/json.
func refLine(e cdxEntry) string {
	j := cdxJSON{
		URL:      e.URI,
		Mime:     e.Mime,
		Digest:   strings.TrimPrefix(e.Digest, "sha1:"),
		Length:   strconv.FormatInt(e.Length, 10),
		Offset:   strconv.FormatInt(e.Offset, 10),
		Filename: e.File,
	}
	if e.Status != 0 {
		j.Status = strconv.Itoa(e.Status)
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(j)
	return refSURT(e.URI) + " " + e.Date.UTC().Format(cdxTimeFormat) + " " + strings.TrimSuffix(b.String(), "\n")
}

var surtSeeds = []string{
	"http://example.com/", "http://www.Example.com/A/b.html", "https://www2.example.com:8443/x?b=2&a=1",
	"http://example.com:80/", "http://127.0.0.1:8080/f", "http://example.com", "ftp://h/pub/a;type=i",
	"gopher://h:70/1/", "news:comp.lang.go", "http://[::1]:8080/a", "http://h/a b", "http://h/a%20b%2F",
	"http://h/a#frag", "http://h/?", "http://h?x=1", "http://h//x", "http://user@h/", "http:opaque",
	"HTTP://H/É", "http://h/a!$&'()*+,;=:@b", "http://h:/", "http://h/%zz", "http://a..b/", "http://www.h/",
	"http://www12.h/", "http://wwwx.h/", "https://h:443/", "http://h/a?c&b&a", "http://h/\"<>",
}

func TestSURTAsNetURL(t *testing.T) {
	for _, s := range surtSeeds {
		if got, want := SURT(s), refSURT(s); got != want {
			t.Errorf("SURT(%q) = %q, net/url gives %q", s, got, want)
		}
	}
}

// FuzzSURT: SURT gives the key net/url gives, for any input.
func FuzzSURT(f *testing.F) {
	for _, s := range surtSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := SURT(s), refSURT(s); got != want {
			t.Errorf("SURT(%q) = %q, net/url gives %q", s, got, want)
		}
	})
}

// FuzzCDXLine: a line is the line encoding/json gives, for any URL, type,
// digest, status and file name.
func FuzzCDXLine(f *testing.F) {
	f.Add("http://h/a?b=1", "text/html", "sha1:ABC", "w.warc.gz", 200, int64(1764050400))
	f.Add("ftp://h/\"q\\\x01\x7f\u2028\u2029\xff<&>", "", "", "", 0, int64(0))
	f.Add("gopher://h/1/\t\n\r\b\f", "x/y; charset=\"a\"", "sha1:", "a\"b", -1, int64(-62135596801))
	f.Fuzz(func(t *testing.T, uri, mime, digest, file string, status int, sec int64) {
		e := cdxEntry{URI: uri, Date: time.Unix(sec, 1), Mime: mime, Status: status,
			Digest: digest, File: file, Offset: 12, Length: 345}
		if got, want := string(e.appendLine(nil)), refLine(e); got != want {
			t.Errorf("line:\n%q\nencoding/json gives\n%q", got, want)
		}
	})
}

// hasPassword finds the password of a URL's user information (RFC 1738
// section 3.1: "//<user>:<password>@<host>") anywhere in a text, but not
// the redacted ones.
func TestHasPassword(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"ftp://u:secret@h/", true},
		{"fetch mirror ftp://u:secret@h/pub/ dir", true},
		{"fetch get\tgopher://h/ ftp://u:p@h", true},
		{"x://a://u:p@h", true},
		{"ftp://u@h/", false},
		{"ftp://u:xxxxx@h/", false},
		{"ftp://u:****@h/", false},
		{"ftp://h/a:b@c", false},
		{"http://h/?q=u:p@x", false},
		{"ftp://u:p@h/ ftp://v:xxxxx@h/", true},
		{"no url at all", false},
		{"", false},
	} {
		if got := hasPassword(tc.in); got != tc.want {
			t.Errorf("hasPassword(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// A stored gzip member (RFC 1952, RFC 1951 section 3.2.4) reads back as
// its data through compress/gzip, for no data, one block, a full block
// and several blocks, and one member follows another in a stream.
func TestStoredMember(t *testing.T) {
	var stream []byte
	var want []byte
	for _, n := range []int{0, 1, 700, 0xffff, 0xffff + 1, 3*0xffff + 17} {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(i*7 + n)
		}
		m := appendStoredMember(nil, data)
		r, err := gzip.NewReader(bytes.NewReader(m))
		if err != nil {
			t.Fatalf("%d bytes: %v", n, err)
		}
		r.Multistream(false)
		got, err := io.ReadAll(r)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("%d bytes: read %d bytes back, %v", n, len(got), err)
		}
		if rest, _ := io.ReadAll(r); len(rest) != 0 {
			t.Fatalf("%d bytes: %d more after the member", n, len(rest))
		}
		stream = append(stream, m...)
		want = append(want, data...)
	}
	r, err := gzip.NewReader(bytes.NewReader(stream))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := io.ReadAll(r); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("the members in a row: %d bytes, %v", len(got), err)
	}
}

// The memory budget of the captures waiting to be written: one capture
// goes through whatever its size; past maxPendingMem, the next waits
// until the writer has written enough.
func TestBudget(t *testing.T) {
	var b budget
	b.acquire(maxPendingMem * 2) // alone: let through
	got := make(chan struct{})
	go func() {
		b.acquire(1)
		close(got)
	}()
	select {
	case <-got:
		t.Fatal("acquired past the budget")
	case <-time.After(50 * time.Millisecond):
	}
	if !b.tight() {
		t.Error("a full budget is not tight")
	}
	b.release(maxPendingMem * 2)
	select {
	case <-got:
	case <-time.After(5 * time.Second):
		t.Fatal("still waiting after the release")
	}
	if b.tight() {
		t.Error("1 byte taken, and tight")
	}
}

// formatDate writes a WARC-Date (WARC 1.1 section 5.4, W3C-DTF) as
// time.RFC3339Nano does, in UTC, for any time.
func FuzzFormatDate(f *testing.F) {
	f.Add(int64(0), int64(0))
	f.Add(int64(1764050400), int64(123456789))
	f.Add(int64(1764050400), int64(120000000))
	f.Add(int64(-62135596801), int64(1))
	f.Add(int64(253402300800), int64(999999999))
	f.Fuzz(func(t *testing.T, sec, nsec int64) {
		tm := time.Unix(sec, nsec%1e9)
		if got, want := formatDate(tm), tm.UTC().Format(time.RFC3339Nano); got != want {
			t.Errorf("formatDate(%v) = %q, want %q", tm, got, want)
		}
	})
}

// Records written as stored gzip members (fileWriter.writeStored) read
// back, member by member at the offsets and lengths write reports, as
// the record serialised (WARC 1.1 section 4, annex D): a small one, one
// whose buffer must be written out first, and one longer than a stored
// block (a URI of 70,000 bytes) that takes several.
func TestWriteStored(t *testing.T) {
	fw := newFileWriter(&names{base: t.TempDir() + "/s"})
	if err := fw.open(); err != nil {
		t.Fatal(err)
	}
	path := fw.path
	var want [][]byte
	var places [][2]int64
	uris := []string{"http://127.0.0.1/a", strings.Repeat("x", 70000)}
	// Random blocks look incompressible: written as stored deflate
	// blocks, several for the larger ones.
	random := make([]byte, 1<<20)
	rand.NewChaCha8([32]byte{7}).Read(random)
	sizes := []int{1<<10 + 1, 65535, 65536, 2*65535 - 300, 200 << 10, 1 << 20}
	for i := range 120 + len(sizes) { // 120 records of about 700 bytes: more than the 64 KiB buffer
		uri := uris[0]
		if i == 60 {
			uri = uris[1]
		}
		rec := newRecord(TypeResource, "<urn:uuid:x>", "2026-11-25T00:00:00Z", nil)
		rec.add("WARC-Target-URI", uri)
		block := bytes.Repeat([]byte{byte('a' + i%26)}, 500+i)
		if i >= 120 {
			block = random[:sizes[i-120]]
		}
		rec.setBlock(block)
		b, err := rec.appendHeader(nil)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, append(append(b, block...), "\r\n\r\n"...))
		off, n, err := fw.write(rec)
		if err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		places = append(places, [2]int64{off, n})
	}
	checkMembers(t, fw, path, places, want)
}

// checkMembers closes fw, whose file is path, and checks that it holds
// one gzip member after the other at places (offset and length), the
// first at 0 and the last at its end, each reading back as want says.
func checkMembers(t *testing.T, fw *fileWriter, path string, places [][2]int64, want [][]byte) {
	t.Helper()
	if err := fw.close(); err != nil {
		t.Fatal(err)
	}
	file, err := os.ReadFile(strings.TrimSuffix(path, ".open"))
	if err != nil {
		t.Fatal(err)
	}
	next := int64(0)
	for i, p := range places {
		if p[0] != next {
			t.Fatalf("record %d at %d, want %d", i, p[0], next)
		}
		next = p[0] + p[1]
		r, err := gzip.NewReader(bytes.NewReader(file[p[0]:next]))
		if err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		r.Multistream(false)
		got, err := io.ReadAll(r)
		if err != nil || !bytes.Equal(got, want[i]) {
			t.Fatalf("record %d: %d bytes back (want %d), %v", i, len(got), len(want[i]), err)
		}
	}
	if next != int64(len(file)) {
		t.Errorf("%d bytes after the last record", int64(len(file))-next)
	}
}

// appendHeader refuses a field value with a CR or LF in it (WARC 1.1
// section 4: it would end the header early), whichever field holds it,
// and names the field; it counts the line ends of the whole header
// instead of looking at each value, so this holds it to that look.
func TestAppendHeaderLineBreak(t *testing.T) {
	for _, bad := range []string{"a\nb", "a\rb", "a\r\nb", "\n", "\r", "ab\r\n"} {
		for _, at := range []int{0, 1, 2} {
			rec := newRecord(TypeResource, "<urn:uuid:x>", "2026-11-25T00:00:00Z", nil)
			vals := []string{"http://h/a", "127.0.0.1", "text/plain"}
			vals[at] = bad
			rec.add("WARC-Target-URI", vals[0])
			rec.add("WARC-IP-Address", vals[1])
			rec.add("Content-Type", vals[2])
			b, err := rec.appendHeader([]byte("kept"))
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Field != rec.fields[3+at].name || fe.Value != bad {
				t.Errorf("value %q in field %d: %v, want an error naming %s", bad, at, err, rec.fields[3+at].name)
			}
			if string(b) != "kept" {
				t.Errorf("value %q in field %d: %q appended", bad, at, b)
			}
		}
	}
	rec := newRecord(TypeResource, "<urn:uuid:x>", "2026-11-25T00:00:00Z", nil)
	rec.add("WARC-Target-URI", "http://h/a\tb")
	rec.setBlock([]byte("x\r\ny\n"))
	b, err := rec.appendHeader(nil)
	want := "WARC/1.1\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:uuid:x>\r\nWARC-Date: 2026-11-25T00:00:00Z\r\nWARC-Target-URI: http://h/a\tb\r\nContent-Length: 5\r\n\r\n"
	if err != nil || string(b) != want {
		t.Errorf("appendHeader = %q, %v; want %q", b, err, want)
	}
}

// Digests are written "sha1:" and base32 (as web archives expect) and
// read back from CDXJ lines, with or without the prefix pywb leaves out.
func TestParseSHA1(t *testing.T) {
	sum := sha1Sum(sha1.Sum([]byte("abc")))
	s := string(appendSHA1(nil, sum))
	if s != "sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5" {
		t.Fatalf("appendSHA1 = %q", s)
	}
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{s, true},
		{"VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5", true},
		{"SHA1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5", true},
		{"sha1:vgmt4nsha2awvor6evyxqugcnsonbwe5", false}, // base32 is upper case
		{"sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE", false},
		{"sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE55", false},
		{"sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE1", false}, // 1 is not base32
		{"sha256:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5", false},
		{"", false},
	} {
		got, ok := parseSHA1(tc.in)
		if ok != tc.ok || ok && got != sum {
			t.Errorf("parseSHA1(%q) = %x, %v; want ok %v", tc.in, got, ok, tc.ok)
		}
	}
}

// AddressOf and Address find what NoteAddress noted for a host, whatever
// the case of its letters and the port (an FTP mirror dials a data
// connection to a new port for each file: one entry for the host).
func TestAddressOf(t *testing.T) {
	w := &Writer{}
	w.hosts.Store(&map[string]string{})
	w.NoteAddress("Example.COM:8080", "192.0.2.1")
	w.NoteAddress("ÉTÉ.example:80", "192.0.2.2")
	w.NoteAddress("[::1]:8080", "::1")
	for port := range 100 {
		w.NoteAddress("127.0.0.1:"+strconv.Itoa(20000+port), "127.0.0.1")
	}
	if n := len(*w.hosts.Load()); n != 4 {
		t.Errorf("%d hosts kept, want 4", n)
	}
	for _, tc := range []struct {
		host string
		want string
	}{
		{"example.com", "192.0.2.1"},
		{"EXAMPLE.com", "192.0.2.1"},
		{"example.org", ""},
		{"été.example", "192.0.2.2"},
		{"ÉTÉ.EXAMPLE", "192.0.2.2"},
		{"[::1]", "::1"},
		{"127.0.0.1", "127.0.0.1"},
		{strings.Repeat("a", 300), ""},
	} {
		if got := w.AddressOf(tc.host); got != tc.want {
			t.Errorf("AddressOf(%q) = %q, want %q", tc.host, got, tc.want)
		}
	}
	for _, hp := range []string{"EXAMPLE.COM:21", "example.com", "[::1]:80"} {
		if w.Address(hp) == "" {
			t.Errorf("Address(%q): none", hp)
		}
	}
}

// indexControl finds what strings.IndexFunc finds with the rune test it
// replaces (a control character other than HT, or DEL), on any bytes.
func FuzzIndexControl(f *testing.F) {
	for _, s := range []string{"", "http://h/a", "a\tb", "a\x00", "\x7f", "é\x85", "\xff\xfe\n", "ok\r\n"} {
		f.Add(s)
	}
	isControl := func(r rune) bool { return r < 0x20 && r != '\t' || r == 0x7f }
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := indexControl(s), strings.IndexFunc(s, isControl); got != want {
			t.Errorf("indexControl(%q) = %d, want %d", s, got, want)
		}
	})
}

// incompressible tells compressed or random bytes (stored, not
// compressed: level 1 would spend most of the record's cost on them) from
// text and machine code (compressed).
func TestIncompressible(t *testing.T) {
	random := make([]byte, 64<<10)
	rand.NewChaCha8([32]byte{1}).Read(random)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	words := strings.Fields("anonymous ftp archive of rfc files readme index gopher menu news article url scheme host port path")
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 { // text deflate shrinks to some 30 KB
		fmt.Fprintf(zw, "%s %d ", words[r.IntN(len(words))], r.IntN(100000))
	}
	zw.Close()
	code := make([]byte, 8<<10) // zeros, with a few opcodes
	for i := 0; i < len(code); i += 7 {
		code[i] = byte(0x48 + i%5)
	}
	head := []byte("HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n\r\n")
	for _, tc := range []struct {
		name string
		b    []byte
		want bool
	}{
		{"random", random, true},
		{"random after an HTTP header", append(append([]byte{}, head...), random[:8<<10]...), true},
		{"gzip", gz.Bytes(), true},
		{"text", bytes.Repeat([]byte("RFC 1738 Uniform Resource Locators, section 3.2.\n"), 200), false},
		{"machine code", code, false},
		{"random, short", random[:900], false},
		{"empty", nil, false},
	} {
		if got := incompressible(tc.b); got != tc.want {
			t.Errorf("%s (%d bytes): incompressible = %v, want %v", tc.name, len(tc.b), got, tc.want)
		}
	}
}

// A spool keeps in memory a payload of the size announced, with its HTTP
// header, when that fits spoolMem: a file of 1 MiB exactly, the most
// common size of a large test file, needs no temporary file for the
// header's last bytes. Past spoolMem the rest goes to a temporary file,
// and the block reads back whole.
func TestSpoolSizes(t *testing.T) {
	header := bytes.Repeat([]byte("h"), 300)
	for _, payload := range []int{0, 10, 700, 4 << 10, 10 << 10, 64 << 10, 1 << 20, spoolMem, spoolMem + 1, 3 << 20} {
		var s spool
		s.init(t.TempDir(), int(min(int64(payload+len(header)), spoolMem)))
		if payload+len(header) <= spoolMem && cap(s.mem) < payload+len(header) {
			t.Errorf("payload %d: buffer of %d bytes, want room for %d", payload, cap(s.mem), payload+len(header))
		}
		want := append(bytes.Clone(header), bytes.Repeat([]byte{'p'}, payload)...)
		s.Write(header)
		for p := want[len(header):]; len(p) > 0; {
			n := min(len(p), 32<<10)
			if _, err := s.Write(p[:n]); err != nil {
				t.Fatal(err)
			}
			p = p[n:]
		}
		if payload == 1<<20 && s.file != nil {
			t.Errorf("payload of 1 MiB: part of it in a temporary file")
		}
		if inFile := s.file != nil; inFile != (len(want) > spoolMem) {
			t.Errorf("payload %d: temporary file %v, want %v", payload, inFile, len(want) > spoolMem)
		}
		r, err := s.reader()
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(r)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("payload %d: read back %d bytes (%v), want %d", payload, len(got), err, len(want))
		}
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	}
}

// A block compressed apart (compressChunk, in pieces that end on a byte,
// by the capture's goroutines) is written in a gzip member whose start,
// the record's header, is stored blocks (writeDeflated): the member reads
// back whole, CRC and length checked, after records written the other
// ways and before more, also with a header longer than a stored block,
// pieces stored and compressed in one block, and pieces that end where
// the block does.
func TestWriteDeflated(t *testing.T) {
	fw := newFileWriter(&names{base: t.TempDir() + "/d"})
	if err := fw.open(); err != nil {
		t.Fatal(err)
	}
	path := fw.path
	text := bytes.Repeat([]byte("gopher menu line\tselector\thost\t70\r\n"), 3000)
	random := make([]byte, 64<<10)
	rand.NewChaCha8([32]byte{3}).Read(random)
	var want [][]byte
	var places [][2]int64
	mixed := append(append(bytes.Clone(text[:40000]), random...), text[:30000]...)
	const piece = 32 << 10
	for i, tc := range []struct {
		uri   string
		block []byte
	}{
		{"http://h/a", text},
		{"http://h/small", []byte("small")},
		{"http://h/" + strings.Repeat("x", 70000), text[:20000]},
		{"http://h/random", random},
		{"http://h/b", text[:asyncMin]},
		{"http://h/mixed", mixed},
		{"http://h/pieces", text[:2*piece]},
		{"http://h/empty", nil},
	} {
		rec := newRecord(TypeResource, "<urn:uuid:x>", "2026-11-25T00:00:00Z", nil)
		rec.add("WARC-Target-URI", tc.uri)
		rec.setBlock(tc.block)
		// In pieces, as a capture compresses its block (zChunk), of
		// text and of random bytes.
		rec.deflated = inPieces(tc.block, piece)
		deflated := !incompressible(tc.block) && tc.uri != "http://h/mixed"
		h, err := rec.appendHeader(nil)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, append(append(h, tc.block...), "\r\n\r\n"...))
		off, n, err := fw.write(rec)
		if err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		if deflated && n > int64(len(h)+len(tc.block)/3+64) {
			t.Errorf("record %d: %d bytes for a header of %d and a block of %d of text", i, n, len(h), len(tc.block))
		}
		places = append(places, [2]int64{off, n})
	}
	checkMembers(t, fw, path, places, want)
}

// Whatever the block and however it is cut into pieces (compressChunk),
// some compressed and some stored, the member writeDeflated makes reads
// back as the record: header, block, two CRLFs, with its CRC and length.
func FuzzWriteDeflated(f *testing.F) {
	random := make([]byte, 5000)
	rand.NewChaCha8([32]byte{1}).Read(random)
	f.Add([]byte("small"), uint16(1))
	f.Add(bytes.Repeat([]byte("text "), 3000), uint16(4096))
	f.Add(append(bytes.Repeat([]byte("a"), 3000), random...), uint16(2000))
	f.Add([]byte{}, uint16(0))
	f.Fuzz(func(t *testing.T, block []byte, cut uint16) {
		// To memory: the file is not what is tested.
		var file bytes.Buffer
		fw := newFileWriter(nil)
		fw.bw.Reset(&file)
		rec := newRecord(TypeResource, "<urn:uuid:x>", "2026-11-25T00:00:00Z", nil)
		rec.add("WARC-Target-URI", "http://h/z")
		rec.setBlock(block)
		// At most 64 pieces, of the size given.
		rec.deflated = inPieces(block, max(int(cut), len(block)/64+1))
		h, err := rec.appendHeader(nil)
		if err != nil {
			t.Fatal(err)
		}
		want := append(append(h, block...), crlf2...)
		off, size, err := fw.write(rec)
		if err != nil {
			t.Fatal(err)
		}
		if err := fw.bw.Flush(); err != nil {
			t.Fatal(err)
		}
		if off != 0 || size != int64(file.Len()) {
			t.Fatalf("member at %d, %d bytes, %d written", off, size, file.Len())
		}
		r, err := gzip.NewReader(&file)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(r)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%d bytes back (want %d), %v", len(got), len(want), err)
		}
	})
}

// inPieces makes block, and the two CRLFs that end a record, ready to be
// written in pieces of n bytes, as a capture does (compressChunk).
func inPieces(block []byte, n int) []piece {
	var ps []piece
	for len(block) > n {
		ps = append(ps, compressChunk(block[:n], nil, false))
		block = block[n:]
	}
	return append(ps, compressChunk(block, crlf2, true))
}
