package mirror

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/proto/gopher"
	"github.com/rfc1738/fetch/uri"
)

// scriptedGopher is a gopher server on 127.0.0.1:0 that answers each
// request line (without its CRLF) with answer(line, n), n counting the
// requests of that line from 1, "HOST\tPORT" in the answer standing for
// its own address, then closes. It stops when the test ends.
func scriptedGopher(t *testing.T, answer func(line string, n int) string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	host, port, _ := net.SplitHostPort(ln.Addr().String())
	var mu sync.Mutex
	asked := map[string]int{}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				c.SetDeadline(time.Now().Add(10 * time.Second))
				line, err := bufio.NewReader(c).ReadString('\n')
				if err != nil {
					return
				}
				line = strings.TrimRight(line, "\r\n")
				mu.Lock()
				asked[line]++
				n := asked[line]
				mu.Unlock()
				a := answer(line, n)
				c.Write([]byte(strings.ReplaceAll(a, "HOST\tPORT", host+"\t"+port)))
			}()
		}
	}()
	return ln.Addr().String()
}

// runGopher mirrors gopher://addr/1 into dir with the gopher driver.
func runGopher(t *testing.T, addr, dir string, opts Options) (*Summary, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	opts.Request.IdleTimeout = 5 * time.Second
	return Run(ctx, drivers{"gopher": &gopher.Driver{}}, uri.MustParse("gopher://"+addr+"/1"), dir, opts)
}

// TestMirrorGopherPlusDotDataCut: the mirror fetches a Gopher+ item
// through its "+" view; data announced "+-1" ends with a "." line
// (gopherplus.txt section 2.3). A document whose connection closed after
// two whole lines, before that line, was stored as those two lines, exit
// 0. It is a failed entry now, and nothing is stored.
func TestMirrorGopherPlusDotDataCut(t *testing.T) {
	addr := scriptedGopher(t, func(line string, _ int) string {
		switch line {
		case "":
			return "0doc\t/doc\tHOST\tPORT\t+\r\n0whole\t/whole\tHOST\tPORT\t+\r\n.\r\n"
		case "/doc\t\t+":
			return "+-1\r\nline1\r\nline2\r\n"
		case "/whole\t\t+":
			return "+-1\r\nline1\r\n..line2\r\n.\r\n"
		}
		return "--1\r\n1 no such item\r\n.\r\n"
	})
	dir := t.TempDir()
	s, err := runGopher(t, addr, dir, Options{})
	if !errors.Is(err, ErrPartial) || s.Failed != 1 || s.New != 1 {
		t.Fatalf("Run = %v, failed %d, new %d; want ErrPartial, 1 failed, 1 new", err, s.Failed, s.New)
	}
	for _, e := range s.Entries {
		if e.Path == "doc" && e.Status != StatusFailed {
			t.Errorf("doc: %s, want failed", e.Status)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "doc")); err == nil {
		t.Errorf("the cut document was stored: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "whole")); string(b) != "line1\r\n.line2\r\n" {
		t.Errorf("whole = %q, want %q", b, "line1\r\n.line2\r\n")
	}
}

// TestMirrorGopherMenuNotKept: a menu whose gophermap cannot be written
// (a disk full, a permission, here something in the way) is a failed
// entry with the error; the run exits partial. saveMenu dropped its
// errors: the gophermap was missing or stale, exit 0.
func TestMirrorGopherMenuNotKept(t *testing.T) {
	addr := scriptedGopher(t, func(string, int) string {
		return "iNothing here\t\terror.host\t1\r\n.\r\n"
	})
	for _, tc := range []struct {
		name  string
		block string // a directory made here, with a file in it, stops the write
		file  bool   // a file made at block instead
	}{
		{"partial directory cannot be made", stateDir + "/partial", true},
		{"partial file cannot be written", partialDir + "/" + menuName, false},
		{"cannot be renamed into place", menuName, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, filepath.FromSlash(tc.block))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			var err error
			if tc.file {
				err = os.WriteFile(p, []byte("in the way"), 0o644)
			} else if err = os.MkdirAll(p, 0o755); err == nil {
				err = os.WriteFile(filepath.Join(p, "x"), nil, 0o644)
			}
			if err != nil {
				t.Fatal(err)
			}
			s, err := runGopher(t, addr, dir, Options{})
			if !errors.Is(err, ErrPartial) || s.Failed != 1 {
				t.Fatalf("Run = %v, failed %d; want ErrPartial, 1 failed", err, s.Failed)
			}
			if e := s.Entries[0]; e.Path != menuName || e.Status != StatusFailed || e.Reason == "" {
				t.Errorf("entry = %+v, want %s failed with a reason", e, menuName)
			}
		})
	}
}

