package main

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
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
