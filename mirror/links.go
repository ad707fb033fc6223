package mirror

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// A symbolic link from a listing is judged by where it leads, not by how
// its target reads: "e -> x/y/d/.." stays inside when read alone, but not
// when x/y/d is itself a link to "../..". So the links of a run are not
// made as they are listed. They are kept until the walk is over, then each
// is resolved as the kernel would resolve it, against a model of the tree
// as it will stand: what is on disk, with the listed links in place of
// what stood at their paths. A link that leads out of the target, into its
// state directory, or through more than maxLinkHops links is refused, and
// taken out of the model; the others are resolved again without it, until
// none is refused. Only then are the links made. The links that earlier
// runs made and this run did not list again are resolved too: one that a
// change of the tree now leads out is removed.

// maxLinkHops bounds the links followed to resolve one path, as Linux's
// MAXSYMLINKS (40) does.
const maxLinkHops = 40

var (
	errLinkState = errors.New("symbolic link target leads into the mirror's own state (.fetch)")
	errLinkLoop  = errors.New("symbolic link target does not resolve: more than 40 links on the way")
)

// linkModel is the tree against which links are resolved: the disk below
// root, where over sets the links of the run and gone removes the refused
// ones. Both are keyed by name (fold).
type linkModel struct {
	root *os.Root
	over map[string]string // relative path -> link target
	gone map[string]bool   // relative paths taken out
	// fold maps a relative path to the key of the names the file
	// system takes for one: itself where names differ by case,
	// lower case where they do not.
	fold func(string) string
}

// foldCase tells whether the file systems of this system take names
// that differ by case for one name, as Windows' and macOS's do by
// default: there a link "X" is what a target "x/.." passes through.
var foldCase = runtime.GOOS == "windows" || runtime.GOOS == "darwin"

func newLinkModel(root *os.Root) *linkModel {
	m := &linkModel{root: root, over: map[string]string{}, gone: map[string]bool{}, fold: func(s string) string { return s }}
	if foldCase {
		m.fold = strings.ToLower
	}
	return m
}

func (m *linkModel) set(rel, target string) { m.over[m.fold(rel)] = target }

// has reports whether the model has a link of the run at rel.
func (m *linkModel) has(rel string) bool {
	_, ok := m.over[m.fold(rel)]
	return ok
}

// lookup reports whether rel is a link in the model, and its target; on
// disk only when onDisk. Its parent directories have been resolved
// already (resolve), so that the lookup on disk passes no link.
func (m *linkModel) lookup(rel string, onDisk bool) (target string, isLink bool) {
	if m.gone[m.fold(rel)] {
		return "", false
	}
	if t, ok := m.over[m.fold(rel)]; ok {
		return t, true
	}
	if !onDisk {
		return "", false
	}
	st, err := m.root.Lstat(rel)
	if err != nil || st.Mode()&fs.ModeSymlink == 0 {
		return "", false
	}
	t, err := m.root.Readlink(rel)
	if err != nil {
		return "", true // a link that cannot be read is refused
	}
	return filepath.ToSlash(t), true
}

// resolve follows rel from the root, every link on the way and rel itself
// if it is one, and reports why the result would not lie inside the tree
// and out of its state directory (nil when it would). A name that is not
// there, or not a directory, is passed through as if it were a directory:
// stricter than the kernel, which fails there, so that a later change
// that makes it one leads nowhere new.
func (m *linkModel) resolve(rel string) error {
	todo := reversed(rel) // components still to walk, the next one last
	var cur []string      // the resolved path so far
	missing := 0          // len(cur) where a name not on disk was passed, 0 when none
	hops := 0
	for len(todo) > 0 {
		c := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		switch c {
		case "", ".":
			continue
		case "..":
			if len(cur) == 0 {
				return errLinkOutside
			}
			cur = cur[:len(cur)-1]
			if len(cur) < missing {
				missing = 0
			}
			continue
		}
		cur = append(cur, c)
		if isStateDir(cur[0]) {
			return errLinkState
		}
		target, isLink := m.lookup(strings.Join(cur, "/"), missing == 0)
		if !isLink {
			if missing == 0 && m.absent(cur) {
				missing = len(cur)
			}
			continue
		}
		if hops++; hops > maxLinkHops {
			return errLinkLoop
		}
		if !plainTarget(target) {
			return errLinkOutside
		}
		cur = cur[:len(cur)-1]
		todo = append(todo, reversed(target)...)
	}
	return nil
}

// absent reports whether the path cur is not a directory of the model:
// below it, nothing is looked up on disk.
func (m *linkModel) absent(cur []string) bool {
	rel := strings.Join(cur, "/")
	if m.gone[m.fold(rel)] {
		return true
	}
	st, err := m.root.Lstat(rel)
	return err != nil || !st.IsDir()
}

// plainTarget reports whether a link target can be resolved inside the
// tree at all: not empty, not absolute, no backslash (a separator on
// Windows), no volume name (Windows) and no NUL.
func plainTarget(t string) bool {
	return t != "" && !strings.HasPrefix(t, "/") && !strings.ContainsAny(t, "\\\x00") &&
		filepath.VolumeName(filepath.FromSlash(t)) == ""
}

// reversed splits a slash path into its components, last first.
func reversed(p string) []string {
	parts := strings.Split(p, "/")
	slices.Reverse(parts)
	return parts
}

