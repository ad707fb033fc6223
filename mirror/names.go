package mirror

import (
	"errors"
	"strings"
)

// Reasons an entry is skipped rather than written. They appear in the
// report next to the entry.
var (
	errNameEmpty     = errors.New("empty name")
	errNameDot       = errors.New(`name is "." or ".."`)
	errNameSlash     = errors.New(`name contains "/" or "\"`)
	errNameControl   = errors.New("name contains a control character or NUL")
	errNameReserved  = errors.New("name is reserved for the mirror's own state (.fetch)")
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
	return nil
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
		if i == 0 && part == stateDir {
			return errNameReserved
		}
	}
	return nil
}

// joinRel joins a directory's relative path and a child name.
func joinRel(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}
