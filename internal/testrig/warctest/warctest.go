// Package warctest reads WARC files back for the tests, independently of
// the writer: its own reader, written from ISO 28500:2017 (WARC 1.1)
// sections 4 to 6 and annex D.2, and Webrecorder's warcio (npm), run as a
// separate program.
package warctest

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"encoding/base32"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
)

// Record is one WARC record as read back.
type Record struct {
	Offset int64 // of its gzip member in the file
	Length int64 // of its gzip member
	Header map[string]string
	Block  []byte
}

// Get returns the header field name.
func (r Record) Get(name string) string { return r.Header[strings.ToLower(name)] }

// countingReader counts the bytes the gzip reader consumed; as an
// io.ByteReader it keeps gzip from reading ahead of its member.
type countingReader struct {
	r *bufio.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func (c *countingReader) ReadByte() (byte, error) {
	b, err := c.r.ReadByte()
	if err == nil {
		c.n++
	}
	return b, err
}

// Read reads every record of a .warc.gz file, failing the test on any
// malformed record.
func Read(t testing.TB, name string) []Record {
	t.Helper()
	recs, err := ReadPrefix(name)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// ReadPrefix reads the records of a .warc.gz file up to the first one that
// is malformed or cut (a file a killed writer left open), and returns them
// with the error that stopped it (nil at the end of a whole file).
func ReadPrefix(name string) ([]Record, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cr := &countingReader{r: bufio.NewReader(f)}
	var out []Record
	var z gzip.Reader
	for i := 0; i < 1_000_000; i++ {
		off := cr.n
		if _, err := cr.r.Peek(1); err == io.EOF {
			return out, nil
		}
		if err := z.Reset(cr); err != nil {
			return out, fmt.Errorf("%s: gzip member at %d: %v", name, off, err)
		}
		z.Multistream(false)
		data, err := io.ReadAll(&z)
		if err != nil {
			return out, fmt.Errorf("%s: gzip member at %d: %v", name, off, err)
		}
		rec, err := parseRecord(data)
		if err != nil {
			return out, fmt.Errorf("%s: record at %d: %v", name, off, err)
		}
		rec.Offset, rec.Length = off, cr.n-off
		out = append(out, rec)
	}
	return out, fmt.Errorf("%s: too many records", name)
}

// parseRecord parses one uncompressed record: version line, header fields,
// CRLF, block of Content-Length bytes, CRLF CRLF (WARC 1.1 section 4).
func parseRecord(data []byte) (Record, error) {
	head, rest, ok := bytes.Cut(data, []byte("\r\n\r\n"))
	if !ok {
		return Record{}, errors.New("no end of header")
	}
	lines := strings.Split(string(head), "\r\n")
	if lines[0] != "WARC/1.1" {
		return Record{}, fmt.Errorf("version line %q", lines[0])
	}
	h := map[string]string{}
	for _, l := range lines[1:] {
		k, v, ok := strings.Cut(l, ":")
		if !ok {
			return Record{}, fmt.Errorf("header line %q", l)
		}
		h[strings.ToLower(strings.TrimSpace(k))] = strings.TrimSpace(v)
	}
	n, err := strconv.Atoi(h["content-length"])
	if err != nil || n < 0 || n > len(rest) {
		return Record{}, fmt.Errorf("Content-Length %q for %d bytes", h["content-length"], len(rest))
	}
	if !bytes.Equal(rest[n:], []byte("\r\n\r\n")) {
		return Record{}, fmt.Errorf("record does not end in CRLF CRLF after its block (%q)", rest[n:])
	}
	return Record{Header: h, Block: rest[:n]}, nil
}

func sha1b32(b []byte) string {
	s := sha1.Sum(b)
	return "sha1:" + base32.StdEncoding.EncodeToString(s[:])
}

// Payload is the payload of a record: the block after the HTTP head for
// application/http, decoded when it came chunked (WARC 1.1 section 5.9:
// the payload is the entity-body, RFC 9112 section 7.1); the block
// otherwise. It is nil when the block cannot be read so.
func Payload(r Record) []byte {
	if !strings.HasPrefix(r.Get("Content-Type"), "application/http") {
		return r.Block
	}
	br := bufio.NewReader(bytes.NewReader(r.Block))
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		// A request, or a revisit's head alone.
		if _, body, ok := bytes.Cut(r.Block, []byte("\r\n\r\n")); ok {
			return body
		}
		return nil
	}
	if len(resp.TransferEncoding) == 0 {
		// The rest of the block, whatever the Content-Length says.
		rest, _ := io.ReadAll(br)
		return rest
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil
	}
	return body
}

// CheckDigests recomputes the block digest of every record and the payload
// digest of every one but revisits (whose payload is elsewhere: it must
// match a record of recs with that payload digest and the referred URI).
func CheckDigests(t testing.TB, recs []Record) {
	t.Helper()
	byDigest := map[string][]Record{}
	for _, r := range recs {
		if d := r.Get("WARC-Block-Digest"); d != sha1b32(r.Block) {
			t.Errorf("record at %d (%s %s): block digest %s, recomputed %s", r.Offset, r.Get("WARC-Type"), r.Get("WARC-Target-URI"), d, sha1b32(r.Block))
		}
		switch r.Get("WARC-Type") {
		case "resource", "response":
			if d := r.Get("WARC-Payload-Digest"); d != sha1b32(Payload(r)) {
				t.Errorf("record at %d (%s): payload digest %s, recomputed %s", r.Offset, r.Get("WARC-Target-URI"), d, sha1b32(Payload(r)))
			}
			byDigest[r.Get("WARC-Payload-Digest")] = append(byDigest[r.Get("WARC-Payload-Digest")], r)
		}
	}
	for _, r := range recs {
		if r.Get("WARC-Type") != "revisit" {
			continue
		}
		if r.Get("WARC-Profile") != "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest" {
			t.Errorf("revisit at %d: profile %q", r.Offset, r.Get("WARC-Profile"))
		}
		found := false
		for _, o := range byDigest[r.Get("WARC-Payload-Digest")] {
			found = found || o.Get("WARC-Target-URI") == r.Get("WARC-Refers-To-Target-URI")
		}
		if !found {
			t.Errorf("revisit at %d (%s): no record of %s with payload %s", r.Offset, r.Get("WARC-Target-URI"), r.Get("WARC-Refers-To-Target-URI"), r.Get("WARC-Payload-Digest"))
		}
	}
}
