package mirror

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// DefaultMaxDepth is the depth bound of a walk when Options.MaxDepth is
// zero. It ends a chain of directories that a server generates without
// end (each menu linking to a deeper one), while real archives are rarely
// more than about 30 levels deep: 64 leaves them twice that.
const DefaultMaxDepth = 64

// ErrBound is returned (wrapped, together with ErrPartial) when a run
// stopped at one of its bounds (Options.MaxDepth, MaxFiles, Quota): what
// was fetched is kept and recorded, Summary.Bound names the bound.
var ErrBound = errors.New("mirror: a bound was reached")

// The bounds of a walk, as wget's -l and -Q have them.
//
// Depth: the starting directory is at depth 0, its entries at depth 1,
// and so on. With MaxDepth N the directories at depths 0 to N-1 are
// listed, so files down to depth N are fetched; a directory at depth N is
// not listed, and is reported as skipped. Nothing below it is deleted.
//
// Files and quota: a transfer starts only while fewer than MaxFiles
// transfers have started and fewer than Quota bytes have arrived; a
// transfer that started is finished, so the last file may take the run
// past the quota. Files left are reported as skipped, and no directory is
// listed after the bound is reached. Since the walk did not see the whole
// tree, nothing is deleted.
type bounds struct {
	maxDepth int   // < 0: none
	maxFiles int64 // 0: none
	quota    int64 // 0: none

	started atomic.Int64 // transfers started
	got     atomic.Int64 // bytes received, toward the quota

	mu      sync.Mutex
	reached string // the first bound reached, "" for none
	// stopped: the files or quota bound was reached, no new work.
	stopped atomic.Bool
}

func newBounds(o Options) *bounds {
	return &bounds{maxDepth: cmp.Or(o.MaxDepth, DefaultMaxDepth), maxFiles: o.MaxFiles, quota: o.Quota}
}

// reach records name as the bound reached, unless one was before.
func (b *bounds) reach(name string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.reached == "" {
		b.reached = name
	}
}

// name is the first bound reached, or "".
func (b *bounds) name() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.reached
}

// tooDeep reports whether a directory at depth is beyond the depth bound
// (not to be listed), recording the bound when it is.
func (b *bounds) tooDeep(depth int) bool {
	if b.maxDepth < 0 || depth < b.maxDepth {
		return false
	}
	b.reach(b.depthName())
	return true
}

func (b *bounds) depthName() string { return fmt.Sprintf("max-depth %d", b.maxDepth) }

// admit reports whether one more transfer may start, counting it when it
// may; it returns the bound that forbids it otherwise.
func (b *bounds) admit() (ok bool, bound string) {
	if b.quota > 0 && b.got.Load() >= b.quota {
		return false, b.stop(fmt.Sprintf("quota %d bytes", b.quota))
	}
	if b.maxFiles > 0 && b.started.Add(1) > b.maxFiles {
		return false, b.stop(fmt.Sprintf("max-files %d", b.maxFiles))
	}
	return !b.stopped.Load(), b.name()
}

// stop records the files or quota bound and stops new work.
func (b *bounds) stop(name string) string {
	b.reach(name)
	b.stopped.Store(true)
	return name
}

// depthOf is the depth of a directory by its relative path: the number of
// its segments ("" is the start, 0).
func depthOf(rel string) int {
	if rel == "" {
		return 0
	}
	return strings.Count(rel, "/") + 1
}

// boundSkip is the report of a directory or file the bound leaves out.
func boundSkip(rel, url, bound, what string) EntryReport {
	return EntryReport{Path: rel, URL: url, Status: StatusSkipped, Reason: what + ": the bound " + bound + " was reached"}
}

// beyondBound reports whether the directory d is not to be listed: it is
// beyond the depth bound (reported, and nothing below it deleted), or the
// files or quota bound stopped the walk.
func (r *run) beyondBound(d dirJob) bool {
	if r.bound.stopped.Load() {
		return true
	}
	if !r.bound.tooDeep(d.depth) {
		return false
	}
	r.keepOut(d.rel)
	r.skipped(boundSkip(d.rel, d.url.Redacted(), r.bound.depthName(), "not listed"))
	return true
}

// stopWalk keeps Delete out of the whole tree once the files or quota
// bound stopped the walk: directories not listed may hold anything.
func (r *run) stopWalk() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !slices.Contains(r.unlistable, "") {
		r.unlistable = append(r.unlistable, "")
	}
}
