package mirror

import (
	"bufio"
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rfc1738/fetch/proto/gopher"
	"github.com/rfc1738/fetch/uri"
)

// scriptedGopher is a gopher server on 127.0.0.1:0 that answers each
// request line (without its CRLF) with answer(line), "HOST\tPORT" in the
// answer standing for its own address, then closes. It stops when the
// test ends.
func scriptedGopher(t *testing.T, answer func(line string) string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	host, port, _ := net.SplitHostPort(ln.Addr().String())
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
				a := answer(strings.TrimRight(line, "\r\n"))
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
	addr := scriptedGopher(t, func(line string) string {
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
	addr := scriptedGopher(t, func(line string) string {
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