// settle resolves the links at rels until none more is refused, and
// returns why each was refused. Each round resolves every link against
// the model as the round found it, then takes the refused ones out: a
// link that leads through a refused one is refused with it, whatever
// the order of their names. Refusals only take links out, so it ends
// within len(rels) rounds.
func (m *linkModel) settle(rels []string) map[string]error {
	refused := map[string]error{}
	for {
		round := map[string]error{}
		for _, rel := range rels {
			if refused[rel] != nil {
				continue
			}
			if err := m.resolve(rel); err != nil {
				round[rel] = err
			}
		}
		if len(round) == 0 {
			return refused
		}
		for rel, err := range round {
			refused[rel] = err
			m.gone[m.fold(rel)] = true
		}
	}
}

// addLink keeps a listed link for placeLinks.
func (r *run) addLink(rf remoteFile) {
	r.mu.Lock()
	r.links = append(r.links, rf)
	r.mu.Unlock()
}

// placeLinks makes the links the walk found, those that resolve inside
// (see above), and removes those of earlier runs that no longer do. A
// link is not made where a file or a directory stands.
func (r *run) placeLinks() {
	slices.SortFunc(r.links, func(a, b remoteFile) int { return strings.Compare(a.rel, b.rel) })
	m := newLinkModel(r.root)
	var rels []string
	for _, rf := range r.links {
		if st, err := r.root.Lstat(rf.rel); err == nil && st.Mode()&fs.ModeSymlink == 0 {
			r.sum.add(EntryReport{Path: rf.rel, URL: rf.url().Redacted(), Status: StatusSkipped,
				Reason: "a file or directory stands at this local path"})
			continue
		}
		m.set(rf.rel, rf.link)
		rels = append(rels, rf.rel)
	}
	old := r.earlierLinks(m)
	refused := m.settle(append(rels, old...))
	for _, rf := range r.links {
		if !m.has(rf.rel) {
			continue
		}
		if err := refused[rf.rel]; err != nil {
			r.refuseLink(rf, err)
			continue
		}
		r.sum.add(r.makeLink(rf))
	}
	for _, rel := range old {
		if err := refused[rel]; err != nil {
			r.removeLink(rel, err)
		}
	}
}

// earlierLinks returns the links the manifest records that this run did
// not list (m has them), and that still stand on disk, sorted.
func (r *run) earlierLinks(m *linkModel) []string {
	r.m.mu.Lock()
	var rels []string
	for rel, rec := range r.m.Files {
		if !m.has(rel) && rec.Link != "" {
			rels = append(rels, rel)
		}
	}
	r.m.mu.Unlock()
	slices.Sort(rels)
	return slices.DeleteFunc(rels, func(rel string) bool {
		st, err := r.root.Lstat(rel)
		return err != nil || st.Mode()&fs.ModeSymlink == 0
	})
}

// refuseLink reports a listed link that does not resolve inside, and
// removes the link an earlier run made at its path.
func (r *run) refuseLink(rf remoteFile, why error) {
	rep := EntryReport{Path: rf.rel, URL: rf.url().Redacted(), Status: StatusSkipped, Reason: why.Error() + ": " + quoteName(rf.link)}
	if !r.opts.DryRun {
		if st, err := r.root.Lstat(rf.rel); err == nil && st.Mode()&fs.ModeSymlink != 0 {
			r.root.Remove(rf.rel)
		}
		r.m.remove(rf.rel)
	}
	r.sum.add(rep)
}

// removeLink removes a link an earlier run made, which no longer resolves
// inside.
func (r *run) removeLink(rel string, why error) {
	rep := EntryReport{Path: rel, Status: StatusDeleted, Reason: "a link of an earlier run: " + why.Error()}
	if r.opts.DryRun {
		rep.Reason = "dry run: would delete " + rep.Reason
		r.sum.add(rep)
		return
	}
	if err := r.root.Remove(rel); err != nil {
		rep.Status, rep.Reason = StatusFailed, "cannot remove "+rep.Reason+": "+err.Error()
	} else {
		r.m.remove(rel)
	}
	r.sum.add(rep)
}

// makeLink makes one link that resolves inside.
func (r *run) makeLink(rf remoteFile) EntryReport {
	rep := EntryReport{Path: rf.rel, URL: rf.url().Redacted()}
	cur, err := r.root.Readlink(rf.rel)
	exists := err == nil
	if rec, ok := r.m.get(rf.rel); ok && rec.Link == rf.link && exists && filepath.ToSlash(cur) == rf.link {
		rep.Status = StatusUnchanged
		return rep
	}
	rep.Status = StatusNew
	if exists {
		rep.Status = StatusUpdated
	}
	if r.opts.DryRun {
		rep.Reason = "dry run: would link"
		return rep
	}
	if exists {
		r.root.Remove(rf.rel)
	}
	if dir := path.Dir(rf.rel); dir != "." {
		if err := r.root.MkdirAll(dir, 0o755); err != nil {
			rep.Status, rep.Reason = StatusFailed, err.Error()
			return rep
		}
	}
	if err := r.root.Symlink(rf.link, rf.rel); err != nil {
		rep.Status, rep.Reason = StatusFailed, err.Error()
		return rep
	}
	r.m.put(rf.rel, Record{Size: 0, Link: rf.link, URL: rf.url().Redacted()})
	return rep
}
