package mirror

import (
	"bufio"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
)

// ErrShard is a shard setting that cannot work (Options.Shard, Shards).
var ErrShard = errors.New("mirror: bad shard")

// ShardOf returns the shard, 0 .. n-1, that owns the file at rel (its path
// relative to the mirror's root, "/"-separated, as in the manifest): the
// FNV-1a 64-bit hash of rel's bytes, modulo n. It depends on nothing but
// rel and n, so independent processes agree on it without talking.
func ShardOf(rel string, n int) int {
	if n <= 1 {
		return 0
	}
	h := fnv.New64a()
	io.WriteString(h, rel)
	return int(h.Sum64() % uint64(n))
}

func checkShard(o Options) error {
	switch {
	case o.Shards < 0 || o.Shard < 0:
		return fmt.Errorf("%w: %d/%d: negative", ErrShard, o.Shard, o.Shards)
	case o.Shards <= 1 && o.Shard != 0:
		return fmt.Errorf("%w: %d/%d: shard without a count", ErrShard, o.Shard, o.Shards)
	case o.Shards > 1 && o.Shard >= o.Shards:
		return fmt.Errorf("%w: %d/%d: shards are numbered from 0 to %d", ErrShard, o.Shard, o.Shards, o.Shards-1)
	case o.Shards > 1 && o.Delete:
		return fmt.Errorf("%w: --delete cannot be combined with shards (a shard does not see the others' files)", ErrShard)
	}
	return nil
}

// maxManifestSize bounds a manifest read by MergeManifests.
const maxManifestSize = 1 << 30

// MergeError is a file that two manifests record differently.
type MergeError struct {
	Path        string // the file, relative to the mirror's root
	First, Next string // the manifests
}

func (e *MergeError) Error() string {
	return fmt.Sprintf("mirror: merge: %q is recorded differently in %s and %s", e.Path, e.First, e.Next)
}

// MergeManifests joins the manifests of a mirror's shards (the
// DIR/.fetch/manifest.json of each, or the files themselves) into one,
// written to out atomically. The manifests must come from the same source
// URL; a file recorded by two of them must be recorded alike (a
// *MergeError otherwise).
func MergeManifests(out string, in ...string) error {
	if len(in) == 0 {
		return errors.New("mirror: merge: no manifest given")
	}
	merged := &manifest{Version: 1, Files: map[string]Record{}}
	from := map[string]string{}
	for i, name := range in {
		if st, err := os.Stat(name); err == nil && st.IsDir() {
			name = filepath.Join(name, filepath.FromSlash(manifestName))
		}
		m, err := readManifestFile(name)
		if err != nil {
			return err
		}
		if len(m.Groups) > 0 || len(m.MessageIDs) > 0 {
			// A group's high water mark says that every article up to it
			// is stored: true of one run, not of a union of runs.
			return fmt.Errorf("mirror: merge: %s is a news mirror's manifest: news manifests cannot be merged", name)
		}
		if i == 0 {
			merged.Source, merged.Version = m.Source, m.Version
		} else if m.Source != merged.Source {
			return fmt.Errorf("mirror: merge: %s mirrors %q, %s mirrors %q", in[0], merged.Source, name, m.Source)
		}
		for rel, r := range m.Files {
			if old, ok := merged.Files[rel]; ok && !sameRecord(old, r) {
				return &MergeError{Path: rel, First: from[rel], Next: name}
			}
			merged.Files[rel], from[rel] = r, name
		}
	}
	err := os.MkdirAll(filepath.Dir(out), 0o755)
	if err == nil {
		err = replaceFile(out, merged.writeTo)
	}
	if err != nil {
		return fmt.Errorf("mirror: merge: %w", err)
	}
	return nil
}

// replaceFile writes the file name with write, atomically: into a
// temporary file beside it (mode 0644), synced, then renamed over it.
func replaceFile(name string, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // fails, harmlessly, after the rename
	w := bufio.NewWriterSize(tmp, 256<<10)
	err = write(w)
	if err == nil {
		err = errors.Join(w.Flush(), tmp.Sync(), tmp.Chmod(0o644))
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), name)
}

func readManifestFile(name string) (*manifest, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("mirror: merge: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxManifestSize+1))
	if err != nil {
		return nil, fmt.Errorf("mirror: merge: %s: %w", name, err)
	}
	if len(b) > maxManifestSize {
		return nil, fmt.Errorf("mirror: merge: %s: larger than %d bytes", name, maxManifestSize)
	}
	m, err := decodeManifest(b)
	if err != nil {
		return nil, fmt.Errorf("mirror: merge: %s: not a manifest: %w", name, err)
	}
	return m, nil
}

func sameRecord(a, b Record) bool {
	return a.Size == b.Size && a.ModTime.Equal(b.ModTime) && a.SHA256 == b.SHA256 && a.URL == b.URL && a.Link == b.Link
}
