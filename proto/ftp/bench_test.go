package ftp

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// BenchmarkRETR measures RETR throughput from the in-process server
// (afero in-memory filesystem) through one Driver, connection reused.
func BenchmarkRETR(b *testing.B) {
	for _, size := range []int{1 << 20, 32 << 20} {
		b.Run(fmt.Sprintf("%dMiB", size>>20), func(b *testing.B) {
			s := startLibB(b)
			s.write("/big.bin", make([]byte, size))
			d := &Driver{}
			defer d.CloseIdleConnections()
			u := uri.MustParse(s.url("/big.bin"))
			req := &proto.Request{IdleTimeout: 10 * time.Second}
			b.SetBytes(int64(size))
			b.ResetTimer()
			for b.Loop() {
				resp, err := d.Fetch(b.Context(), u, req)
				if err != nil {
					b.Fatal(err)
				}
				n, err := io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if err != nil || n != int64(size) {
					b.Fatalf("read %d bytes: %v", n, err)
				}
			}
		})
	}
}

// BenchmarkSmallFiles measures one small file per iteration on a reused
// connection (the 200-files case).
func BenchmarkSmallFiles(b *testing.B) {
	s := startLibB(b)
	s.fs.MkdirAll("/many", 0o755)
	for i := range 100 {
		s.write(fmt.Sprintf("/many/f%03d.bin", i), []byte(fmt.Sprint(i)))
	}
	d := &Driver{}
	defer d.CloseIdleConnections()
	req := &proto.Request{IdleTimeout: 10 * time.Second}
	i := 0
	for b.Loop() {
		u := uri.MustParse(s.url(fmt.Sprintf("/many/f%03d.bin", i%100)))
		i++
		resp, err := d.Fetch(b.Context(), u, req)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}

// BenchmarkParseListing parses a 10000-line "ls -l" listing.
func BenchmarkParseListing(b *testing.B) {
	var sb strings.Builder
	for i := range 10000 {
		fmt.Fprintf(&sb, "-rw-r--r--    1 0        0         %7d Mar 15  2019 file%05d.bin\r\n", i*37, i)
	}
	raw := []byte(sb.String())
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		if n := len(first(parseListing(raw, formatLIST, "", now))); n != 10000 {
			b.Fatalf("%d entries", n)
		}
	}
}
