//go:build unix

package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch"
)

// -o naming a named pipe (as /dev/null or /dev/stdout name devices) writes
// into it: the pipe is still a pipe afterwards, and its reader got the
// data. A temporary file renamed over it would have replaced it with a
// plain file. (A pipe stands in for a device, which a test could only
// damage on the machine it runs on.)
func TestGetIntoNamedPipe(t *testing.T) {
	s := startServer(t)
	dir := t.TempDir()
	pipe := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(pipe, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	got := make(chan []byte, 1)
	go func() {
		f, err := os.Open(pipe)
		if err != nil {
			got <- nil
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		got <- b
	}()
	r := runArgs(t, nil, "", "get", "-s", "-o", pipe, s.url("/big.bin"))
	if r.code != 0 {
		t.Fatalf("get -o PIPE = %d (%s)", r.code, r.err)
	}
	select {
	case b := <-got:
		if sum(b) != sum(bigBody) {
			t.Errorf("the pipe's reader got %d bytes, want %d", len(b), len(bigBody))
		}
	case <-time.After(5 * time.Second):
		// Nothing opened the pipe to write: release the reader.
		if f, err := os.OpenFile(pipe, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
		t.Errorf("get -o PIPE never wrote into the pipe")
	}
	fi, err := os.Lstat(pipe)
	if err != nil || fi.Mode().Type() != os.ModeNamedPipe {
		t.Errorf("after get -o: %v, %v; want the named pipe still there", fi.Mode(), err)
	}
	assertOnly(t, dir, "pipe")

	// -C cannot resume into a pipe, and a directory is no output file.
	if r := runArgs(t, nil, "", "get", "-C", "-", "-o", pipe, s.url("/big.bin")); r.code != fetch.ExitError {
		t.Errorf("get -C - -o PIPE = %d, want 1 (%s)", r.code, r.err)
	}
	if r := runArgs(t, nil, "", "get", "-o", dir, s.url("/hello.txt")); r.code != fetch.ExitError {
		t.Errorf("get -o DIR = %d, want 1 (%s)", r.code, r.err)
	}
	assertOnly(t, dir, "pipe")
}

// A named pipe whose reader goes away (fetch -o FIFO, or -o /dev/stdout
// into "| head") made the write fail with EPIPE, which exited 5, a
// network failure: it is the output's failure, exit 1, and not retried.
func TestGetIntoClosedPipe(t *testing.T) {
	s := startServer(t)
	pipe := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(pipe, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	read := make(chan error, 1)
	go func() {
		f, err := os.Open(pipe)
		if err == nil {
			_, err = io.ReadFull(f, make([]byte, 10))
			f.Close()
		}
		read <- err
	}()
	r := runArgs(t, nil, "", "get", "-s", "--retry", "2", "-o", pipe, s.url("/big.bin"))
	if err := <-read; err != nil {
		t.Fatalf("reader: %v", err)
	}
	if r.code != fetch.ExitError || !strings.Contains(r.err, "broken pipe") || s.ln.n.Load() != 1 {
		t.Errorf("get -o PIPE, reader gone = %d after %d requests (%s), want 1 after 1", r.code, s.ln.n.Load(), r.err)
	}
}
