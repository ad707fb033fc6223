//go:build !linux

package mirror

import (
	"errors"
	"os"
	"time"
)

// renameBetween renames oldRel to newRel through the root (the handles are
// only a shortcut on Linux).
func renameBetween(root *os.Root, _ *dirHandle, _ string, _ *dirHandle, _, oldRel, newRel string) error {
	return root.Rename(oldRel, newRel)
}

// setTimes is not done through the descriptor here: the caller sets the
// times by name.
func setTimes(*os.File, time.Time) error { return errors.ErrUnsupported }
