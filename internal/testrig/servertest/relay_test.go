package servertest

import (
	"bufio"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// StartRelay's relay carries the bytes both ways to an echo server on
// 127.0.0.1, and its log, which Until waits on, holds them both ways with
// a CR written `\r`; a second connection is carried too (socat forks one
// child per connection).
func TestStartRelay(t *testing.T) {
	if _, err := exec.LookPath("socat"); err != nil {
		if InCI() {
			t.Fatal("socat is not installed (scripts/ci-deps.sh installs it)")
		}
		t.Skip("socat is not installed")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				c.SetDeadline(time.Now().Add(10 * time.Second))
				line, _ := bufio.NewReader(c).ReadString('\n')
				c.Write([]byte(strings.ToLower(line)))
			}()
		}
	}()
	r := StartRelay(t, ln.Addr().String())
	off := r.Size()
	for _, cmd := range []string{"HELLO", "AGAIN"} {
		c, err := net.DialTimeout("tcp", r.Addr, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(10 * time.Second))
		c.Write([]byte(cmd + "\r\n"))
		got, err := bufio.NewReader(c).ReadString('\n')
		c.Close()
		if want := strings.ToLower(cmd) + "\r\n"; got != want || err != nil {
			t.Fatalf("through the relay: %q, %v; want %q", got, err, want)
		}
	}
	want := []string{`HELLO\r`, `hello\r`, `AGAIN\r`, `again\r`}
	wire := r.Until(t, off, 10*time.Second, func(wire string) bool {
		for _, w := range want {
			if !strings.Contains(wire, w) {
				return false
			}
		}
		return true
	})
	for _, w := range want {
		if !strings.Contains(wire, w) {
			t.Errorf("relay log lacks %q:\n%s", w, wire)
		}
	}
}
