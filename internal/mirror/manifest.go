package mirror

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"sync"
	"time"
)

// manifestName is the manifest's path inside the target directory.
const manifestName = stateDir + "/manifest.json"

// Record is what the manifest keeps about one mirrored file.
type Record struct {
	Size    int64     `json:"size"`
	ModTime time.Time `json:"remote_time,omitzero"`
	SHA256  string    `json:"sha256"`
	URL     string    `json:"url"`
	// Link is the target of a recreated symbolic link; empty for files.
	Link string `json:"link,omitempty"`
}

// manifest is the in-memory manifest. It is safe for concurrent use.
type manifest struct {
	mu      sync.Mutex
	Version int               `json:"version"`
	Source  string            `json:"source"`
	Files   map[string]Record `json:"files"`
}

func loadManifest(root *os.Root) (*manifest, error) {
	m := &manifest{Version: 1, Files: map[string]Record{}}
	b, err := root.ReadFile(manifestName)
	if errors.Is(err, fs.ErrNotExist) {
		return m, nil
	}
	if err != nil {
		return nil, fmt.Errorf("mirror: read manifest: %w", err)
	}
	if err := json.Unmarshal(b, m); err != nil {
		// A manifest that does not parse is treated as absent: every file is
		// then compared by size and time on disk, so nothing is lost.
		return &manifest{Version: 1, Files: map[string]Record{}}, nil
	}
	if m.Files == nil {
		m.Files = map[string]Record{}
	}
	return m, nil
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
}

func (m *manifest) remove(rel string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.Files, rel)
}

// save writes the manifest atomically: to a temporary file in the same
// directory, then renamed over the old one, so that a reader (or the next
// run after a crash) sees the old or the new manifest, never half of one.
func (m *manifest) save(root *os.Root) error {
	m.mu.Lock()
	keys := make([]string, 0, len(m.Files))
	for k := range m.Files {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b, err := json.MarshalIndent(m, "", "  ")
	m.mu.Unlock()
	if err != nil {
		return fmt.Errorf("mirror: encode manifest: %w", err)
	}
	if err := root.MkdirAll(stateDir, 0o755); err != nil {
		return fmt.Errorf("mirror: %w", err)
	}
	tmp := manifestName + ".tmp"
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("mirror: write manifest: %w", err)
	}
	_, werr := f.Write(append(b, '\n'))
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		root.Remove(tmp)
		return fmt.Errorf("mirror: write manifest: %w", err)
	}
	if err := root.Rename(tmp, manifestName); err != nil {
		return fmt.Errorf("mirror: write manifest: %w", err)
	}
	return nil
}
