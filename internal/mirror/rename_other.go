//go:build !linux

package mirror

import "os"

// renameBetween renames oldRel to newRel through the root (the handles are
// only a shortcut on Linux).
func renameBetween(root *os.Root, _ *dirHandle, _ string, _ *dirHandle, _, oldRel, newRel string) error {
	return root.Rename(oldRel, newRel)
}
