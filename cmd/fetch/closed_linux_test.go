package main

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rfc1738/fetch/internal/testrig/warctest"
)

// fetch URL | head -c 10: stdout closed before the body is all written.
// fetch is ended by SIGPIPE, as cat is (the shell's 141), never exit 0
// (docs/exit-codes.md). The body (1 MiB) is more than a pipe holds, so
// the write that fails comes after the reader left.
func TestGetStdoutClosedEarly(t *testing.T) {
	s := startServer(t)
	cmd := exec.Command(os.Args[0], "get", "-s", s.url("/big.bin"))
	cmd.Env = append(os.Environ(), "FETCH_TEST_RUN_MAIN=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := io.ReadFull(out, make([]byte, 10))
		out.Close()
		if err == nil {
			err = cmd.Wait()
		}
		done <- err
	}()
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("fetch did not end after its stdout was closed")
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("fetch | head = %v, want it ended by SIGPIPE", err)
	}
	if ws := ee.Sys().(syscall.WaitStatus); !ws.Signaled() || ws.Signal() != syscall.SIGPIPE {
		t.Errorf("fetch | head = %v, want it ended by SIGPIPE", err)
	}
}

// SIGTERM (systemd stopping a unit, Kubernetes a pod) in the middle of a
// WARC mirror killed fetch where it stood: the WARC file stayed
// NAME.warc.gz.open, without its index, for the next run to warn about.
// fetch stops as on Ctrl-C (the WARC file closed, the manifest saved,
// "interrupted" said), then ends by SIGTERM all the same.
func TestMirrorSIGTERM(t *testing.T) {
	started := make(chan struct{})
	var once sync.Once
	mux := http.NewServeMux()
	mux.HandleFunc("/pub/", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `<html><a href="a.txt">a.txt</a> <a href="big.bin">big.bin</a></html>`)
	})
	mux.HandleFunc("/pub/a.txt", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "whole\n") })
	mux.HandleFunc("/pub/big.bin", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "100000")
		w.Write(make([]byte, 2048))
		w.(http.Flusher).Flush()
		once.Do(func() { close(started) })
		<-r.Context().Done() // held open until fetch goes
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	dir, w := filepath.Join(t.TempDir(), "m"), filepath.Join(t.TempDir(), "w")
	var stderr strings.Builder
	cmd := exec.Command(os.Args[0], "mirror", "-s", "--retry", "0", "--warc-file", w, srv.URL+"/pub/", dir)
	cmd.Env = append(os.Environ(), "FETCH_TEST_RUN_MAIN=1")
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-started:
		cmd.Process.Signal(syscall.SIGTERM)
	case err := <-done:
		t.Fatalf("fetch ended before its transfer: %v\n%s", err, stderr.String())
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the transfer never started")
	}
	var err error
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("fetch did not end after SIGTERM")
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || !ee.Sys().(syscall.WaitStatus).Signaled() || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGTERM {
		t.Errorf("after SIGTERM: %v, want fetch ended by SIGTERM", err)
	}
	if !strings.Contains(stderr.String(), "fetch: interrupted") {
		t.Errorf("stderr does not say the run was interrupted:\n%s", stderr.String())
	}
	warctest.Read(t, w+".warc.gz") // closed, and whole
	if _, err := os.Stat(w + ".warc.gz.open"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the WARC file was left open: %v", err)
	}
}