// putFiles writes files (relative path: content) below dir.
func putFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for rel, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// checkFiles reports each of rels that is missing (want true) or present
// (want false) below dir.
func checkFiles(t *testing.T, dir string, want bool, rels ...string) {
	t.Helper()
	for _, rel := range rels {
		_, err := os.Stat(filepath.Join(dir, filepath.FromSlash(rel)))
		if got := err == nil; got != want {
			t.Errorf("%s present = %v, want %v (%v)", rel, got, want, err)
		}
	}
}

// counter counts the requests of each line a scriptedGopher answers.
type counter struct {
	mu sync.Mutex
	n  map[string]int
}

// add counts a request of line and returns how many there were since
// the last reset.
func (c *counter) add(line string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[line]++
	return c.n[line]
}

func (c *counter) get(line string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[line]
}

func (c *counter) reset() { c.mu.Lock(); c.n = nil; c.mu.Unlock() }

// TestMirrorGopherMenuCutAfterDot: the audit's case. A server whose menu
// ended with its "." line in the first run sends it, in the second, cut
// at the end of its first item. The cut menu was taken as whole: exit 0,
// and with --delete the file b, listed after the cut, was deleted. The
// gophermap the first run kept ends with the "." line, so the menu is cut:
// asked again, cut again, the run fails, nothing is deleted and the
// gophermap stays the whole one.
func TestMirrorGopherMenuCutAfterDot(t *testing.T) {
	var cut atomic.Bool
	var asked counter
	addr := scriptedGopher(t, func(line string, _ int) string {
		asked.add(line)
		switch line {
		case "":
			m := "9a\t/a\tHOST\tPORT\r\n"
			if cut.Load() {
				return m
			}
			return m + "9b\t/b\tHOST\tPORT\r\n.\r\n"
		case "/a", "/b":
			return "data of " + line
		}
		return "3no\t\terror.host\t1\r\n.\r\n"
	})
	dir := t.TempDir()
	if s, err := runGopher(t, addr, dir, Options{Delete: true}); err != nil || s.New != 2 {
		t.Fatalf("first run = %v, %d new; want 2 new", err, s.New)
	}
	whole, _ := os.ReadFile(filepath.Join(dir, menuName))
	cut.Store(true)
	asked.reset()
	s, err := runGopher(t, addr, dir, Options{Delete: true})
	if !errors.Is(err, io.ErrUnexpectedEOF) || !errors.Is(err, errMenuCutSince) || s.Deleted != 0 {
		t.Errorf("second run = %v, %d deleted; want errMenuCutSince (io.ErrUnexpectedEOF), none deleted", err, s.Deleted)
	}
	checkFiles(t, dir, true, "a", "b")
	if got, _ := os.ReadFile(filepath.Join(dir, menuName)); string(got) != string(whole) {
		t.Errorf("gophermap = %q, want the whole one %q", got, whole)
	}
	if n := asked.get(""); n != 2 {
		t.Errorf("the cut menu was asked %d times, want 2", n)
	}
}

// TestMirrorGopherMenuCutInRun: in a first run, a server that ended its
// menus with the "." line sends one without it: that directory fails
// (asked again, cut again), and --delete removes nothing below it, while
// a stale file below a whole menu goes. The cut menu was taken as whole.
func TestMirrorGopherMenuCutInRun(t *testing.T) {
	var asked counter
	addr := scriptedGopher(t, func(line string, _ int) string {
		asked.add(line)
		switch line {
		case "":
			return "1one\t/s1\tHOST\tPORT\r\n1two\t/s2\tHOST\tPORT\r\n.\r\n"
		case "/s1":
			return "9x\t/s1/x\tHOST\tPORT\r\n.\r\n"
		case "/s2":
			return "9y\t/s2/y\tHOST\tPORT\r\n" // cut: "9z..." and "." lost
		case "/s1/x", "/s2/y":
			return "data of " + line
		}
		return "3no\t\terror.host\t1\r\n.\r\n"
	})
	dir := t.TempDir()
	putFiles(t, dir, map[string]string{"s1/old": "gone", "s2/z": "still on the server"})
	s, err := runGopher(t, addr, dir, Options{Delete: true, Jobs: 2})
	if !errors.Is(err, ErrPartial) || s.Failed != 1 || s.Deleted != 1 {
		t.Fatalf("Run = %v, %d failed, %d deleted; want ErrPartial, 1 failed, 1 deleted", err, s.Failed, s.Deleted)
	}
	for _, e := range s.Entries {
		if e.Status == StatusFailed && e.Path != "s2" {
			t.Errorf("failed entry %+v, want s2", e)
		}
	}
	checkFiles(t, dir, true, "s1/x", "s2/z")
	checkFiles(t, dir, false, "s1/old", "s2/gophermap")
	if n := asked.get("/s2"); n != 2 {
		t.Errorf("the cut menu was asked %d times, want 2", n)
	}
}

