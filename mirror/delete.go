package mirror

import (
	"context"
	"io/fs"
	"slices"
	"sort"
	"strings"
)

// deleteStale removes local files and links that the remote side no longer
// has. It walks the target through the os.Root, which never follows a
// symbolic link, and leaves the state directory and excluded paths alone.
// Directories emptied by this are removed too, deepest first. A gopher
// menu that ended at the close is read again before anything below it is
// deleted (confirmMenus).
func (r *run) deleteStale(ctx context.Context) {
	var stale, dirs []string
	fs.WalkDir(r.root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == "." {
			return nil
		}
		if p == stateDir || strings.HasPrefix(p, stateDir+"/") {
			return fs.SkipDir
		}
		if r.opts.excludes(p, d.IsDir()) || r.belowUnlistable(p) || r.hiddenFrom(p) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if r.seen.has(p) {
			return nil
		}
		if d.IsDir() {
			dirs = append(dirs, p)
		} else {
			stale = append(stale, p)
		}
		return nil
	})
	r.confirmMenus(ctx, append(stale, dirs...))
	for _, p := range stale {
		if !r.belowUnlistable(p) {
			r.deleteLocal(p, "")
		}
	}
	if r.opts.DryRun {
		return
	}
	sort.Sort(sort.Reverse(sort.StringSlice(dirs)))
	for _, d := range dirs {
		if !r.belowUnlistable(d) {
			r.root.Remove(d) // fails, harmlessly, when not empty
		}
	}
}

// deleteLocal removes the local file rel, which the remote side no
// longer has, with its record, and reports it deleted for reason; a dry
// run reports what it would do.
func (r *run) deleteLocal(rel, reason string) {
	rep := EntryReport{Path: rel, Status: StatusDeleted, Reason: reason}
	if r.opts.DryRun {
		rep.Reason = "dry run: would delete"
	} else if err := r.root.Remove(rel); err != nil {
		rep.Status, rep.Reason = StatusFailed, "delete: "+err.Error()
	} else {
		r.m.remove(rel)
	}
	r.sum.add(rep)
}

// keepOut keeps Delete out of the directory rel and what lies below it:
// its listing failed or is in doubt.
func (r *run) keepOut(rel string) {
	r.mu.Lock()
	r.unlistable = append(r.unlistable, rel)
	r.mu.Unlock()
}

// belowUnlistable reports whether p is a directory whose listing failed in
// this run, or lies below one: what the remote side holds there is unknown.
// Every path lies below the starting directory ("").
func (r *run) belowUnlistable(p string) bool {
	return slices.ContainsFunc(r.unlistable, func(d string) bool { return d == "" || p == d || strings.HasPrefix(p, d+"/") })
}

// hiddenFrom reports whether p is, or lies below, a name beginning with a
// dot in a directory whose listing left such names out (the server
// refused LIST -a): whether the server holds it is unknown, and a copy of
// a ".htaccess" the server still has is not deleted.
func (r *run) hiddenFrom(p string) bool {
	for _, d := range r.dotless {
		rest := p
		if d != "" {
			var ok bool
			if rest, ok = strings.CutPrefix(p, d+"/"); !ok {
				continue
			}
		}
		if strings.HasPrefix(rest, ".") {
			return true
		}
	}
	return false
}

// prunePartials removes, after a run that walked the whole tree, the
// partial downloads that no later run can use: every one whose entry did
// not fail in this run (the remote file is gone, excluded now, complete,
// or fetched again from its start). A failed entry keeps its partial file
// and record for the next run to resume, and so does everything below a
// directory whose listing failed. Directories left empty are removed.
func (r *run) prunePartials() {
	keep := map[string]bool{}
	r.sum.mu.Lock()
	for _, e := range r.sum.Entries {
		if e.Status == StatusFailed {
			keep[e.Path] = true
		}
	}
	r.sum.mu.Unlock()
	for _, top := range []string{partialDir, partMeta} {
		var dirs []string
		fs.WalkDir(r.root.FS(), top, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			rel := strings.TrimPrefix(strings.TrimPrefix(p, top), "/")
			if d.IsDir() {
				if rel != "" && r.belowUnlistable(rel) {
					return fs.SkipDir
				}
				dirs = append(dirs, p)
				return nil
			}
			if !keep[rel] {
				r.root.Remove(p)
			}
			return nil
		})
		sort.Sort(sort.Reverse(sort.StringSlice(dirs)))
		for _, d := range dirs {
			r.root.Remove(d) // fails, harmlessly, when not empty
		}
	}
}
