package warc_test

import (
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

// benchCaptures commits a capture made by capture, with a payload of 700
// bytes (different each time), per iteration, with the CDXJ index on.
func benchCaptures(b *testing.B, capture func(i int) warc.Capture) {
	w, err := warc.Create(warc.Options{Name: filepath.Join(b.TempDir(), "b"), CDX: true})
	if err != nil {
		b.Fatal(err)
	}
	payload := make([]byte, 700)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
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
