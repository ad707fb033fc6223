//go:build unix

package main

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/afero"
)

// genFS is a read-only tree made up as it is read: the root holds dirs
// directories d00000, d00001, ..., each of them perDir files f0000.dat,
// f0001.dat, ... of size bytes, whose content depends on the path. Nothing
// is stored, so a tree of a million files costs the server nothing.
type genFS struct {
	dirs, perDir, size int
	mod                time.Time
}

// dirName and fileName are the names of the i-th directory and file.
func dirName(i int) string  { return fmt.Sprintf("d%05d", i) }
func fileName(i int) string { return fmt.Sprintf("f%04d.dat", i) }

// lookup splits a cleaned absolute path into its directory and file
// numbers: (-1, -1) is the root, (d, -1) a directory.
func (g *genFS) lookup(name string) (d, f int, err error) {
	name = path.Clean("/" + name)
	if name == "/" {
		return -1, -1, nil
	}
	parts := strings.Split(name[1:], "/")
	if len(parts) > 2 || !strings.HasPrefix(parts[0], "d") {
		return 0, 0, os.ErrNotExist
	}
	d, err = strconv.Atoi(parts[0][1:])
	if err != nil || d < 0 || d >= g.dirs || parts[0] != dirName(d) {
		return 0, 0, os.ErrNotExist
	}
	if len(parts) == 1 {
		return d, -1, nil
	}
	num, ok := strings.CutSuffix(strings.TrimPrefix(parts[1], "f"), ".dat")
	f, err = strconv.Atoi(num)
	if !ok || err != nil || f < 0 || f >= g.perDir || parts[1] != fileName(f) {
		return 0, 0, os.ErrNotExist
	}
	return d, f, nil
}

// content is the bytes of file f of directory d.
func (g *genFS) content(d, f int) []byte {
	line := fmt.Sprintf("%s/%s\n", dirName(d), fileName(f))
	return bytes.Repeat([]byte(line), g.size/len(line)+1)[:g.size]
}

type genInfo struct {
	name string
	size int64
	dir  bool
	mod  time.Time
}

func (i genInfo) Name() string       { return i.name }
func (i genInfo) Size() int64        { return i.size }
func (i genInfo) ModTime() time.Time { return i.mod }
func (i genInfo) IsDir() bool        { return i.dir }
func (i genInfo) Sys() any           { return nil }
func (i genInfo) Mode() fs.FileMode {
	if i.dir {
		return fs.ModeDir | 0o755
	}
	return 0o644
}

func (g *genFS) info(d, f int) genInfo {
	switch {
	case d < 0:
		return genInfo{name: "/", dir: true, mod: g.mod}
	case f < 0:
		return genInfo{name: dirName(d), dir: true, mod: g.mod}
	}
	return genInfo{name: fileName(f), size: int64(g.size), mod: g.mod}
}

func (g *genFS) Stat(name string) (os.FileInfo, error) {
	d, f, err := g.lookup(name)
	if err != nil {
		return nil, &os.PathError{Op: "stat", Path: name, Err: err}
	}
	return g.info(d, f), nil
}

func (g *genFS) Open(name string) (afero.File, error) {
	d, f, err := g.lookup(name)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: name, Err: err}
	}
	gf := &genFile{fs: g, name: name, d: d, f: f}
	if f >= 0 {
		gf.r = bytes.NewReader(g.content(d, f))
	}
	return gf, nil
}

func (g *genFS) OpenFile(name string, flag int, _ os.FileMode) (afero.File, error) {
	if flag&(os.O_WRONLY|os.O_RDWR|os.O_CREATE|os.O_TRUNC|os.O_APPEND) != 0 {
		return nil, &os.PathError{Op: "open", Path: name, Err: syscall.EROFS}
	}
	return g.Open(name)
}

func (g *genFS) Name() string { return "genfs" }

var errRO = syscall.EROFS

func (g *genFS) Create(string) (afero.File, error)           { return nil, errRO }
func (g *genFS) Mkdir(string, os.FileMode) error             { return errRO }
func (g *genFS) MkdirAll(string, os.FileMode) error          { return errRO }
func (g *genFS) Remove(string) error                         { return errRO }
func (g *genFS) RemoveAll(string) error                      { return errRO }
func (g *genFS) Rename(string, string) error                 { return errRO }
func (g *genFS) Chmod(string, os.FileMode) error             { return errRO }
func (g *genFS) Chown(string, int, int) error                { return errRO }
func (g *genFS) Chtimes(string, time.Time, time.Time) error  { return errRO }
func (f *genFile) Write([]byte) (int, error)                 { return 0, errRO }
func (f *genFile) WriteAt([]byte, int64) (int, error)        { return 0, errRO }
func (f *genFile) WriteString(string) (int, error)           { return 0, errRO }
func (f *genFile) Truncate(int64) error                      { return errRO }
func (f *genFile) Sync() error                               { return nil }
func (f *genFile) Close() error                              { return nil }
func (f *genFile) Name() string                              { return f.name }
func (f *genFile) Stat() (os.FileInfo, error)                { return f.fs.info(f.d, f.f), nil }
func (f *genFile) Seek(off int64, whence int) (int64, error) { return f.reader().Seek(off, whence) }
func (f *genFile) ReadAt(p []byte, off int64) (int, error)   { return f.reader().ReadAt(p, off) }
func (f *genFile) Read(p []byte) (int, error)                { return f.reader().Read(p) }
func (f *genFile) Readdirnames(n int) ([]string, error)      { return names(f.Readdir(n)) }
func names(infos []os.FileInfo, err error) ([]string, error) {
	out := make([]string, len(infos))
	for i, fi := range infos {
		out[i] = fi.Name()
	}
	return out, err
}

// genFile is an open file or directory of a genFS.
type genFile struct {
	fs   *genFS
	name string
	d, f int
	r    *bytes.Reader
	next int // the next entry Readdir returns
}

func (f *genFile) reader() *bytes.Reader {
	if f.r == nil {
		return bytes.NewReader(nil) // a directory reads as empty
	}
	return f.r
}

// Readdir returns the next n entries (all that are left when n <= 0).
func (f *genFile) Readdir(n int) ([]os.FileInfo, error) {
	if f.f >= 0 {
		return nil, syscall.ENOTDIR
	}
	total := f.fs.perDir
	if f.d < 0 {
		total = f.fs.dirs
	}
	left := total - f.next
	if n > 0 && left > n {
		left = n
	}
	if n > 0 && left == 0 {
		return nil, io.EOF
	}
	out := make([]os.FileInfo, 0, left)
	for i := f.next; i < f.next+left; i++ {
		if f.d < 0 {
			out = append(out, f.fs.info(i, -1))
		} else {
			out = append(out, f.fs.info(f.d, i))
		}
	}
	f.next += left
	return out, nil
}
