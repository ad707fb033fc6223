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

// BenchmarkParseListingLayouts parses 10000-line listings of the other
// layouts, and a listing whose lines change layout every line (each line
// then tries the layouts in turn).
func BenchmarkParseListingLayouts(b *testing.B) {
	for _, l := range []struct {
		name, syst, format string
	}{
		{"dos", "Windows_NT", "%02d-15-19  11:14AM  %10d file%05d.bin\r\n"},
		{"vms", "VMS V6.1", "FILE%[3]05d.BIN;1  %[2]d/%[2]d  15-MAR-2019 11:14:00 [SYSTEM] (RWED,RWED,RE,RE)\r\n"},
		{"eplf", "", "+i%[3]d,m1552648440,r,s%[2]d,\tfile%05[3]d.bin\r\n"},
		{"os400", "OS/400", "QPGMR  %10[2]d 03/15/19 11:14:00 *STMF      file%05[3]d.bin\r\n"},
		{"mlsd", "", "type=file;size=%[2]d;modify=20190315111400; file%05[3]d.bin\r\n"},
		{"german", "", "-rw-r--r-- 1 0 0 %10[2]d  5. Okt 2019  file%05[3]d.bin\r\n"},
		{"mixed", "", ""},
	} {
		b.Run(l.name, func(b *testing.B) {
			var sb strings.Builder
			for i := range 10000 {
				switch {
				case l.format != "":
					fmt.Fprintf(&sb, l.format, i%12+1, i*37, i)
				case i%2 == 0:
					fmt.Fprintf(&sb, "-rw-r--r--    1 0        0         %7d Mar 15  2019 file%05d.bin\r\n", i*37, i)
				default:
					fmt.Fprintf(&sb, "03-15-19  11:14AM  %10d file%05d.bin\r\n", i*37, i)
				}
			}
			raw := []byte(sb.String())
			format := formatLIST
			if l.name == "mlsd" {
				format = formatMLSD
			}
			b.SetBytes(int64(len(raw)))
			for b.Loop() {
				if n := len(first(parseListing(raw, format, l.syst, now))); n != 10000 {
					b.Fatalf("%d entries", n)
				}
			}
		})
	}
}
