package fetch

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/spf13/afero"

	"github.com/rfc1738/fetch/fetch/fetchtest"
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// bodyDriver answers every URL with the body its new function makes.
type bodyDriver struct{ new func() io.ReadCloser }

func (d bodyDriver) Fetch(ctx context.Context, u *uri.URL, req *proto.Request) (*proto.Response, error) {
	return &proto.Response{Kind: proto.KindData, Body: d.new(), Size: -1}, nil
}

// writerToBody is a body with a WriteTo of its own, which records its use.
type writerToBody struct {
	io.Reader
	writeTos atomic.Int64
}

func (b *writerToBody) WriteTo(w io.Writer) (int64, error) {
	b.writeTos.Add(1)
	return io.Copy(w, b.Reader)
}

func (b *writerToBody) Close() error { return nil }

// readSizes is a body with Read alone; it records the largest read.
type readSizes struct {
	r   io.Reader
	max int
}

func (b *readSizes) Read(p []byte) (int, error) {
	b.max = max(b.max, len(p))
	return b.r.Read(p)
}

func (b *readSizes) Close() error { return nil }

// onlyWrite is a destination with Write alone (no ReadFrom).
type onlyWrite struct{ b bytes.Buffer }

func (w *onlyWrite) Write(p []byte) (int, error) { return w.b.Write(p) }

// The client's body keeps the driver body's WriteTo in reach of io.Copy,
// and copies a body without one in large reads.
func TestBodyWriteTo(t *testing.T) {
	data := strings.Repeat("0123456789abcdef", 64<<10) // 1 MiB
	wt := &writerToBody{Reader: strings.NewReader(data)}
	rs := &readSizes{r: strings.NewReader(data)}
	r := NewRegistry()
	r.Register("wt", bodyDriver{func() io.ReadCloser { return wt }})
	r.Register("rs", bodyDriver{func() io.ReadCloser { return rs }})
	c := &Client{Registry: r}

	resp, err := c.Get(t.Context(), "wt://h/")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := resp.Body.(io.WriterTo); !ok {
		t.Errorf("Body %T has no WriteTo", resp.Body)
	}
	var dst onlyWrite
	n, err := io.Copy(&dst, resp.Body)
	resp.Body.Close()
	if err != nil || n != int64(len(data)) || dst.b.String() != data {
		t.Errorf("io.Copy = %d, %v; want %d bytes", n, err, len(data))
	}
	if got := wt.writeTos.Load(); got != 1 {
		t.Errorf("driver body's WriteTo called %d times, want 1", got)
	}

	resp, err = c.Get(t.Context(), "rs://h/")
	if err != nil {
		t.Fatal(err)
	}
	dst.b.Reset()
	n, err = io.Copy(&dst, resp.Body)
	resp.Body.Close()
	if err != nil || n != int64(len(data)) || dst.b.String() != data {
		t.Errorf("io.Copy = %d, %v; want %d bytes", n, err, len(data))
	}
	if rs.max != copyBufferSize {
		t.Errorf("largest read of a body without WriteTo = %d bytes, want %d", rs.max, copyBufferSize)
	}
}

// slowWriter takes its time over every write, and may run a function at
// the first.
type slowWriter struct {
	n     int64
	delay time.Duration
	first func()
}

func (w *slowWriter) Write(p []byte) (int, error) {
	if w.first != nil {
		w.first()
		w.first = nil
	}
	time.Sleep(w.delay)
	w.n += int64(len(p))
	return len(p), nil
}

// A copy through WriteTo stops when MaxTime runs out, or when the
// caller's context is cancelled: an FTP transfer from the in-process
// server, copied into a slow writer.
func TestBodyWriteToStops(t *testing.T) {
	const size = 64 << 20
	mem := afero.NewMemMapFs()
	if err := afero.WriteFile(mem, "/big.bin", make([]byte, size), 0o644); err != nil {
		t.Fatal(err)
	}
	srv, err := fetchtest.StartFTP(mem, fetchtest.FTPOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	url := "ftp://" + srv.Addr() + "/big.bin"

	t.Run("MaxTime", func(t *testing.T) {
		c := &Client{MaxTime: 2 * time.Second, IdleTimeout: 10 * time.Second}
		defer c.CloseIdleConnections()
		resp, err := c.Get(t.Context(), url)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		start := time.Now()
		w := &slowWriter{delay: 20 * time.Millisecond}
		_, err = io.Copy(w, resp.Body)
		if !errors.Is(err, context.DeadlineExceeded) || w.n >= size || time.Since(start) > 10*time.Second {
			t.Errorf("io.Copy = %v after %d bytes and %v; want the MaxTime deadline", err, w.n, time.Since(start))
		}
		if code := ExitCode(err); code != ExitNetwork {
			t.Errorf("ExitCode(%v) = %d, want %d", err, code, ExitNetwork)
		}
	})
	t.Run("cancel", func(t *testing.T) {
		c := &Client{IdleTimeout: 10 * time.Second}
		defer c.CloseIdleConnections()
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		resp, err := c.Get(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		start := time.Now()
		w := &slowWriter{delay: 5 * time.Millisecond, first: cancel}
		_, err = io.Copy(w, resp.Body)
		if !errors.Is(err, context.Canceled) || w.n >= size || time.Since(start) > 10*time.Second {
			t.Errorf("io.Copy = %v after %d bytes and %v; want the cancellation", err, w.n, time.Since(start))
		}
	})
}
