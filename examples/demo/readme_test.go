//go:build linux

package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rfc1738/fetch/internal/testrig/ptytest"
)

// The README's tour is run on Linux only: its lines are sh command lines,
// and the --interactive one needs a pseudo-terminal (package ptytest).

// readmePorts are the ports the README's lines name, by scheme: the
// demo's defaults.
var readmePorts = map[string]string{
	"ftp":    strconv.Itoa(defaultPorts.FTP),
	"gopher": strconv.Itoa(defaultPorts.Gopher),
	"nntp":   strconv.Itoa(defaultPorts.NNTP),
	"telnet": strconv.Itoa(defaultPorts.Telnet),
	"http":   strconv.Itoa(defaultPorts.HTTP),
}

// tourHeadings name the README section whose ```sh blocks are run: the
// first level-2 heading that holds one of them.
var tourHeadings = []string{"Using it", "Tour", "tour", "Usage"}

// tourLine is one command line of the tour.
type tourLine struct {
	text  string // as written in the README
	exit  int    // the exit code the README states: "(exit N)", else 0
	block int    // the number of its ```sh block: a block's lines share a directory
}

var (
	exitNote = regexp.MustCompile(`\(exit (\d+)\)`)
	// inlineRun is a command in the prose that runs against the demo
	// servers: "`fetch --interactive telnet://127.0.0.1:2323/`".
	inlineRun = regexp.MustCompile("`(fetch [^`]*://127\\.0\\.0\\.1:[^`]*)`")
)

// tourLines returns the command lines of the README's tour: every line of
// its ```sh blocks that is not blank, not a comment, and does not name
// example.org (an illustration, not run), and every fetch command in its
// prose that names a demo server (each a block of its own). A line ending
// in "\" goes on with the next.
func tourLines(readme []byte) ([]tourLine, error) {
	section, err := tourSection(readme)
	if err != nil {
		return nil, err
	}
	var lines []tourLine
	in, cont, block := false, "", 0
	for l := range strings.Lines(section) {
		l = strings.TrimRight(l, "\r\n")
		switch {
		case strings.HasPrefix(l, "```"):
			in = !in && strings.TrimSpace(l) == "```sh"
			if in {
				block++
			}
			continue
		case !in:
			for _, m := range inlineRun.FindAllStringSubmatch(l, -1) {
				block++
				lines = append(lines, tourLine{text: m[1], block: block})
			}
			continue
		case strings.TrimSpace(l) == "" || strings.HasPrefix(strings.TrimSpace(l), "#"):
			continue
		case strings.HasSuffix(l, "\\"):
			cont += strings.TrimSuffix(l, "\\") + " "
			continue
		}
		l, cont = cont+l, ""
		if strings.Contains(l, "example.org") {
			continue
		}
		tl := tourLine{text: l, block: block}
		if m := exitNote.FindStringSubmatch(l); m != nil {
			tl.exit, _ = strconv.Atoi(m[1])
		}
		lines = append(lines, tl)
	}
	return lines, nil
}

