//go:build !unix

package main

import (
	"errors"
	"os"
	"path/filepath"
)

// createTemp creates a new file beside final, named ".NAME.RANDOM.tmp",
// mode 0644, for writing; a failure names final.
func createTemp(final string) (*os.File, error) {
	f, err := os.CreateTemp(filepath.Dir(final), "."+filepath.Base(final)+".*.tmp")
	if err != nil {
		// The user's own name, not the temporary one.
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, &os.PathError{Op: "create", Path: final, Err: err}
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
