package main

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/rfc1738/fetch/fetch"
)

// An output file on Linux is written as an unnamed file (open(2) with
// O_TMPFILE, in the directory of its final name) and given its final name
// with linkat(2) once complete: no partial file ever has a name, and a new
// file costs its directory one change, where a temporary name and a
// rename cost two (with many small files at once, get -Z, the directory
// changes are most of the time: BENCHMARKS.md, "Parallel get"). When the
// final name exists already, the file is linked under a temporary name
// and renamed over it, as elsewhere. linkat names the file through
// /proc/self/fd: without /proc, or on a file system without O_TMPFILE,
// the temporary name is used from the start (createTemp).

// procFD reports whether /proc/self/fd can name open files.
var procFD = sync.OnceValue(func() bool {
	fi, err := os.Stat("/proc/self/fd")
	return err == nil && fi.IsDir()
})

// openUnnamed returns the sink of an unnamed file for final, or false when
// the system or file system cannot make one.
func openUnnamed(final string) (sink, bool) {
	if !procFD() {
		return nil, false
	}
	fd, err := unix.Open(filepath.Dir(final), unix.O_TMPFILE|unix.O_WRONLY|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, false
	}
	f := os.NewFile(uintptr(fd), final)
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return nil, false
	}
	return &unnamedSink{errWriter: errWriter{f}, f: f, final: final}, true
}

// unnamedSink writes an unnamed file that commit links at final.
type unnamedSink struct {
	errWriter
	f     *os.File
	final string
}

// WriterFile, Wrote and FileError let a body move its bytes into the file
// without reading them (proto.FileWriter).
func (s *unnamedSink) WriterFile() *os.File      { return s.f }
func (s *unnamedSink) Wrote(int64)               {}
func (s *unnamedSink) FileError(err error) error { return &writeError{err} }

func (s *unnamedSink) commit(resp *fetch.Response, keepTime bool) error {
	defer s.f.Close()
	if keepTime && !resp.ModTime.IsZero() {
		ts := unix.NsecToTimespec(resp.ModTime.UnixNano())
		unix.UtimesNanoAt(int(s.f.Fd()), "", []unix.Timespec{ts, ts}, unix.AT_EMPTY_PATH)
	}
	if err := s.link(); err != nil {
		return &writeError{err}
	}
	if err := s.f.Close(); err != nil {
		return &writeError{err}
	}
	return nil
}

// link names the file final: at once when final does not exist, else
// under a temporary name renamed over it.
func (s *unnamedSink) link() error {
	src := "/proc/self/fd/" + strconv.Itoa(int(s.f.Fd()))
	err := unix.Linkat(unix.AT_FDCWD, src, unix.AT_FDCWD, s.final, unix.AT_SYMLINK_FOLLOW)
	if !errors.Is(err, unix.EEXIST) {
		if err != nil {
			return &os.LinkError{Op: "link", Old: src, New: s.final, Err: err}
		}
		return nil
	}
	dir, base := filepath.Dir(s.final), filepath.Base(s.final)
	for range 100 {
		tmp := filepath.Join(dir, "."+base+"."+strconv.FormatUint(rand.Uint64(), 36)+".tmp")
		err := unix.Linkat(unix.AT_FDCWD, src, unix.AT_FDCWD, tmp, unix.AT_SYMLINK_FOLLOW)
		if errors.Is(err, unix.EEXIST) {
			continue
		}
		if err != nil {
			return &os.LinkError{Op: "link", Old: src, New: tmp, Err: err}
		}
		if err := renameFile(tmp, s.final); err != nil {
			os.Remove(tmp)
			return err
		}
		return nil
	}
	return &os.LinkError{Op: "link", Old: src, New: s.final, Err: os.ErrExist}
}

// abort drops the file: an unnamed file disappears with its descriptor.
func (s *unnamedSink) abort() { s.f.Close() }