// tourSection returns the text of the tour section, up to the next
// level-2 heading.
func tourSection(readme []byte) (string, error) {
	var b strings.Builder
	found := false
	sc := bufio.NewScanner(bytes.NewReader(readme))
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, "## ") {
			if found {
				break
			}
			found = containsAny(l, tourHeadings)
			continue
		}
		if found {
			b.WriteString(l + "\n")
		}
	}
	if !found {
		return "", fmt.Errorf("README.md has no level-2 heading naming any of %q", tourHeadings)
	}
	return b.String(), sc.Err()
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// TestReadmeTour starts the demo servers on free ports, builds the fetch
// command, and runs every command line of README.md's tour against them
// (the README's ports rewritten to the servers' own), in order, with a
// timeout each, checking the exit code the README states. The lines of one
// block run in one new directory, as a session would: a second mirror
// finds the first one's files.
// A line with --interactive runs on a pseudo-terminal and leaves with
// Ctrl-] once the telnet banner shows.
func TestReadmeTour(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	lines, err := tourLines(readme)
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) < 5 {
		t.Fatalf("README.md's tour has %d runnable lines, want at least 5: %+v", len(lines), lines)
	}
	for scheme, port := range readmePorts {
		if !bytes.Contains(readme, []byte("127.0.0.1:"+port)) {
			t.Errorf("README.md names no %s server at the demo's port 127.0.0.1:%s", scheme, port)
		}
	}
	d, err := start(ports{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	bin := buildFetch(t)
	dirs := map[int]string{}
	for i, l := range lines {
		line := d.rewrite(l.text)
		if dirs[l.block] == "" {
			dirs[l.block] = t.TempDir()
		}
		t.Run(strconv.Itoa(i+1), func(t *testing.T) {
			code, out := runLine(t, bin, dirs[l.block], line)
			if code != l.exit {
				t.Errorf("README line\n\t%s\nran as\n\t%s\nexit %d, the README states %d; output:\n%s", l.text, line, code, l.exit, out)
			}
		})
	}
}

// rewrite replaces the README's ports in line with the servers' own.
func (d *demo) rewrite(line string) string {
	for scheme, addr := range d.Addrs() {
		line = strings.ReplaceAll(line, "127.0.0.1:"+readmePorts[scheme], addr)
	}
	return line
}

// buildFetch builds cmd/fetch into a directory of its own and returns that
// directory, to put first on PATH.
func buildFetch(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "go", "build", "-o", filepath.Join(dir, "fetch"), "../../cmd/fetch").CombinedOutput()
	if err != nil {
		t.Fatalf("go build ./cmd/fetch: %v\n%s", err, out)
	}
	return dir
}

// lineTimeout bounds one README line.
const lineTimeout = time.Minute

// runLine runs line with sh in dir, fetch resolved to the built one in
// bin, and returns its exit code and output.
func runLine(t *testing.T, bin, dir, line string) (int, string) {
	ctx, cancel := context.WithTimeout(context.Background(), lineTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", line)
	cmd.Dir = dir
	cmd.Env = lineEnv(bin, cmd.Dir)
	if strings.Contains(line, "--interactive") {
		return runOnTerminal(t, cmd)
	}
	out, err := cmd.CombinedOutput()
	return exitCode(t, err, ctx.Err() != nil), string(out)
}

// lineEnv is the environment of a line: the built fetch first on PATH,
// HOME the line's directory (no user's .netrc), no NNTPSERVER.
func lineEnv(bin, home string) []string {
	env := []string{"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"), "HOME=" + home, "TERM=xterm"}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "PATH", "HOME", "TERM", "NNTPSERVER", "FETCH_EMAIL":
		default:
			env = append(env, kv)
		}
	}
	return env
}

// exitCode is the exit code of a finished command; a line that timed out
// or did not start fails the test.
func exitCode(t *testing.T, err error, timedOut bool) int {
	t.Helper()
	var ee *exec.ExitError
	switch {
	case timedOut:
		t.Fatalf("the line did not end within %v", lineTimeout)
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	default:
		t.Fatalf("run: %v", err)
	}
	return -1
}

// runOnTerminal runs cmd with a pseudo-terminal as its stdin, stdout and
// stderr, waits for the demo's telnet banner and types Ctrl-].
func runOnTerminal(t *testing.T, cmd *exec.Cmd) (int, string) {
	pt := ptytest.Open(t, 100, 30)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = pt.Slave, pt.Slave, pt.Slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		done <- <-done
	})
	pt.WaitOutput(t, "fetch demo telnet service")
	pt.Type(t, "\x1d") // Ctrl-]
	select {
	case err := <-done:
		done <- err
		return exitCode(t, err, false), pt.Output()
	case <-time.After(15 * time.Second):
		t.Fatalf("the session did not end after Ctrl-]; terminal: %q", pt.Output())
	}
	return -1, ""
}
