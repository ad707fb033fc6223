package mirror

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"syscall"
)

// errDiskFull is what the failures of a run whose disk filled up wrap:
// the transfer that hit it, and every file the run did not fetch after.
var errDiskFull = errors.New("the local disk is full")

// diskFull reports whether err says the file system has no room left:
// ENOSPC, or the user's quota (EDQUOT); on Windows ERROR_DISK_FULL and
// ERROR_HANDLE_DISK_FULL.
func diskFull(err error) bool {
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) || errors.Is(err, errDiskFull) {
		return true
	}
	var en syscall.Errno
	return runtime.GOOS == "windows" && errors.As(err, &en) && (en == 112 || en == 39)
}

// noteFull records that the disk is full, once: the run fetches no more
// files (each one left is a failed entry, named) and, at its end, frees
// the reserve to save the manifest of what it did.
func (r *run) noteFull(err error) {
	if r.full.Swap(true) {
		return
	}
	r.sum.mu.Lock()
	r.sum.Notices = append(r.sum.Notices, fmt.Sprintf("the local disk is full (%v): no more files fetched; each one left is a failed entry", err))
	r.sum.mu.Unlock()
}

// The reserve is a file in the state directory that holds room for the
// manifest: at the end of a run whose disk filled up, it is removed before
// the manifest is saved, so that the manifest of what the run did can be
// written where nothing else could. It is kept at reserveMin bytes plus
// twice the last manifest saved (the manifest grows between two saves),
// filled with bytes that no file system compresses or shares.
const (
	reserveName = stateDir + "/reserve"
	reserveMin  = 64 << 10
)

// reserveFor returns the size of the reserve for a manifest of n bytes.
func reserveFor(n int) int64 { return reserveMin + 2*int64(n) }

// growReserve makes the reserve at least size bytes; it stays as it is
// when it is larger, and when the disk has no room for more.
func (r *run) growReserve(size int64) error {
	if err := r.root.MkdirAll(stateDir, 0o755); err != nil {
		return err
	}
	f, err := r.root.OpenFile(reserveName, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.Size() >= size {
		return err
	}
	if _, err := f.Seek(st.Size(), io.SeekStart); err != nil {
		return err
	}
	var seed [32]byte
	rng := rand.NewChaCha8(seed)
	_, err = io.CopyN(r.writeThrough(reserveName, f), rng, size-st.Size())
	if err != nil {
		f.Truncate(st.Size())
	}
	return err
}

// keepReserve makes the reserve, at the start of a run that writes, big
// enough for the manifest the target holds (none: reserveMin).
func (r *run) keepReserve() {
	if r.opts.DryRun {
		return
	}
	size := 0
	if st, err := r.root.Stat(manifestName); err == nil {
		size = int(st.Size())
	}
	r.growReserve(reserveFor(size))
}

// releaseReserve removes the reserve, giving its room to the manifest.
func (r *run) releaseReserve() { r.root.Remove(reserveName) }

// writeThrough returns the writer of the data of the local file rel
// (a partial file, the reserve): w, or what Options.writeThrough makes
// of it (tests: a disk that fills up).
func (r *run) writeThrough(rel string, w io.Writer) io.Writer {
	if r.opts.writeThrough == nil {
		return w
	}
	return r.opts.writeThrough(rel, w)
}
