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
	w, err := warc.Create(warc.Options{Name: filepath.Join(b.TempDir(), "b"), CDX: true})
	if err != nil {
		b.Fatal(err)
	}
	meta := []byte("> CWD /pub/many\n< 250 ok\n> EPSV\n< 229 Entering Extended Passive Mode (|||22223|)\n> RETR f\n< 150 here\n< 226 done\n")
	payload := make([]byte, 700)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		copy(payload, strconv.Itoa(i))
		r, err := w.Begin(warc.Capture{URI: "ftp://127.0.0.1/pub/many/f" + strconv.Itoa(i), IP: "127.0.0.1", Metadata: meta, SizeHint: int64(len(payload))})
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
