//go:build !unix

package main

import (
	"os"
	"path/filepath"
)

// createTemp creates a new file beside final, named ".NAME.RANDOM.tmp",
// mode 0644, for writing.
func createTemp(final string) (*os.File, error) {
	f, err := os.CreateTemp(filepath.Dir(final), "."+filepath.Base(final)+".*.tmp")
	if err != nil {
		return nil, err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return f, nil
}

// renameFile renames the file old to new.
func renameFile(old, new string) error { return os.Rename(old, new) }
