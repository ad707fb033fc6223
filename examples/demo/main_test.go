//go:build unix

package main

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestDemoStopsOnSignal runs the demo program on free ports, waits for its
// line per server, then stops it with SIGTERM and with SIGINT: it must say
// so and exit 0.
func TestDemoStopsOnSignal(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "demo")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, sig := range []os.Signal{syscall.SIGTERM, os.Interrupt} {
		t.Run(sig.String(), func(t *testing.T) { stopsOn(t, bin, sig) })
	}
}

func stopsOn(t *testing.T, bin string, sig os.Signal) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-ftp", "0", "-gopher", "0", "-nntp", "0", "-telnet", "0", "-http", "0")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var seen []string
	sc := bufio.NewScanner(out)
	for sc.Scan() && sc.Text() != "serving until Ctrl-C" {
		seen = append(seen, sc.Text())
	}
	for _, scheme := range []string{"ftp://127.0.0.1:", "gopher://", "nntp://", "http://", "telnet://"} {
		if !strings.Contains(strings.Join(seen, "\n"), scheme) {
			t.Errorf("the start lines name no %s server:\n%s", scheme, strings.Join(seen, "\n"))
		}
	}
	cmd.Process.Signal(sig)
	rest, _ := io.ReadAll(out)
	if err := cmd.Wait(); err != nil || ctx.Err() != nil {
		t.Errorf("after %v: %v (timed out: %v), want exit 0", sig, err, ctx.Err() != nil)
	}
	if !strings.Contains(string(rest), "stopping") {
		t.Errorf("after %v the demo printed %q, want \"stopping\"", sig, rest)
	}
}
