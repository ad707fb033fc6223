//go:build linux

package main

import (
	"os"
	"os/exec"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rfc1738/fetch/internal/testrig/ptytest"
	"github.com/rfc1738/fetch/internal/testrig/servertest"
)

// TestMain lets a test run this test binary as the fetch command itself
// (FETCH_TEST_RUN_MAIN=1), for tests that need a real process with a
// terminal of its own.
func TestMain(m *testing.M) {
	if os.Getenv("FETCH_TEST_RUN_MAIN") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// TestInteractiveTelnetd drives "fetch --interactive telnet://..." on a
// real pseudo-terminal against inetutils-telnetd (issue 7): the person
// logs in with the fixture user, runs a command, leaves with Ctrl-]; the
// command exits 0, the terminal modes are those of before, and the
// password shows nowhere on the screen.
func TestInteractiveTelnetd(t *testing.T) {
	s := servertest.Get(t, servertest.Telnet)
	pt := ptytest.Open(t, 100, 30)
	before := pt.Termios(t)

	cmd := exec.Command(os.Args[0], "--interactive", "telnet://"+s.User+"@"+s.Addr+"/")
	cmd.Env = append(os.Environ(), "FETCH_TEST_RUN_MAIN=1", "TERM=xterm")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = pt.Slave, pt.Slave, pt.Slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start fetch: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-done
	})

	pt.WaitOutput(t, "suggested user: "+s.User)
	pt.WaitOutput(t, "login: ")
	pt.Type(t, s.User+"\r")
	pt.WaitOutput(t, "Password: ")
	pt.Type(t, s.Pass+"\r")
	pt.WaitOutput(t, "Welcome, "+s.User+".")
	pt.WaitOutput(t, "$ ")
	pt.Type(t, "echo hello-fetch\r")
	pt.WaitOutput(t, "hello-fetch\r\n$ ")
	pt.Type(t, "\x1d") // Ctrl-]

	select {
	case err := <-done:
		done <- err
		if err != nil {
			t.Fatalf("fetch --interactive after Ctrl-] = %v, want exit 0\nterminal: %q", err, pt.Output())
		}
	case <-time.After(15 * time.Second):
		t.Fatalf("fetch --interactive did not end after Ctrl-]\nterminal: %q", pt.Output())
	}
	if after := pt.Termios(t); !reflect.DeepEqual(after, before) {
		t.Errorf("terminal modes after the session = %+v, want those of before %+v", after, before)
	}
	if strings.Contains(pt.Output(), s.Pass) {
		t.Errorf("the password appeared on the terminal: %q", pt.Output())
	}
}
