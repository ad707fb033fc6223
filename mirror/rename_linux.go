package mirror

import (
	"errors"
	"os"
	"runtime"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// renameBetween renames oname in directory oh to nname in directory nh
// with one renameat(2) on the two directories' descriptors. Both names are
// single components, so nothing is resolved outside the two handles, and
// renameat never follows a symbolic link in its last component.
func renameBetween(_ *os.Root, oh *dirHandle, oname string, nh *dirHandle, nname, oldRel, newRel string) error {
	if strings.ContainsRune(oname, '/') || strings.ContainsRune(nname, '/') {
		return &os.LinkError{Op: "rename", Old: oldRel, New: newRel, Err: errors.New("name is not one path component")}
	}
	of, err := oh.dirFile()
	if err != nil {
		return err
	}
	nf, err := nh.dirFile()
	if err != nil {
		return err
	}
	err = syscall.Renameat(int(of.Fd()), oname, int(nf.Fd()), nname)
	runtime.KeepAlive(of)
	runtime.KeepAlive(nf)
	if err != nil {
		return &os.LinkError{Op: "rename", Old: oldRel, New: newRel, Err: err}
	}
	return nil
}

// setTimes sets the access and modification times of the open file f to t
// with one utimensat(2) on its descriptor, instead of resolving its name
// again.
func setTimes(f *os.File, t time.Time) error {
	ts := []unix.Timespec{unix.NsecToTimespec(t.UnixNano()), unix.NsecToTimespec(t.UnixNano())}
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := rc.Control(func(fd uintptr) {
		serr = unix.UtimesNanoAt(int(fd), "", ts, unix.AT_EMPTY_PATH)
	}); err != nil {
		return err
	}
	if serr != nil {
		return &os.PathError{Op: "utimensat", Path: f.Name(), Err: serr}
	}
	return nil
}
