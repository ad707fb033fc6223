package mirror

import (
	"errors"
	"fmt"
	"os"
	"path"
	"sync"
)

// written collects the paths a news mirror wrote since the manifest was
// last saved, so that they are on stable storage before the manifest
// records them (see run.beforeSave). A news mirror never looks at a stored
// article again: an article file left empty or short by a power loss
// after the manifest named it would stay so for good, where a file mirror
// finds a file of the wrong size and fetches it again. It is safe for
// concurrent use.
type written struct {
	mu   sync.Mutex
	rels []string
}

func (w *written) add(rel string) {
	w.mu.Lock()
	w.rels = append(w.rels, rel)
	w.mu.Unlock()
}

// sync puts the files written so far on stable storage (syncWritten) and
// forgets them; on failure it keeps them, for the next save to try again.
func (w *written) sync(root *os.Root) error {
	w.mu.Lock()
	rels := w.rels
	w.rels = nil
	w.mu.Unlock()
	if len(rels) == 0 {
		return nil
	}
	if err := syncWritten(root, rels); err != nil {
		w.mu.Lock()
		w.rels = append(rels, w.rels...)
		w.mu.Unlock()
		return err
	}
	return nil
}

// syncEach fsyncs each file of rels (paths below root), then each
// directory that holds one, so that the file's data and its name (a
// rename into place, a hard link) survive a crash. A file gone since is
// skipped (deleted, or replaced: its replacement is in rels too). The
// directories are synced where the system allows it: some refuse fsync on
// a directory, and there nothing more can be done.
func syncEach(root *os.Root, rels []string) error {
	dirs := map[string]bool{}
	var errs []error
	for _, rel := range rels {
		f, err := root.Open(rel)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err == nil {
			err = f.Sync()
			f.Close()
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		dirs[path.Dir(rel)] = true
	}
	for dir := range dirs {
		if d, err := root.Open(dir); err == nil {
			d.Sync()
			d.Close()
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("mirror: sync articles: %w", err)
	}
	return nil
}
