package mirror

// pathSet holds the paths the walk found on the remote side, and what it
// took at each (claim): one small value a path, so that the walk of a
// tree of a million files holds about 60 bytes for each (and its path,
// which the manifest shares), where a map of entryKind and one of bools
// held 130 to 210. The rare entry whose facts do not fit (a link, a time
// beyond Unix nanoseconds) keeps its entryKind in odd. The caller holds
// run.mu.
type pathSet struct {
	paths *table[seenKind]
	odd   map[string]entryKind
}

// seenKind is an entryKind packed, or a path only seen (mark).
type seenKind struct {
	size  int64
	mtime int64 // packTime
	flags uint8
}

const (
	seenDir  = 1 << iota // a directory
	seenOnly             // seen (a kept gopher menu), not taken by claim
	seenOdd              // the entryKind is in pathSet.odd
)

func newPathSet() pathSet {
	return pathSet{paths: &table[seenKind]{}, odd: map[string]entryKind{}}
}

// has reports whether rel was found on the remote side.
func (s *pathSet) has(rel string) bool {
	_, ok := s.paths.get(rel)
	return ok
}

// mark records rel as found, taken by nothing yet.
func (s *pathSet) mark(rel string) {
	if _, ok := s.paths.get(rel); !ok {
		s.paths.put(rel, seenKind{flags: seenOnly})
	}
}

// lookup returns what was taken at rel: seen is false for a path not
// found, taken false for one only seen (mark).
func (s *pathSet) lookup(rel string) (k entryKind, taken, seen bool) {
	v, seen := s.paths.get(rel)
	switch {
	case !seen || v.flags&seenOnly != 0:
		return k, false, seen
	case v.flags&seenOdd != 0:
		return s.odd[rel], true, true
	case v.flags&seenDir != 0:
		return entryKind{dir: true}, true, true
	}
	return entryKind{size: v.size, mtime: unpackTime(v.mtime)}, true, true
}

// take records k at rel.
func (s *pathSet) take(rel string, k entryKind) {
	if k.dir {
		s.paths.put(rel, seenKind{flags: seenDir})
		return
	}
	mtime, ok := packTime(k.mtime)
	if k.link != "" || !ok {
		s.paths.put(rel, seenKind{flags: seenOdd})
		s.odd[rel] = k
		return
	}
	s.paths.put(rel, seenKind{size: k.size, mtime: mtime})
}