// TestMirrorGopherMenuCutBeforeLearnt: the starting menu ends at the
// close, and only a menu read after it shows that the server ends its
// menus with a "." line: when the walk ends the starting menu is failed,
// and --delete removes nothing at all.
func TestMirrorGopherMenuCutBeforeLearnt(t *testing.T) {
	addr := scriptedGopher(t, func(line string, _ int) string {
		switch line {
		case "":
			return "1one\t/s1\tHOST\tPORT\r\n" // cut
		case "/s1":
			return "9x\t/s1/x\tHOST\tPORT\r\n.\r\n"
		case "/s1/x":
			return "data of " + line
		}
		return "3no\t\terror.host\t1\r\n.\r\n"
	})
	dir := t.TempDir()
	putFiles(t, dir, map[string]string{"b": "listed after the cut", "s1/old": "maybe"})
	s, err := runGopher(t, addr, dir, Options{Delete: true})
	if !errors.Is(err, ErrPartial) || s.Failed != 1 || s.Deleted != 0 || s.New != 1 {
		t.Fatalf("Run = %v, %d failed, %d deleted, %d new; want ErrPartial, 1 failed, 0 deleted, 1 new", err, s.Failed, s.Deleted, s.New)
	}
	for _, e := range s.Entries {
		if e.Status == StatusFailed && e.Path != menuName {
			t.Errorf("failed entry %+v, want %s", e, menuName)
		}
	}
	checkFiles(t, dir, true, "b", "s1/old", "s1/x")
}

// TestMirrorGopherDeleteConfirmed: from a server that never sends the "."
// line (pygopherd), a menu ends at the close. Without --delete it is read
// once; with --delete, a menu above a local file to delete is read again
// first, and the file is deleted only when the second reading is the same
// bytes (a connection lost on the way gives other bytes): else the menu
// is a failed entry and nothing below it is deleted (below the starting
// menu: nothing at all, and the menus below it are not read again).
func TestMirrorGopherDeleteConfirmed(t *testing.T) {
	const root = "9a\tROOT/a\tHOST\tPORT\r\n1sub\tROOT/s\tHOST\tPORT\r\n"
	for _, tc := range []struct {
		name    string
		second  string // the starting menu's second reading, after root
		deleted int
		subRead int // readings of the menu of s with --delete
	}{
		{"same", "", 3, 2},
		{"first was cut", "9b\tROOT/b\tHOST\tPORT\r\n", 0, 1},
		{"gone", "GONE", 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var asked counter
			addr := scriptedGopher(t, func(line string, _ int) string {
				n := asked.add(line) // in this run
				switch line {
				case "/r":
					if n > 1 && tc.second == "GONE" {
						return "3gone\t\terror.host\t1\r\n"
					}
					if n > 1 {
						return strings.ReplaceAll(root+tc.second, "ROOT", "/r")
					}
					return strings.ReplaceAll(root, "ROOT", "/r")
				case "/r/s":
					return "9c\t/r/s/c\tHOST\tPORT\r\n"
				case "/r/a", "/r/b", "/r/s/c":
					return "data of " + line
				}
				return "3no\t\terror.host\t1\r\n"
			})
			dir := t.TempDir()
			run := func(del bool) (*Summary, error) {
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				return Run(ctx, drivers{"gopher": &gopher.Driver{}}, uri.MustParse("gopher://"+addr+"/1/r"), dir,
					Options{Delete: del, Request: proto.Request{IdleTimeout: 5 * time.Second}})
			}
			putFiles(t, dir, map[string]string{"b": "", "s/d": "", "gone/e": ""})
			if s, err := run(false); err != nil || s.New != 2 || asked.get("/r") != 1 || asked.get("/r/s") != 1 {
				t.Fatalf("without --delete: %v, %d new, menus asked %d and %d times; want 2 new, each once",
					err, s.New, asked.get("/r"), asked.get("/r/s"))
			}
			asked.reset()
			s, err := run(true)
			confirmed := tc.deleted > 0
			if s.Deleted != tc.deleted || confirmed != (err == nil) || err != nil && (!errors.Is(err, ErrPartial) || s.Failed != 1) {
				t.Errorf("with --delete: %v, %d deleted, %d failed; want %d deleted", err, s.Deleted, s.Failed, tc.deleted)
			}
			if n := asked.get("/r"); n != 2 {
				t.Errorf("the starting menu was asked %d times, want 2", n)
			}
			if n := asked.get("/r/s"); n != tc.subRead {
				t.Errorf("the menu of s was asked %d times, want %d", n, tc.subRead)
			}
			checkFiles(t, dir, !confirmed, "b", "gone/e", "s/d")
			checkFiles(t, dir, true, "a", "s/c", menuName, "s/"+menuName)
		})
	}
}

