package mirror

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"time"
)

// manifestName is the manifest's path inside the target directory.
const manifestName = stateDir + "/manifest.json"

// Record is what the manifest keeps about one mirrored file.
type Record struct {
	Size    int64     `json:"size"`
	ModTime time.Time `json:"remote_time,omitzero"`
	// ExactTime is the time MDTM gave when the listing's (ModTime) is
	// coarser (LIST: minutes or days); zero otherwise. A later run
	// whose listing shows the same size and time asks MDTM again, and
	// fetches the file only when MDTM gives another time.
	ExactTime time.Time `json:"exact_time,omitzero"`
	// Fetched is when the transfer of a file with a coarse and fresh
	// listed time (coarseTimes) began, by this machine's clock, until
	// MDTM gives ExactTime: a version whose MDTM time is not after it
	// is the one fetched.
	Fetched time.Time `json:"fetched,omitzero"`
	SHA256  string    `json:"sha256"`
	URL     string    `json:"url"`
	// Link is the target of a recreated symbolic link; empty for files.
	Link string `json:"link,omitempty"`
}

// manifest is the in-memory manifest. It is safe for concurrent use.
type manifest struct {
	mu      sync.Mutex
	dirty   bool              // changed since loaded or saved
	fresh   bool              // there was no manifest to load
	size    int               // bytes of the last manifest saved
	Version int               `json:"version"`
	Source  string            `json:"source"`
	Files   map[string]Record `json:"files"`
	// Groups and MessageIDs are kept by a news mirror (news.go); a
	// manifest without them (an FTP tree, or one written before they
	// existed) loads with them empty.
	Groups     map[string]GroupMark `json:"groups,omitempty"`
	MessageIDs map[string]string    `json:"message_ids,omitempty"`
}

// GroupMark is what the manifest keeps about one mirrored newsgroup: the
// highest article number stored (the next run asks only for newer ones)
// and the low water mark the server gave last time.
type GroupMark struct {
	High int64 `json:"high"`
	Low  int64 `json:"low"`
}

func loadManifest(root *os.Root) (*manifest, error) {
	b, err := root.ReadFile(manifestName)
	if errors.Is(err, fs.ErrNotExist) {
		return &manifest{Version: 1, Files: map[string]Record{}, fresh: true}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("mirror: read manifest: %w", err)
	}
	m, err := decodeManifest(b)
	if err != nil {
		// A manifest that does not parse is treated as absent: every file is
		// then compared by size and time on disk, so nothing is lost.
		return &manifest{Version: 1, Files: map[string]Record{}}, nil
	}
	return m, nil
}

// empty reports whether the manifest records nothing: no file, link,
// group or article.
func (m *manifest) empty() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.Files) == 0 && len(m.Groups) == 0 && len(m.MessageIDs) == 0
}

// len returns how many files and links the manifest records.
func (m *manifest) len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.Files)
}

func (m *manifest) get(rel string) (Record, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.Files[rel]
	return r, ok
}

func (m *manifest) put(rel string, r Record) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.Files[rel] = r
	m.dirty = true
}

func (m *manifest) remove(rel string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.Files, rel)
	m.dirty = true
}

// setSource records the (redacted) URL the tree comes from.
func (m *manifest) setSource(src string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.Source != src {
		m.Source, m.dirty = src, true
	}
}

// save writes the manifest atomically when it changed: to a temporary
// file in the same directory, synced, then renamed over the old one, so
// that a reader (or the next run after a crash) sees the old or the new
// manifest, never half of one. A run that changed nothing writes nothing.
// before, when not nil, is called between taking the manifest's state and
// writing it (see Syncer); when it fails nothing is written.
func (m *manifest) save(root *os.Root, before func() error) error {
	m.mu.Lock()
	if !m.dirty {
		m.mu.Unlock()
		return nil
	}
	b, err := m.encode()
	m.dirty = false
	m.mu.Unlock()
	if err != nil {
		return fmt.Errorf("mirror: encode manifest: %w", err)
	}
	if before != nil {
		if err := before(); err != nil {
			m.markDirty()
			return fmt.Errorf("mirror: manifest not saved: %w", err)
		}
	}
	if err := writeAtomic(root, manifestName, append(b, '\n')); err != nil {
		m.markDirty()
		return fmt.Errorf("mirror: write manifest: %w", err)
	}
	m.mu.Lock()
	m.size = len(b) + 1
	m.mu.Unlock()
	return nil
}

// savedSize returns the bytes of the last manifest saved (0 when this
// run saved none).
func (m *manifest) savedSize() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.size
}

// writeAtomic writes b to name+".tmp", syncs it and renames it to name.
func writeAtomic(root *os.Root, name string, b []byte) error {
	if err := root.MkdirAll(stateDir, 0o755); err != nil {
		return err
	}
	tmp := name + ".tmp"
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, werr := f.Write(b)
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		root.Remove(tmp)
		return err
	}
	return root.Rename(tmp, name)
}

func (m *manifest) markDirty() {
	m.mu.Lock()
	m.dirty = true
	m.mu.Unlock()
}
