package ftp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// fileDest is a proto.FileWriter into a temporary file that counts how
// the bytes came: through Write (the ordinary copy) or moved into the
// file directly (Wrote).
type fileDest struct {
	f      *os.File
	writes int
	moved  int64
}

func (d *fileDest) Write(p []byte) (int, error) { d.writes++; return d.f.Write(p) }
func (d *fileDest) WriterFile() *os.File        { return d.f }
func (d *fileDest) Wrote(n int64)               { d.moved += n }
func (d *fileDest) FileError(err error) error   { return err }

func newFileDest(t *testing.T) *fileDest {
	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return &fileDest{f: f}
}

// retrieveTo fetches raw with d and copies its body into dst with
// io.Copy, as fetch get and the client do.
func retrieveTo(ctx context.Context, t *testing.T, d *Driver, raw string, req *proto.Request, dst io.Writer) (int64, error) {
	t.Helper()
	u, err := uri.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := d.Fetch(ctx, u, req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	return io.Copy(dst, resp.Body)
}

// A TYPE I retrieval into a proto.FileWriter moves the bytes into the file
// without a single Write (on Linux, where (*os.File).ReadFrom splices from
// a TCP connection), byte-exact, with every byte told to Wrote; both with
// the pipelined data path and the library's.
func TestRetrieveToFile(t *testing.T) {
	content := make([]byte, 3<<20+123) // more than one spliceChunk
	rand.NewChaCha8([32]byte{1}).Read(content)
	for _, piped := range []bool{true, false} {
		f := newFake(t)
		f.files = map[string][]byte{"big": content}
		f.start()
		d := New(Config{PipelinePassive: piped, MaxIdleConnsPerHost: 1})
		req := quickReq()
		req.Options = proto.Options{FTP: proto.FTPOptions{Stat: proto.StatNone, Binary: true}}
		dst := newFileDest(t)
		n, err := retrieveTo(t.Context(), t, d, f.url("/big"), req, dst)
		d.CloseIdleConnections()
		if err != nil || n != int64(len(content)) {
			t.Fatalf("piped=%v: copied %d, %v; want %d bytes", piped, n, err, len(content))
		}
		got, err := os.ReadFile(dst.f.Name())
		if err != nil || !bytes.Equal(got, content) {
			t.Fatalf("piped=%v: file differs from the served content (%d bytes, %v)", piped, len(got), err)
		}
		if dst.moved != int64(len(content)) || dst.writes != 0 {
			t.Errorf("piped=%v: %d bytes moved directly, %d Writes; want %d and 0", piped, dst.moved, dst.writes, len(content))
		}
	}
}

// TYPE A text must be converted, so it goes through Write.
func TestRetrieveToFileASCII(t *testing.T) {
	f := newFake(t)
	f.files = map[string][]byte{"t.txt": []byte("one\r\ntwo\r\n")}
	f.start()
	d := &Driver{}
	defer d.CloseIdleConnections()
	req := quickReq()
	req.Options = proto.Options{FTP: proto.FTPOptions{Stat: proto.StatNone}}
	dst := newFileDest(t)
	if _, err := retrieveTo(t.Context(), t, d, f.url("/t.txt;type=a"), req, dst); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(dst.f.Name())
	if string(got) != "one\ntwo\n" || dst.moved != 0 || dst.writes == 0 {
		t.Errorf("got %q, %d moved, %d writes; want the converted text through Write", got, dst.moved, dst.writes)
	}
}

// A server that stops sending mid-file fails the direct path with the idle
// timeout, and a cancelled context ends it at once.
func TestRetrieveToFileStall(t *testing.T) {
	content := bytes.Repeat([]byte("x"), 1<<20)
	t.Run("idle", func(t *testing.T) {
		f := newFake(t)
		f.files = map[string][]byte{"big": content}
		f.stallAt = 100 << 10
		f.start()
		d := New(Config{PipelinePassive: true})
		defer d.CloseIdleConnections()
		req := &proto.Request{ConnectTimeout: 2 * time.Second, IdleTimeout: 300 * time.Millisecond}
		req.Options = proto.Options{FTP: proto.FTPOptions{Stat: proto.StatNone, Binary: true}}
		dst := newFileDest(t)
		start := time.Now()
		n, err := retrieveTo(t.Context(), t, d, f.url("/big"), req, dst)
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("got %v, want the idle timeout", err)
		}
		if el := time.Since(start); el > 3*time.Second {
			t.Errorf("took %v for a 300 ms idle timeout", el)
		}
		if n != int64(f.stallAt) || dst.moved != n || dst.writes != 0 {
			t.Errorf("copied %d (%d moved, %d writes), want %d moved directly", n, dst.moved, dst.writes, f.stallAt)
		}
	})
	t.Run("cancel", func(t *testing.T) {
		f := newFake(t)
		f.files = map[string][]byte{"big": content}
		f.stallAt = 100 << 10
		f.start()
		d := New(Config{PipelinePassive: true})
		defer d.CloseIdleConnections()
		req := &proto.Request{ConnectTimeout: 2 * time.Second, IdleTimeout: time.Minute}
		req.Options = proto.Options{FTP: proto.FTPOptions{Stat: proto.StatNone, Binary: true}}
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(300*time.Millisecond, cancel)
		start := time.Now()
		_, err := retrieveTo(ctx, t, d, f.url("/big"), req, newFileDest(t))
		if err == nil {
			t.Fatal("a cancelled retrieval succeeded")
		}
		if el := time.Since(start); el > 5*time.Second {
			t.Errorf("took %v to end after the cancel", el)
		}
	})
}
