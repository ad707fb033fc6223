package main

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/spf13/afero"

	"github.com/rfc1738/fetch/fetch/fetchtest"
)

// countWriter counts what the command writes to stdout; it has nothing
// but Write, like a pipe.
type countWriter struct{ n int64 }

func (w *countWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	return len(p), nil
}

// BenchmarkGetFTP runs "fetch get -s URL" for a 256 MiB file from the
// in-process FTP server (afero in-memory file system) to stdout: the
// whole command, login included. cpu-ns/op is the process's user and
// system CPU time per run (client and server together).
func BenchmarkGetFTP(b *testing.B) {
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
	url := "ftp://" + srv.Addr() + "/big.bin"
	b.SetBytes(size)
	cpu := cpuTime()
	for b.Loop() {
		out := &countWriter{}
		e := &env{in: nil, out: out, err: io.Discard, getenv: func(string) string { return "" }}
		ctx, cancel := context.WithTimeout(b.Context(), time.Minute)
		code := execute(ctx, []string{"get", "-s", url}, e)
		cancel()
		if code != 0 || out.n != size {
			b.Fatalf("exit %d, %d of %d bytes", code, out.n, size)
		}
	}
	if used := cpuTime() - cpu; used > 0 {
		b.ReportMetric(float64(used.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}
