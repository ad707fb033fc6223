package mirror

import (
	"errors"
	"fmt"
	"strings"
)

// errNotLocal is what the reasons a remote name cannot be a local name
// wrap: the entry is a real one of the remote tree that the mirror does
// not write, so it is a failed entry of the report (exit 8), not a
// skipped one.
var errNotLocal = errors.New("not written: the name cannot be a local name")

// maxNameLen is the longest name of one path component, in bytes
// (NAME_MAX of Linux and the BSDs; Windows and macOS allow 255 UTF-16
// units or UTF-8 bytes, no fewer). maxRelLen bounds a relative path so
// that it fits in PATH_MAX (4096 bytes, with its NUL) below the state
// directory's partial tree, where it is written first.
const (
	maxNameLen = 255
	maxRelLen  = 4095 - len(partMeta) - 1
)

// Reasons an entry is skipped rather than written. They appear in the
// report next to the entry.
var (
	errNameEmpty     = errors.New("empty name")
	errNameDot       = errors.New(`name is "." or ".."`)
	errNameSlash     = errors.New(`name contains "/" or "\"`)
	errNameControl   = errors.New("name contains a control character or NUL")
	errNameReserved  = fmt.Errorf("%w: it is reserved for the mirror's own state (.fetch)", errNotLocal)
	errNameMenu      = fmt.Errorf("%w: it is reserved for the kept gopher menus (gophermap)", errNotLocal)
	errNameLong      = fmt.Errorf("%w: it is longer than %d bytes", errNotLocal, maxNameLen)
	errPathLong      = fmt.Errorf("%w: its path is longer than %d bytes", errNotLocal, maxRelLen)
	errNameWindows   = fmt.Errorf("%w: it is reserved on Windows (CON, PRN, AUX, NUL, COM0-COM9, LPT0-LPT9, with any extension)", errNotLocal)
	errNameEnd       = fmt.Errorf("%w: it ends with a space or a dot, which Windows drops", errNotLocal)
	errNameChar      = fmt.Errorf(`%w: it contains one of < > : " | ? *, which Windows does not allow`, errNotLocal)
	errOutsideTarget = errors.New("path leaves the target directory")
	errLinkOutside   = errors.New("symbolic link target leaves the target directory")
	errOtherServer   = errors.New("entry is on another host or port")
	errNotBelow      = errors.New("entry is not below the starting point")
	errNotFile       = errors.New("not a file")
)

// stateDir is the mirror's own folder inside the target: manifest and
// partial downloads.
const stateDir = ".fetch"

// checkName validates one remote name before it becomes one component of
// a local path: no separators, no "." or "..", no control characters or
// NUL. The rules follow io/fs.ValidPath, stricter, but for one: a name
// need not be UTF-8. The names of old archives are bytes in the charset
// of the machine that made them (Latin-1, CP437, Shift JIS, KOI8-R), and
// a local file keeps them byte for byte, as lftp and wget keep them; the
// manifest keeps them as PEP 383 escapes (jsonstr.AppendBytes).
func checkName(name string) error {
	switch {
	case name == "":
		return errNameEmpty
	case name == "." || name == "..":
		return errNameDot
	case strings.ContainsAny(name, `/\`):
		return errNameSlash
	}
	for i := 0; i < len(name); i++ {
		if name[i] < 0x20 || name[i] == 0x7f {
			return errNameControl
		}
	}
	return checkLocal(name)
}

// checkLocal refuses the names that some system the mirror may be made
// on, or copied to, cannot hold as they are: longer than maxNameLen
// bytes; and on every system, so that a mirror made on Linux can be
// copied to Windows, the names Windows reserves or changes (device names
// with any extension: "CON", "aux.txt", "com1.tar.gz", "lpt1 .txt";
// a name ending with a space or a dot; one holding < > : " | ? *). The
// names are refused, not mapped: a mapping could collide with a real
// name of the tree, and the report names each one (exit 8).
func checkLocal(name string) error {
	switch {
	case len(name) > maxNameLen:
		return errNameLong
	case strings.HasSuffix(name, " ") || strings.HasSuffix(name, "."):
		return errNameEnd
	case strings.ContainsAny(name, `<>:"|?*`):
		return errNameChar
	case windowsDevice(name):
		return errNameWindows
	}
	return nil
}

// windowsDevice reports whether Windows takes name for a device: its part
// before the first dot, without trailing spaces, is CON, PRN, AUX, NUL,
// COM0-COM9 or LPT0-LPT9 (also with a superscript 1, 2 or 3), in any
// case.
func windowsDevice(name string) bool {
	stem, _, _ := strings.Cut(name, ".")
	stem = strings.TrimRight(stem, " ")
	if len(stem) > len("COM¹") {
		// No device name is longer: the common name costs no upper-case
		// copy (a listing of many names would make one for each).
		return false
	}
	stem = strings.ToUpper(stem)
	switch stem {
	case "CON", "PRN", "AUX", "NUL":
		return true
	}
	if len(stem) < 4 || stem[:3] != "COM" && stem[:3] != "LPT" {
		return false
	}
	switch d := stem[3:]; d {
	case "¹", "²", "³":
		return true
	default:
		return len(d) == 1 && d[0] >= '0' && d[0] <= '9'
	}
}

// checkRel validates a slash-separated relative path made of remote names.
func checkRel(rel string) error {
	if rel == "" || strings.HasPrefix(rel, "/") {
		return errOutsideTarget
	}
	for i, part := range strings.Split(rel, "/") {
		if err := checkName(part); err != nil {
			return err
		}
		if i == 0 && isStateDir(part) {
			return errNameReserved
		}
	}
	return checkRelLen(rel)
}

// checkRelLen refuses a relative path longer than maxRelLen.
func checkRelLen(rel string) error {
	if len(rel) > maxRelLen {
		return errPathLong
	}
	return nil
}

// isStateDir reports whether name, at the top of the target, is the
// state directory's as some file system takes it (sameName).
func isStateDir(name string) bool { return sameName(name, stateDir) }

// sameName reports whether some file system the mirror may be made on or
// copied to takes name for the mirror's own name own: in any case (NTFS,
// APFS); with the code points HFS+ leaves out of names dropped
// (".fe\u200ctch"); or as the 8.3 short name NTFS gives own ("FETCH~1",
// "GOPHER~1"). Git refuses ".git" in these forms for the same reason.
func sameName(name, own string) bool {
	short := strings.TrimLeft(own, ".")
	short = short[:min(len(short), 6)] + "~"
	if n := len(short); len(name) == n+1 && strings.EqualFold(name[:n], short) && name[n] >= '1' && name[n] <= '4' {
		return true
	}
	return strings.EqualFold(strings.Map(func(r rune) rune {
		if r >= 0x200c && r <= 0x200f || r >= 0x202a && r <= 0x202e || r >= 0x206a && r <= 0x206f || r == 0xfeff {
			return -1
		}
		return r
	}, name), own)
}

// joinRel joins a directory's relative path and a child name.
func joinRel(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}
