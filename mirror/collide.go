package mirror

import (
	"fmt"
	"time"

	"github.com/rfc1738/fetch/uri"
)

// Two entries of a walk may want one local path: a gopher menu that lists
// the document /a and the menu /a/, an index page that links "a" and
// "a/", an FTP listing that names one entry twice. A file and a directory
// cannot share a name on disk, so one of them is not mirrored, and is
// named in the report as failed (the run is partial, exit 8):
//
//   - in one listing, the directory is kept and the file is not (take
//     queues a listing's directories before its files);
//   - across listings (gopher menus, index pages), the entry taken first
//     is kept;
//   - an entry listed again as what it was, with the same facts (size,
//     time, link target), is the same entry: a menu or a page may link to
//     an entry twice, or to a menu already walked. Listed again with other
//     facts, the first is kept and the other is failed.

// entryKind is what the walk took at a path: a directory, or a file with
// its facts as listed (size -1 and a zero time when not given).
type entryKind struct {
	dir   bool
	size  int64
	mtime time.Time
	link  string
}

// same reports whether k and o are one entry: both directories, or files
// whose facts agree where both listings give them (a gopher menu may
// give a time where another menu's listing of the item gave none).
func (k entryKind) same(o entryKind) bool {
	switch {
	case k.dir || o.dir:
		return k.dir == o.dir
	case k.link != o.link:
		return false
	case k.size >= 0 && o.size >= 0 && k.size != o.size:
		return false
	}
	return k.mtime.IsZero() || o.mtime.IsZero() || k.mtime.Equal(o.mtime)
}

func (k entryKind) String() string {
	s := fmt.Sprintf("size %d, time %s", k.size, k.mtime.UTC().Format(time.DateTime))
	if k.link != "" {
		s += ", link to " + quoteName(k.link)
	}
	return s
}

// claim records rel as present on the remote side, as an entry of kind k;
// it reports false when rel was taken before. An entry of another kind
// or other facts than the one taken is a name collision: it is reported
// failed, with its URL (u, called then only), and a directory so refused
// is kept out of Delete.
func (r *run) claim(rel string, k entryKind, u func() *uri.URL) bool {
	key := r.m.key(rel)
	r.mu.Lock()
	prev, taken, seen := r.seen.lookup(rel)
	if !seen {
		r.seen.take(key, k)
		r.mu.Unlock()
		return true
	}
	if taken && !prev.same(k) && k.dir {
		r.unlistable = append(r.unlistable, rel)
	}
	r.mu.Unlock()
	if taken && !prev.same(k) {
		r.sum.add(EntryReport{Path: rel, URL: u().Redacted(), Status: StatusFailed, Reason: collision(prev, k)})
	}
	return false
}

// collision says why an entry of kind k is not mirrored where one of kind
// prev was taken.
func collision(prev, k entryKind) string {
	switch {
	case prev.dir && k.link != "":
		return "name collision: a directory of this name is mirrored, this link is not"
	case prev.dir:
		return "name collision: a directory of this name is mirrored, this file is not"
	case k.dir:
		return "name collision: a file of this name is mirrored, this directory and what it holds are not"
	}
	return "name collision: listed again with other facts (" + k.String() + "; the entry mirrored: " + prev.String() + ")"
}
