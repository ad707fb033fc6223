package mirror

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
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
	unread  error             // why the manifest on disk was read as none
	size    int               // bytes of the last manifest saved
	Version int               `json:"version"`
	Source  string            `json:"source"`
	Files   map[string]Record `json:"files"` // the records not packed
	// packed holds, for a file mirror (packing; not for a news mirror
	// and the tools that read a manifest), the records that fit a packed
	// value, by path: a path is in Files or packed, never both.
	packed  table[packed]
	packing bool
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

// loadManifest reads the target's manifest; with pack (a file mirror),
// the records that fit are kept packed. A manifest that does not parse
// is treated as absent (unread says why): every file is then compared by
// size and time on disk, so nothing is lost.
func loadManifest(root *os.Root, pack bool) (*manifest, error) {
	f, err := root.Open(manifestName)
	if errors.Is(err, fs.ErrNotExist) {
		m := newManifest(pack)
		m.fresh = true
		return m, nil
	}
	if err != nil {
		return nil, fmt.Errorf("mirror: read manifest: %w", err)
	}
	defer f.Close()
	m, err := streamManifest(f, pack)
	if errors.Is(err, errLayout) {
		// Not the layout encode writes (edited by hand, or written
		// by another program): decoded whole.
		var b []byte
		if _, err = f.Seek(0, io.SeekStart); err == nil {
			b, err = io.ReadAll(f)
		}
		if err != nil {
			return nil, fmt.Errorf("mirror: read manifest: %w", err)
		}
		if m, err = decodeManifest(b); err == nil && pack {
			m.packAll()
		}
	}
	if err != nil {
		var perr *fs.PathError
		if errors.As(err, &perr) {
			return nil, fmt.Errorf("mirror: read manifest: %w", err)
		}
		m = newManifest(pack)
		m.unread = err
	}
	return m, nil
}

// newManifest returns an empty manifest, packing (see packed) or not.
func newManifest(pack bool) *manifest {
	return &manifest{Version: 1, Files: map[string]Record{}, packing: pack}
}

// packAll moves the records of Files that fit into packed.
func (m *manifest) packAll() {
	m.packing = true
	for rel, r := range m.Files {
		if p, ok := pack(rel, r, m.Source); ok {
			m.packed.put(rel, p)
			delete(m.Files, rel)
		}
	}
}

// unpackAll moves every packed record back into Files.
func (m *manifest) unpackAll() {
	m.packed.all(func(rel string, p packed) bool {
		m.Files[rel] = p.record(rel, m.Source)
		return true
	})
	m.packed = table[packed]{}
}

// empty reports whether the manifest records nothing: no file, link,
// group or article.
func (m *manifest) empty() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.Files) == 0 && m.packed.len() == 0 && len(m.Groups) == 0 && len(m.MessageIDs) == 0
}

// len returns how many files and links the manifest records.
func (m *manifest) len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.Files) + m.packed.len()
}

// dirs returns how many directories below the start hold a file the
// manifest records, counting up to most.
func (m *manifest) dirs(most int) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	seen := map[string]bool{}
	count := func(rel string) bool {
		if d := path.Dir(rel); d != "." {
			seen[d] = true
		}
		return len(seen) < most
	}
	for rel := range m.Files {
		if !count(rel) {
			return most
		}
	}
	m.packed.all(func(rel string, _ packed) bool { return count(rel) })
	return min(len(seen), most)
}

func (m *manifest) get(rel string) (Record, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.getLocked(rel)
}

// getLocked is get for a caller that holds m.mu.
func (m *manifest) getLocked(rel string) (Record, bool) {
	if p, ok := m.packed.get(rel); ok {
		return p.record(rel, m.Source), true
	}
	r, ok := m.Files[rel]
	return r, ok
}

// key returns rel, as the string the manifest holds when it records
// rel packed: the walk keeps that one (claim), and a path of a re-run is
// held once, not twice.
func (m *manifest) key(rel string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if e := m.packed.find(rel); e != nil {
		return e.key
	}
	return rel
}