// Issue 29: a gopher menu that cannot be read (nothing but lines that are
// no menu lines: NUL garbage, a port that is no number) is a failed
// directory, counted in the report, the run ErrPartial; a menu with some
// such lines is mirrored and its lines counted (Summary.Unparsed) and
// named; a menu that sends nothing at all is, from a server that ends its
// menus with a "." line, a failed directory, and from one never seen to
// send it (pygopherd's empty directory), an empty directory. With --delete
// nothing below a failed menu, or one with such lines, is deleted.
func TestMirrorGopherUnreadableMenus(t *testing.T) {
	for _, tt := range []struct {
		name     string
		dot      string // the "." line of the menus that have one, or ""
		failed   []string
		unparsed int
		keep     []string
		gone     []string
	}{
		{"server that sends the dot", ".\r\n", []string{"empty", "garbage"}, 2,
			[]string{"some/x", "some/old", "garbage/old", "empty/old"}, []string{"empty/gophermap"}},
		// With --delete the empty menu is read again, and is nothing
		// again: what was below it goes.
		{"server that never sends it", "", []string{"garbage"}, 2,
			[]string{"some/x", "some/old", "garbage/old", "empty/gophermap"}, []string{"empty/old"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			addr := scriptedGopher(t, func(line string, _ int) string {
				switch line {
				case "":
					return "1garbage\t/garbage\tHOST\tPORT\r\n1empty\t/empty\tHOST\tPORT\r\n1some\t/some\tHOST\tPORT\r\n" + tt.dot
				case "/garbage":
					return strings.Repeat("\x00\x00\x00\r\n", 30)
				case "/empty":
					return ""
				case "/some":
					return "9x\t/some/x\tHOST\tPORT\r\n9y\t/some/y\tHOST\tabc\r\n\x00\r\n" + tt.dot
				case "/some/x":
					return "data of " + line
				}
				return "3no\t\terror.host\t1\r\n.\r\n"
			})
			dir := t.TempDir()
			putFiles(t, dir, map[string]string{"empty/old": "gone from an empty menu", "garbage/old": "kept", "some/old": "kept"})
			s, err := runGopher(t, addr, dir, Options{Delete: true})
			if !errors.Is(err, ErrPartial) || s.Failed != len(tt.failed) || s.Unparsed != tt.unparsed {
				t.Fatalf("Run = %v, %d failed, %d unparsed; want ErrPartial, %d, %d", err, s.Failed, s.Unparsed, len(tt.failed), tt.unparsed)
			}
			var failed []string
			for _, e := range s.Entries {
				if e.Status == StatusFailed {
					failed = append(failed, e.Path)
				}
			}
			slices.Sort(failed) // listed by several listers at once
			if strings.Join(failed, " ") != strings.Join(tt.failed, " ") {
				t.Errorf("failed entries %q, want %q", failed, tt.failed)
			}
			var named int
			for _, w := range s.Warnings {
				if w.Kind == WarnUnparsed && w.Path == "some" {
					named++
				}
			}
			if named != 2 {
				t.Errorf("%d warnings name the unparsed lines of some/, want 2: %+v", named, s.Warnings)
			}
			checkFiles(t, dir, true, tt.keep...)
			checkFiles(t, dir, false, tt.gone...)
		})
	}
}
