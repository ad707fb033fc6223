package warc_test

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	gowarc "github.com/nlnwa/gowarc/v2"

	"github.com/rfc1738/fetch/warc"
)

// TestGowarcReadsEveryRecord reads every record the writer makes back with
// gowarc (github.com/nlnwa/gowarc/v2), a WARC library of the field, in its
// strict mode: every mandatory field present and well formed (WARC 1.1
// sections 5.1 to 5.5: WARC-Record-ID, Content-Length, WARC-Date,
// WARC-Type), every block and payload digest recomputed, revisit,
// request/response, metadata and warcinfo records parsed as their types.
// The CI runs warcio (Webrecorder's reader) over files of every real server
// too (cmd/fetch's WARC tests); this reader is a second, independent one.
func TestGowarcReadsEveryRecord(t *testing.T) {
	dir := t.TempDir()
	w, err := warc.Create(warc.Options{Name: filepath.Join(dir, "g"), TempDir: dir, CommandLine: "fetch mirror ftp://h/"})
	if err != nil {
		t.Fatal(err)
	}
	meta := []byte("> RETR a\r\n< 226 done\r\n")
	capture(t, w, warc.Capture{URI: "ftp://h/a", IP: "127.0.0.1", ContentType: "text/plain", Metadata: meta, SizeHint: 5}, []byte("hello"))
	capture(t, w, warc.Capture{URI: "ftp://h/copy-of-a", IP: "127.0.0.1"}, []byte("hello")) // a revisit
	big := bytes.Repeat([]byte("0123456789"), 250_000)                                      // 2.5 MB: spooled
	capture(t, w, warc.Capture{URI: "ftp://h/big"}, big)
	capture(t, w, warc.Capture{URI: "ftp://h/empty"}, nil)
	// 100 KB in memory: compressed apart from its header (compressChunk);
	// 700 KB of text and random bytes, compressed in pieces as they come,
	// some stored.
	capture(t, w, warc.Capture{URI: "ftp://h/text", SizeHint: 100_000}, bytes.Repeat([]byte("9876543210"), 10_000))
	random := make([]byte, 300_000)
	rand.NewChaCha8([32]byte{5}).Read(random)
	mixed := slices.Concat(bytes.Repeat([]byte("gopher\r\n"), 30_000), random, bytes.Repeat([]byte("9876543210"), 15_000))
	capture(t, w, warc.Capture{URI: "ftp://h/mixed", SizeHint: int64(len(mixed))}, mixed)
	capture(t, w, warc.Capture{
		URI:          "http://h/page",
		IP:           "127.0.0.1",
		HTTPRequest:  []byte("GET /page HTTP/1.1\r\nHost: h\r\n\r\n"),
		HTTPResponse: []byte("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n"),
		HTTPStatus:   200,
		ContentType:  "text/html",
	}, []byte("<p>hi</p>"))
	capture(t, w, warc.Capture{
		URI:          "http://h/again",
		HTTPRequest:  []byte("GET /again HTTP/1.1\r\nHost: h\r\n\r\n"),
		HTTPResponse: []byte("HTTP/1.1 200 OK\r\n\r\n"),
		HTTPStatus:   200,
	}, []byte("<p>hi</p>")) // an HTTP revisit
	capture(t, w, warc.Capture{URI: "gopher://h/1/+", AsMetadata: true, ContentType: "text/x-gopher-plus-attributes"}, []byte("+INFO: 0hi\t/\th\t70\t+\r\n"))
	// A capture over the memory spool dropped: its spool file goes too.
	ab, err := w.Begin(warc.Capture{URI: "ftp://h/aborted"})
	if err != nil {
		t.Fatal(err)
	}
	ab.Write(big)
	ab.Abort()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "fetch-warc-*")); len(left) > 0 {
		t.Errorf("spool files left: %q", left)
	}

	r, err := gowarc.NewWarcFileReader(filepath.Join(dir, "g.warc.gz"), 0, gowarc.WithStrictValidation())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var got []string
	for i := 0; i < 100; i++ {
		rec, off, v, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("record at %d: %v", off, err)
		}
		raw, err := rec.Block().RawBytes()
		if err != nil {
			t.Fatal(err)
		}
		n, err := io.Copy(io.Discard, raw)
		if err != nil {
			t.Fatal(err)
		}
		if err := rec.ValidateDigest(v); err != nil || !v.Valid() {
			t.Errorf("%s record of %s at %d: %v %v", rec.Type(), rec.WarcHeader().Get(gowarc.WarcTargetURI), off, err, v)
		}
		if cl, _ := rec.ContentLength(); cl != n {
			t.Errorf("%s record at %d: Content-Length %d, block %d bytes", rec.Type(), off, cl, n)
		}
		got = append(got, rec.Type().String())
		rec.Close()
	}
	want := []string{"warcinfo", "resource", "metadata", "revisit", "resource", "resource", "resource", "resource", "request", "response", "request", "revisit", "metadata"}
	if !slices.Equal(got, want) {
		t.Errorf("record types\n got %q\nwant %q", got, want)
	}
}