func (m *manifest) put(rel string, r Record) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.putLocked(rel, r)
	m.dirty = true
}

// putLocked records r at rel, packed when it fits; the caller holds m.mu.
func (m *manifest) putLocked(rel string, r Record) {
	if m.packing {
		if p, ok := pack(rel, r, m.Source); ok {
			m.packed.put(rel, p)
			delete(m.Files, rel)
			return
		}
		m.packed.delete(rel)
	}
	m.Files[rel] = r
}

func (m *manifest) remove(rel string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.Files, rel)
	m.packed.delete(rel)
	// A news mirror's index names the article no more.
	maps.DeleteFunc(m.MessageIDs, func(_, p string) bool { return p == rel })
	m.dirty = true
}

// setSource records the (redacted) URL the tree comes from. The packed
// records hold their URLs as the source followed by their paths: when
// the source changes, they are unpacked with the old one first.
func (m *manifest) setSource(src string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.Source != src {
		if m.packed.len() > 0 {
			m.unpackAll()
		}
		m.Source, m.dirty = src, true
	}
}

// save writes the manifest atomically when it changed: to a temporary
// file in the same directory, synced, then renamed over the old one, so
// that a reader (or the next run after a crash) sees the old or the new
// manifest, never half of one. A run that changed nothing writes nothing.
// The manifest is written as it is encoded, record by record, under its
// lock; the sync and the rename come after.
// before, when not nil, is called between taking the manifest's state and
// writing it (see Syncer); when it fails nothing is written. The state
// taken is then a copy of the manifest.
func (m *manifest) save(root *os.Root, before func() error) error {
	m.mu.Lock()
	if !m.dirty {
		m.mu.Unlock()
		return nil
	}
	m.dirty = false
	src := m
	if before != nil {
		src = m.copyLocked()
		m.mu.Unlock()
		if err := before(); err != nil {
			m.markDirty()
			return fmt.Errorf("mirror: manifest not saved: %w", err)
		}
		src.mu.Lock()
	}
	n, err := writeAtomic(root, manifestName, src.writeTo)
	src.mu.Unlock()
	if err != nil {
		m.markDirty()
		if errors.Is(err, errEncode) {
			return fmt.Errorf("mirror: encode manifest: %w", err)
		}
		return fmt.Errorf("mirror: write manifest: %w", err)
	}
	m.mu.Lock()
	m.size = int(n)
	m.mu.Unlock()
	return nil
}

// copyLocked returns a copy of m, for a save that writes the state of
// one moment; the caller holds m.mu.
func (m *manifest) copyLocked() *manifest {
	return &manifest{Version: m.Version, Source: m.Source, Files: maps.Clone(m.Files), packed: m.packed.clone(), packing: m.packing,
		Groups: maps.Clone(m.Groups), MessageIDs: maps.Clone(m.MessageIDs)}
}

// savedSize returns the bytes of the last manifest saved (0 when this
// run saved none).
func (m *manifest) savedSize() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.size
}

// writeAtomic writes name+".tmp" with write (called with m.mu held by
// the caller of save), syncs it and renames it to name; it returns the
// bytes written.
func writeAtomic(root *os.Root, name string, write func(io.Writer) error) (int64, error) {
	if err := root.MkdirAll(stateDir, 0o755); err != nil {
		return 0, err
	}
	tmp := name + ".tmp"
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return 0, err
	}
	bw := bufio.NewWriterSize(f, 256<<10)
	werr := write(bw)
	if werr == nil {
		werr = bw.Flush()
	}
	var n int64
	if werr == nil {
		n, werr = f.Seek(0, io.SeekCurrent)
	}
	var serr error
	if werr == nil {
		serr = f.Sync()
	}
	cerr := f.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		root.Remove(tmp)
		return 0, err
	}
	return n, root.Rename(tmp, name)
}

func (m *manifest) markDirty() {
	m.mu.Lock()
	m.dirty = true
	m.mu.Unlock()
}
