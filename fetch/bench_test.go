package fetch

import (
	"io"
	"testing"
	"time"

	"github.com/spf13/afero"

	"github.com/rfc1738/fetch/fetch/fetchtest"
)

// writeOnly is a sink with nothing but Write, like the command's output
// files and stdout: io.Copy into it uses the body's WriteTo when the body
// has one, and its own 32 KiB buffer otherwise.
type writeOnly struct{ n int64 }

func (w *writeOnly) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	return len(p), nil
}

// BenchmarkClientFTP moves a 256 MiB file from the in-process FTP server
// (an afero in-memory file system) through Client.Get and the ftp driver,
// on a reused control connection, into a writer without ReadFrom.
//
//	copy=body      io.Copy from the body as Client returns it
//	copy=read-only io.Copy from the body with its WriteTo hidden: 32 KiB
//	               reads, what Client's body wrapper did before it
//	               forwarded WriteTo
//
// cpu-ns/op is the process's user and system CPU time per transfer
// (client and server together, both in this process).
func BenchmarkClientFTP(b *testing.B) {
	const size = 256 << 20
	mem := afero.NewMemMapFs()
	if err := afero.WriteFile(mem, "/big.bin", make([]byte, size), 0o644); err != nil {
		b.Fatal(err)
	}
	srv, err := fetchtest.StartFTP(mem, fetchtest.FTPOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	c := &Client{IdleTimeout: 30 * time.Second}
	defer c.CloseIdleConnections()
	url := "ftp://" + srv.Addr() + "/big.bin"
	for _, bc := range []struct {
		name string
		wrap func(io.Reader) io.Reader
	}{
		{"copy=body", func(r io.Reader) io.Reader { return r }},
		{"copy=read-only", func(r io.Reader) io.Reader { return struct{ io.Reader }{r} }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(size)
			cpu := cpuTime()
			for b.Loop() {
				resp, err := c.Get(b.Context(), url)
				if err != nil {
					b.Fatal(err)
				}
				w := &writeOnly{}
				_, err = io.Copy(w, bc.wrap(resp.Body))
				resp.Body.Close()
				if err != nil || w.n != size {
					b.Fatalf("copied %d of %d bytes: %v", w.n, size, err)
				}
			}
			if used := cpuTime() - cpu; used > 0 {
				b.ReportMetric(float64(used.Nanoseconds())/float64(b.N), "cpu-ns/op")
			}
		})
	}
}
