package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestSubcommandsBadInput drives the commands other than get and mirror
// with input they cannot use and output they cannot write: each ends
// with a message naming what failed and the documented exit code, never
// 0 when something was lost.
func TestSubcommandsBadInput(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	manifest := filepath.Join(dir, "m.json")
	writeTestFile(t, file, "see <URL:ftp://h/a>\n")
	writeTestFile(t, manifest, `{"version":1,"source":"ftp://h/","files":{}}`)
	empty := filepath.Join(dir, "empty")
	writeTestFile(t, empty, "")
	binary := filepath.Join(dir, "binary")
	writeTestFile(t, binary, "\x00\xff\xfe <ftp://h/\x00b> \xc3")
	missing := filepath.Join(dir, "missing")
	under := filepath.Join(file, "sub")
	ref, small, noDisk := manPages(t)

	rows := []struct {
		name   string
		out    string // "full": /dev/full; "pipe": a pipe whose reader is gone
		stdin  string
		args   []string
		code   int
		errHas string // the message names this
		outHas string
		check  func(t *testing.T)
		skip   error
	}{
		{name: "extract missing", args: []string{"extract", missing}, code: 1, errHas: missing},
		{name: "extract dir", args: []string{"extract", dir}, code: 1, errHas: dir},
		{name: "extract binary", args: []string{"extract", binary}, code: 0},
		{name: "extract empty", args: []string{"extract", empty}, code: 0},
		{name: "extract full", out: "full", args: []string{"extract", file}, code: 1, errHas: "no space"},
		{name: "extract pipe", out: "pipe", args: []string{"extract", file}, code: 1, errHas: "broken pipe"},
		{name: "extract missing second", args: []string{"extract", file, missing}, code: 1, errHas: missing, outHas: "ftp://h/a"},
		{name: "resolve NUL ref", args: []string{"resolve", "ftp://h/a", "b\x00"}, code: 3},
		{name: "resolve bad UTF-8 base", args: []string{"resolve", "ftp://h/\xff", "b"}, code: 0, outHas: "ftp://h/b"},
		{name: "resolve empty ref", args: []string{"resolve", "ftp://h/a/b", ""}, code: 0, outHas: "ftp://h/a/b"},
		{name: "resolve full", out: "full", args: []string{"resolve", "ftp://h/a", "b"}, code: 1, errHas: "no space"},
		{name: "resolve pipe", out: "pipe", args: []string{"resolve", "ftp://h/a", "b"}, code: 1, errHas: "broken pipe"},
		{name: "resolve bad rfc", args: []string{"resolve", "--rfc", "9999", "ftp://h/a", "b"}, code: 2},
		{name: "lint empty stdin", args: []string{"lint"}, code: 0},
		{name: "lint NUL stdin", stdin: "ftp://h/\x00\n", args: []string{"lint"}, code: 4, outHas: "malformed"},
		{name: "lint long line", stdin: strings.Repeat("a", 2<<20), args: []string{"lint"}, code: 1, errHas: "stdin"},
		{name: "lint full", out: "full", args: []string{"lint", "ftp://h/a"}, code: 1, errHas: "no space"},
		{name: "lint pipe", out: "pipe", args: []string{"lint", "ftp://h/a"}, code: 1, errHas: "broken pipe"},
		{name: "lint port over 65535", args: []string{"lint", "--allow-port", "99999", "ftp://h/a"}, code: 2, errHas: "99999"},
		{name: "lint output flag", args: []string{"lint", "-o", file, "ftp://h/a"}, code: 2},
		{name: "parse NUL", args: []string{"parse", "ftp://h/\x00"}, code: 3},
		{name: "parse empty", args: []string{"parse", ""}, code: 0, outHas: "scheme: \"\""},
		{name: "parse full", out: "full", args: []string{"parse", "ftp://h/a"}, code: 1, errHas: "no space"},
		{name: "parse pipe", out: "pipe", args: []string{"parse", "--json", "ftp://h/a"}, code: 1, errHas: "broken pipe"},
		{name: "merge missing", args: []string{"manifest", "merge", "-o", filepath.Join(dir, "o1"), missing}, code: 1, errHas: missing},
		{name: "merge dir without manifest", args: []string{"manifest", "merge", "-o", filepath.Join(dir, "o2"), dir}, code: 1, errHas: dir},
		{name: "merge empty", args: []string{"manifest", "merge", "-o", filepath.Join(dir, "o3"), empty}, code: 1, errHas: empty},
		{name: "merge binary", args: []string{"manifest", "merge", "-o", filepath.Join(dir, "o4"), binary}, code: 1, errHas: binary},
		{name: "merge out under file", args: []string{"manifest", "merge", "-o", filepath.Join(under, "m.json"), manifest}, code: 1, errHas: file + ": not a directory"},
		{name: "merge out is dir", args: []string{"manifest", "merge", "-o", dir, manifest}, code: 1, errHas: dir},
		{name: "man full disk", args: []string{"man", small}, code: 1, errHas: "no space", skip: noDisk, check: func(t *testing.T) {
			// Each page at its name is whole; no temporary name is left.
			names, _ := filepath.Glob(filepath.Join(small, "*"))
			for _, n := range names {
				got, _ := os.ReadFile(n)
				if want := ref[filepath.Base(n)]; string(got) != want {
					t.Errorf("%s: %d bytes, want %d (the whole page)", n, len(got), len(want))
				}
			}
		}},
		{name: "man under file", args: []string{"man", under}, code: 1, errHas: file + ": not a directory"},
		{name: "completion bad shell", args: []string{"completion", "csh"}, code: 2},
		{name: "completion full", out: "full", args: []string{"completion", "bash"}, code: 1, errHas: "no space"},
		{name: "completion pipe", out: "pipe", args: []string{"completion", "zsh"}, code: 1, errHas: "broken pipe"},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			if r.skip != nil {
				t.Skip(r.skip)
			}
			e, out, errb := newEnv(r.stdin, &netlog{})
			switch r.out {
			case "full":
				f, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
				if err != nil {
					t.Skip(err)
				}
				defer f.Close()
				e.out = f
			case "pipe":
				pr, pw, err := os.Pipe()
				if err != nil {
					t.Fatal(err)
				}
				pr.Close()
				defer pw.Close()
				e.out = pw
			}
			code := runIn(t, e, r.args...)
			if code != r.code || !strings.Contains(errb.String(), r.errHas) || !strings.Contains(out.String(), r.outHas) {
				t.Errorf("fetch %q: exit %d, want %d; stderr %q (want it to name %q); stdout %q", r.args, code, r.code, errb.String(), r.errHas, out.String())
			}
			if r.check != nil {
				r.check(t)
			}
		})
	}
	// Nothing partial at a final path: no temporary name is left in dir.
	names, _ := filepath.Glob(filepath.Join(dir, ".*"))
	if len(names) > 0 {
		t.Errorf("left behind: %q", names)
	}
}

func writeTestFile(t *testing.T, name, s string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// manPages returns the man pages by file name, and an empty disk too
// small for them all, or why there is none (mounting needs root; under
// CI=true it must work).
func manPages(t *testing.T) (map[string]string, string, error) {
	t.Helper()
	dir := t.TempDir()
	if r := runArgs(t, nil, "", "man", dir); r.code != 0 {
		t.Fatalf("fetch man: exit %d: %s", r.code, r.err)
	}
	pages := map[string]string{}
	size := 0
	names, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, n := range names {
		b, _ := os.ReadFile(n)
		pages[filepath.Base(n)] = string(b)
		size += len(b)/4096*4096 + 4096 // tmpfs counts whole pages
	}
	small := t.TempDir()
	err := syscall.Mount("tmpfs", small, "tmpfs", 0, fmt.Sprintf("size=%d", size/2))
	if err != nil && os.Getenv("CI") == "true" {
		t.Fatalf("mount a tmpfs: %v (CI runs as root)", err)
	}
	if err == nil {
		t.Cleanup(func() { syscall.Unmount(small, 0) })
	}
	return pages, small, err
}
