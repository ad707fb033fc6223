package warc_test

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rfc1738/fetch/warc"
)

// BenchmarkSmallCaptures: the cost of archiving one small FTP file (a
// resource and a metadata record), as in a mirror of many small files.
func BenchmarkSmallCaptures(b *testing.B) {
	meta := []byte("> CWD /pub/many\n< 250 ok\n> EPSV\n< 229 Entering Extended Passive Mode (|||22223|)\n> RETR f\n< 150 here\n< 226 done\n")
	benchCaptures(b, func(i int) warc.Capture {
		return warc.Capture{URI: "ftp://127.0.0.1/pub/many/f" + strconv.Itoa(i), IP: "127.0.0.1", Metadata: meta}
	})
}

// BenchmarkSmallHTTPCaptures: the cost of archiving one small HTTP
// response (a request and a response record, with the CDXJ line), as in a
// mirror of many small files from a web server.
func BenchmarkSmallHTTPCaptures(b *testing.B) {
	req := []byte("GET /pub/many/f0001.txt HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUser-Agent: fetch\r\n\r\n")
	resp := []byte("HTTP/1.1 200 OK\r\nServer: nginx\r\nDate: Wed, 25 Nov 2026 06:00:00 GMT\r\nContent-Type: text/plain\r\nContent-Length: 700\r\nLast-Modified: Wed, 25 Nov 2026 05:00:00 GMT\r\nConnection: keep-alive\r\nETag: \"abc-2bc\"\r\nAccept-Ranges: bytes\r\n\r\n")
	benchCaptures(b, func(i int) warc.Capture {
		return warc.Capture{URI: "http://127.0.0.1:8080/pub/many/f" + strconv.Itoa(i), IP: "127.0.0.1", ContentType: "text/plain",
			HTTPRequest: req, HTTPResponse: resp, HTTPStatus: 200}
	})
}

// BenchmarkLargeHTTPCaptures: what archiving costs per byte of an HTTP
// response: the two SHA-1 digests (of the payload, and of the block, which
// has the header too), the copy into the spool, level-1 deflate (stored
// blocks for random bytes, which look incompressible), the CRC and the
// write; in MB/s of payload. A mirror on loopback moves 10 KiB files at
// about 100 MB/s and 1 MiB files at about 600 MB/s (BENCHMARKS.md).
func BenchmarkLargeHTTPCaptures(b *testing.B) {
	var text bytes.Buffer
	for _, f := range []string{"warc.go", "file.go", "record.go", "cdx.go"} {
		t, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		text.Write(t)
	}
	random := make([]byte, 4<<20)
	rand.NewChaCha8([32]byte{16}).Read(random)
	req := []byte("GET /pub/f HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUser-Agent: fetch\r\n\r\n")
	for _, bc := range []struct {
		name string
		src  []byte
		size int
	}{
		{"text-10KiB", text.Bytes(), 10 << 10},
		{"random-10KiB", random, 10 << 10},
		{"random-1MiB", random, 1 << 20},
	} {
		b.Run(bc.name, func(b *testing.B) {
			resp := []byte("HTTP/1.1 200 OK\r\nServer: nginx\r\nContent-Type: application/octet-stream\r\nContent-Length: " + strconv.Itoa(bc.size) + "\r\n\r\n")
			b.SetBytes(int64(bc.size))
			benchCapturesOf(b, bc.size, func(i int, payload []byte) {
				// A window of the source, at a different place each
				// time, and numbered: no two payloads are the same.
				at := i * 4099 % (len(bc.src) - bc.size)
				copy(payload, bc.src[at:])
			}, func(i int) warc.Capture {
				return warc.Capture{URI: "http://127.0.0.1:8080/pub/f" + strconv.Itoa(i), IP: "127.0.0.1",
					ContentType: "application/octet-stream", HTTPRequest: req, HTTPResponse: resp, HTTPStatus: 200}
			})
		})
	}
}

// benchCaptures commits a capture made by capture, with a payload of 700
// bytes (different each time), per iteration, with the CDXJ index on.
func benchCaptures(b *testing.B, capture func(i int) warc.Capture) {
	benchCapturesOf(b, 700, nil, capture)
}

// benchCapturesOf is benchCaptures with a payload of size bytes, filled by
// fill (when not nil) before it is numbered.
func benchCapturesOf(b *testing.B, size int, fill func(i int, payload []byte), capture func(i int) warc.Capture) {
	w, err := warc.Create(warc.Options{Name: filepath.Join(b.TempDir(), "b"), CDX: true})
	if err != nil {
		b.Fatal(err)
	}
	payload := make([]byte, size)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if fill != nil {
			fill(i, payload)
		}
		copy(payload, strconv.Itoa(i))
		c := capture(i)
		c.SizeHint = int64(len(payload))
		r, err := w.Begin(c)
		if err != nil {
			b.Fatal(err)
		}
		r.Write(payload)
		if err := r.Commit(); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
}
