// Package mirror copies a remote tree (an FTP directory, a gopher menu and
// the menus below it, an HTTP index page and the pages below it) into a
// local directory, safely and incrementally.
//
// Every write goes through an os.Root opened on the target directory, so
// no remote name and no local symbolic link can make the mirror write
// outside it. Files are downloaded into DIR/.fetch/partial and renamed into
// place only when complete: a file under its final name is never partial.
// A manifest in DIR/.fetch/manifest.json records path, size, remote time,
// SHA-256 and source URL of every file; it is replaced atomically.
package mirror

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"sync"
	"time"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// Fetcher fetches one URL after the caller's safety checks. fetch.Client
// provides it; every URL the mirror derives goes through it.
type Fetcher interface {
	Fetch(ctx context.Context, u *uri.URL, req *proto.Request) (*proto.Response, error)
}

// Options controls a mirror run. The zero value mirrors with 4 workers,
// deletes nothing and writes everything.
type Options struct {
	// Jobs is the number of parallel transfers. Zero means 4.
	Jobs int
	// Delete removes local files that are no longer on the remote side
	// (only inside the target, never the manifest). False keeps them.
	Delete bool
	// Include and Exclude are path.Match globs tried against each entry's
	// relative path and its base name. An entry is mirrored when Include is
	// empty or one of its globs matches, and no Exclude glob matches.
	Include, Exclude []string
	// DryRun reports what would be done and writes nothing.
	DryRun bool
	// Request is the template for every request: timeouts, dialer, trace.
	// Offset, Raw and Options are set by the mirror per request.
	Request proto.Request
	// Progress, when non-nil, is called from the workers as transfers start,
	// advance and end. It must be safe for concurrent use.
	Progress func(Event)
	// SaveEvery is how often the manifest is saved during a run. Zero means
	// every 2 seconds.
	SaveEvery time.Duration
}

// Event reports the progress of one transfer.
type Event struct {
	Worker int    // 0 .. Jobs-1
	Path   string // relative path
	Size   int64  // total size, -1 if unknown
	Bytes  int64  // bytes received so far (including a resumed part)
	Done   bool   // the transfer ended (see Status)
	Status Status
}

// Status is what happened to one entry.
type Status string

const (
	StatusNew       Status = "new"
	StatusUpdated   Status = "updated"
	StatusUnchanged Status = "unchanged"
	StatusSkipped   Status = "skipped"
	StatusFailed    Status = "failed"
	StatusDeleted   Status = "deleted"
)

// EntryReport is one line of the report.
type EntryReport struct {
	Path   string `json:"path"`
	URL    string `json:"url,omitempty"` // redacted
	Status Status `json:"status"`
	Reason string `json:"reason,omitempty"`
	Bytes  int64  `json:"bytes,omitempty"`
}

// Summary is the result of a run.
type Summary struct {
	Source    string        `json:"source"` // redacted
	Target    string        `json:"target"`
	New       int           `json:"new"`
	Updated   int           `json:"updated"`
	Unchanged int           `json:"unchanged"`
	Skipped   int           `json:"skipped"`
	Failed    int           `json:"failed"`
	Deleted   int           `json:"deleted"`
	Bytes     int64         `json:"bytes"`
	Duration  time.Duration `json:"duration_ns"`
	DryRun    bool          `json:"dry_run"`
	Entries   []EntryReport `json:"entries"`
	mu        sync.Mutex
}

func (s *Summary) add(r EntryReport) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch r.Status {
	case StatusNew:
		s.New++
	case StatusUpdated:
		s.Updated++
	case StatusUnchanged:
		s.Unchanged++
	case StatusSkipped:
		s.Skipped++
	case StatusFailed:
		s.Failed++
	case StatusDeleted:
		s.Deleted++
	}
	s.Bytes += r.Bytes
	s.Entries = append(s.Entries, r)
}

// ErrPartial is returned (wrapped) when the run finished but some entries
// failed; the summary says which.
var ErrPartial = errors.New("mirror: some entries failed")

// ErrUnsupported is returned for a URL whose scheme the mirror cannot walk.
var ErrUnsupported = errors.New("mirror: scheme cannot be mirrored (ftp, gopher, http and https can)")

// remoteFile is one file (or symbolic link) found on the remote side.
type remoteFile struct {
	rel   string
	url   *uri.URL
	size  int64 // -1 unknown
	mtime time.Time
	link  string // symbolic link target; "" for files
	raw   bool   // ask the driver for the bytes as sent
}

