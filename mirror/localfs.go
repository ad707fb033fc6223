package mirror

import (
	"io/fs"
	"os"
	"path"
	"sync"
)

// dirs keeps, for the run, one handle per local directory it works in
// (the directories of the tree and of .fetch/partial), each opened once
// through the target's os.Root. A file operation then names one path
// component relative to its directory's handle instead of walking the
// whole relative path again: a mirror of thousands of files makes a few
// system calls per file, not dozens. Handles are opened beneath the root
// (os.Root.OpenRoot), so they can never be outside it, and every name
// given to them is a single checked component.
type dirs struct {
	root *os.Root

	mu sync.Mutex
	m  map[string]*dirHandle
}

type dirHandle struct {
	root *os.Root
	once sync.Once
	file *os.File // the directory itself, for renameat; opened on demand
	err  error
}

func newDirs(root *os.Root) *dirs { return &dirs{root: root, m: map[string]*dirHandle{}} }

// open returns the handle of directory rel ("." for the target), making
// the directory first when create is set.
func (d *dirs) open(rel string, create bool) (*dirHandle, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if h, ok := d.m[rel]; ok {
		return h, nil
	}
	if create && rel != "." {
		if err := d.root.MkdirAll(rel, 0o755); err != nil {
			return nil, err
		}
	}
	sub, err := d.root.OpenRoot(rel)
	if err != nil {
		return nil, err
	}
	h := &dirHandle{root: sub}
	d.m[rel] = h
	return h, nil
}

// forget drops the handle of rel (its directory is being replaced).
func (d *dirs) forget(rel string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if h, ok := d.m[rel]; ok {
		h.close()
		delete(d.m, rel)
	}
}

func (d *dirs) close() {
	d.mu.Lock()
	defer d.mu.Unlock()
	for rel, h := range d.m {
		h.close()
		delete(d.m, rel)
	}
}

func (h *dirHandle) close() {
	if h.file != nil {
		h.file.Close()
	}
	h.root.Close()
}

// dirFile returns the directory opened as a file.
func (h *dirHandle) dirFile() (*os.File, error) {
	h.once.Do(func() { h.file, h.err = h.root.Open(".") })
	return h.file, h.err
}

// split returns the directory and the last component of a relative path.
func split(rel string) (dir, name string) {
	return path.Dir(rel), path.Base(rel)
}

// lstat is root.Lstat(rel) through the handle of rel's directory; a
// directory that does not exist gives fs.ErrNotExist.
func (d *dirs) lstat(rel string) (fs.FileInfo, error) {
	dir, name := split(rel)
	h, err := d.open(dir, false)
	if err != nil {
		return nil, err
	}
	return h.root.Lstat(name)
}

// rename moves the file oldRel to newRel (both in the tree under the
// root, in two directories: a partial file into place), replacing what
// newRel names.
func (d *dirs) rename(oldRel, newRel string) error {
	od, oname := split(oldRel)
	nd, nname := split(newRel)
	oh, err := d.open(od, false)
	if err != nil {
		return err
	}
	nh, err := d.open(nd, false)
	if err != nil {
		return err
	}
	return renameBetween(d.root, oh, oname, nh, nname, oldRel, newRel)
}