// Run mirrors start into dir, creating dir if needed. It returns the
// summary even when it also returns an error: ctx.Err() after a
// cancellation (partial files are kept for the next run), an error
// wrapping ErrPartial when some entries failed, or the error that stopped
// the walk (then nothing is deleted).
func Run(ctx context.Context, f Fetcher, start *uri.URL, dir string, opts Options) (*Summary, error) {
	t0 := time.Now()
	sum := &Summary{Source: start.Redacted(), Target: dir, DryRun: opts.DryRun}
	w, err := newWalker(start)
	if err != nil {
		return sum, err
	}
	if !opts.DryRun {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return sum, fmt.Errorf("mirror: %w", err)
		}
	}
	root, err := openRoot(dir, opts.DryRun)
	if err != nil {
		return sum, err
	}
	defer root.Close()
	m, err := loadManifest(root)
	if err != nil {
		return sum, err
	}
	m.Source = start.Redacted()
	r := &run{f: f, w: w, root: root, m: m, opts: opts, sum: sum, seen: map[string]bool{}}
	walkErr := r.run(ctx)
	sum.Duration = time.Since(t0)
	if !opts.DryRun {
		if err := m.save(root); err != nil && walkErr == nil {
			walkErr = err
		}
	}
	if walkErr != nil {
		return sum, walkErr
	}
	if sum.Failed > 0 {
		return sum, fmt.Errorf("%w: %d failed", ErrPartial, sum.Failed)
	}
	return sum, nil
}

// openRoot opens dir as an os.Root. In a dry run the directory may not
// exist; an empty temporary root stands in for it.
func openRoot(dir string, dry bool) (*os.Root, error) {
	root, err := os.OpenRoot(dir)
	if err == nil || !dry {
		if err != nil {
			return nil, fmt.Errorf("mirror: %w", err)
		}
		return root, nil
	}
	tmp, err := os.MkdirTemp("", "fetch-dry-run-")
	if err != nil {
		return nil, fmt.Errorf("mirror: %w", err)
	}
	defer os.Remove(tmp)
	return os.OpenRoot(tmp)
}

// run holds the state of one mirror run.
type run struct {
	f    Fetcher
	w    walker
	root *os.Root
	m    *manifest
	opts Options
	sum  *Summary

	mu   sync.Mutex
	seen map[string]bool // relative paths present on the remote side
}

func (r *run) markSeen(rel string) {
	r.mu.Lock()
	r.seen[rel] = true
	r.mu.Unlock()
}

func (r *run) run(ctx context.Context) error {
	jobs := r.opts.Jobs
	if jobs <= 0 {
		jobs = 4
	}
	files := make(chan remoteFile, 4*jobs)
	var wg sync.WaitGroup
	for i := 0; i < jobs; i++ {
		wg.Add(1)
		go func(worker int) {
			defer wg.Done()
			for rf := range files {
				if ctx.Err() != nil {
					continue
				}
				r.sum.add(r.file(ctx, worker, rf))
			}
		}(i)
	}
	stopSaver := r.startSaver()
	walkErr := r.walk(ctx, files)
	close(files)
	wg.Wait()
	stopSaver()
	if walkErr == nil && ctx.Err() != nil {
		walkErr = ctx.Err()
	}
	if walkErr == nil && r.opts.Delete {
		r.deleteStale()
	}
	return walkErr
}

// startSaver saves the manifest periodically so that a run killed without
// warning loses little; it returns a function that stops it.
func (r *run) startSaver() func() {
	if r.opts.DryRun {
		return func() {}
	}
	every := r.opts.SaveEvery
	if every <= 0 {
		every = 2 * time.Second
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				r.m.save(r.root)
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

// walk lists the remote tree breadth first and sends every file to files.
// A listing that fails stops the walk: with an incomplete picture of the
// remote side, nothing may be deleted.
func (r *run) walk(ctx context.Context, files chan<- remoteFile) error {
	queue := []dirJob{{rel: "", url: r.w.startURL()}}
	for len(queue) > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		d := queue[0]
		queue = queue[1:]
		res, err := r.w.list(ctx, r.f, r.request(nil), d)
		if err != nil {
			return fmt.Errorf("mirror: list %s: %w", d.url.Redacted(), err)
		}
		if res.menu != nil {
			r.saveMenu(d.rel, res.menu)
		}
		for _, s := range res.skipped {
			r.sum.add(s)
		}
		for _, sub := range res.dirs {
			if r.excluded(sub.rel, true) {
				continue
			}
			r.markSeen(sub.rel)
			queue = append(queue, sub)
		}
		for _, rf := range res.files {
			if r.excluded(rf.rel, false) {
				continue
			}
			r.markSeen(rf.rel)
			select {
			case files <- rf:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
	return nil
}

// excluded applies Include and Exclude. Directories are only excluded by
// Exclude (an Include glob for files must not stop the walk).
func (r *run) excluded(rel string, isDir bool) bool {
	base := path.Base(rel)
	match := func(globs []string) bool {
		for _, g := range globs {
			if ok, _ := path.Match(g, rel); ok {
				return true
			}
			if ok, _ := path.Match(g, base); ok {
				return true
			}
		}
		return false
	}
	if match(r.opts.Exclude) {
		return true
	}
	if isDir || len(r.opts.Include) == 0 {
		return false
	}
	return !match(r.opts.Include)
}

// request returns a copy of the template request with per-call options.
func (r *run) request(opts map[string]string) *proto.Request {
	req := r.opts.Request
	req.Options = map[string]string{}
	for k, v := range r.opts.Request.Options {
		req.Options[k] = v
	}
	for k, v := range opts {
		req.Options[k] = v
	}
	return &req
}
