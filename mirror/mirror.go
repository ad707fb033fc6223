// Package mirror copies a remote tree (an FTP directory, a gopher menu and
// the menus below it, an HTTP index page and the pages below it) into a
// local directory, safely and incrementally. It also keeps newsgroups:
// one file per article, fetched once, through a Fetcher that is
// also a NewsDialer.
//
// Every write goes through an os.Root opened on the target directory, so
// no remote name and no local symbolic link can make the mirror write
// outside it. Files are downloaded into DIR/.fetch/partial and renamed into
// place only when complete: a file under its final name is never partial.
// A manifest in DIR/.fetch/manifest.json records path, size, remote time,
// SHA-256 and source URL of every file; it is replaced atomically.
package mirror

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/retry"
	"github.com/rfc1738/fetch/uri"
)

// Fetcher fetches one URL after the caller's safety checks. fetch.Client
// provides it; every URL the mirror derives goes through it.
type Fetcher interface {
	Fetch(ctx context.Context, u *uri.URL, req *proto.Request) (*proto.Response, error)
}

// A Lister is a Fetcher that lists an FTP directory entry by entry
// (proto.Lister, under the same rules as its Fetch): the mirror then
// holds of a listing only what it keeps of each entry, not the listing.
// A Fetcher that is not one, or whose List fails with
// errors.ErrUnsupported (listing nothing), has its directory responses
// read through.
type Lister interface {
	List(ctx context.Context, u *uri.URL, req *proto.Request, fn func(proto.Entry) error) (*proto.Listing, error)
}

// A Syncer is a Fetcher that keeps records of what it fetched beside the
// mirror's files (fetch.Client's WARC writer). The mirror calls Sync each
// time it saves its manifest, after it took the manifest's state and before
// it writes it, so that the manifest never lists a file whose records
// could still be lost with the process: a later run would find the file
// unchanged and record nothing for it. When Sync fails the manifest is not
// saved; at the end of the run that fails the run.
//
// A run with a Syncer also fetches again a file it finds on disk with the
// listed size and time but not in its manifest (a run killed before it
// saved it), where a run without one counts it unchanged: that file's
// records may have been lost with the process. And it fetches every file
// whole, from its first byte: a transfer resumed from a partial file (one
// cut short in this run or a killed one) would be recorded as part of the
// file, or not at all.
type Syncer interface {
	Sync() error
}

// A Warmer is a Fetcher that can open n connections to u's server ahead
// of use (ftp.Driver.Warm). A run with more than one job calls it while it
// lists the starting directory, so that its workers find their
// connections logged in when the first files are queued.
type Warmer interface {
	Warm(ctx context.Context, u *uri.URL, req *proto.Request, n int)
}

// A ModTimer is a Fetcher that can ask an FTP server for the times of
// many files of one directory at once (ftp.Driver.ModTimes: their MDTM
// commands sent together on one connection, the replies read in order).
// times[i] is the time of names[i] (unescaped listing names), zero where
// the server gave none. A re-run asks it for the files of each directory
// whose listed times cannot tell a change (askTimes); without it, each
// such file asks its own MDTM before its retrieval.
type ModTimer interface {
	ModTimes(ctx context.Context, dir *uri.URL, req *proto.Request, names []string) (times []time.Time, err error)
}

// DefaultJobs is the number of connections a run uses when Options.Jobs
// is zero.
const DefaultJobs = 4

// Options controls a mirror run. The zero value mirrors with DefaultJobs
// connections, deletes nothing and writes everything.
type Options struct {
	// Jobs is the number of connections used at once, for listings and
	// transfers together: directories are listed in parallel while files
	// are fetched. Zero means DefaultJobs.
	Jobs int
	// Delete removes local files that are no longer on the remote side
	// (only inside the target, never the manifest, never below a directory
	// whose listing failed or is in doubt). A gopher menu that ended at
	// the close, without a "." line, is read again before anything below
	// it is deleted, and must be the same bytes. False
	// keeps them.
	Delete bool
	// Include and Exclude are path.Match globs tried against each entry's
	// relative path and its base name. An entry is mirrored when Include is
	// empty or one of its globs matches, and no Exclude glob matches.
	Include, Exclude []string
	// DryRun reports what would be done and writes nothing.
	DryRun bool
	// Request is the template for every request: timeouts, dialer, trace.
	// Offset and Raw are set by the mirror per request, and Options
	// completed (proto.FTPOptions.Stat, proto.Options.IfModifiedSince).
	Request proto.Request
	// Progress, when non-nil, is called from the workers as transfers start,
	// advance and end. It must be safe for concurrent use.
	Progress func(Event)
	// MaxArticles bounds, for a news mirror, how many articles of each
	// group one run fetches: the newest ones. Zero means no bound.
	MaxArticles int
	// SaveEvery is how often the manifest is saved during a run. Zero means
	// every 2 seconds. A save that takes long (a large tree) waits ten
	// times its own time before the next one, when that is longer.
	SaveEvery time.Duration
	// KeepVersions keeps every version of a file that an FTP server on
	// VMS lists ("NAME.EXT;3", "NAME.EXT;2"), each under its listed name.
	// False keeps the highest version only, under the name without ";n".
	KeepVersions bool
	// Retry is how a failed transfer or listing is tried again: only a
	// transient failure (retry.Transient), after the policy's backoff
	// (the entry goes back to the queue meanwhile; a transfer resumes from
	// its partial file). A news mirror tries again, on a new connection,
	// the listing of the groups, a group's overview, or a chunk of its
	// articles from the first one not stored. Nil means one more attempt,
	// at once, for any failure that is not a refusal.
	Retry *retry.Policy
	// Shard and Shards split a mirror across Shards processes: the run
	// walks the whole tree but transfers only the files whose ShardOf is
	// Shard (0 .. Shards-1), into a directory of its own. Shards of 0 or
	// 1 means one process mirrors everything. Delete cannot be combined
	// with Shards above 1.
	Shard, Shards int
	// MaxDepth bounds how deep the walk goes (wget's -l): the starting
	// directory is at depth 0, and directories at depth MaxDepth and
	// below are not listed, so files down to that depth are fetched.
	// Zero means DefaultMaxDepth; a negative value, no bound.
	MaxDepth int
	// MaxFiles bounds the transfers one run starts. Zero means no bound.
	MaxFiles int64
	// Quota bounds the bytes one run receives (wget's -Q): no transfer
	// starts once that many arrived. Zero means no bound.
	Quota int64
	// CountOnly keeps the entries that went as asked (new, updated,
	// unchanged) out of Summary.Entries: they are counted (New,
	// Updated, Unchanged, Bytes) and not listed, so that a run over a
	// tree of millions of files does not hold a report line for each.
	// Skipped, failed and deleted entries are listed as always.
	CountOnly bool
	// ListingCap bounds the bytes of one listing, menu or index page, as
	// they arrive; a listing over it fails its directory with an error
	// wrapping proto.ErrProtocol. Zero means proto.DefaultListingCap.
	ListingCap int64

	// writeThrough, when set, wraps the writer of every local file's
	// data (tests: a file system that fills up).
	writeThrough func(rel string, w io.Writer) io.Writer
	// now, when set, is the clock of Record.Fetched (tests).
	now func() time.Time
	// walked, when set, is called once every file of a finished walk is
	// done, before the deletions and the last save (tests: the run's
	// state is then at its largest).
	walked func()
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

// ListError is the failure to list the starting URL, which ends a run
// before anything was fetched.
type ListError struct {
	URL string // redacted
	Err error
}

func (e *ListError) Error() string { return "mirror: list " + e.URL + ": " + e.Err.Error() }

// Unwrap returns the listing's failure.
func (e *ListError) Unwrap() error { return e.Err }

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
	err    error  // why it failed, to decide on a retry
	rel    string // the relative path, unquoted, of a listing's entry not mirrored
	handed bool   // given to the placer, which reports it

	// dir: the file's link named a directory, to walk (dirLinker).
	dir *dirJob
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
	// Unparsed counts the lines of FTP listings that fit no known
	// layout: each could be an entry that was not mirrored. Any makes
	// the run partial (ErrPartial).
	Unparsed int `json:"unparsed"`
	// NLSTFallback counts the FTP directories none of whose listing
	// lines fit a known layout, listed instead with NLST and probed name
	// by name. Any makes the run partial (ErrPartial).
	NLSTFallback int `json:"nlst_fallback"`
	// Truncated counts the FTP directories whose listing the server said
	// it cut short at its limit ("226 Output truncated to 10000
	// matches"): entries past the limit were not mirrored. Any makes the
	// run partial (ErrPartial).
	Truncated int `json:"truncated"`
	// Bound names the bound (Options.MaxDepth, MaxFiles, Quota) that the
	// run reached, as "max-depth 64", "max-files 10" or "quota 1048576
	// bytes", or is empty. Any makes the run partial (ErrBound).
	Bound    string        `json:"bound,omitempty"`
	Warnings []Warning     `json:"warnings,omitempty"`
	Entries  []EntryReport `json:"entries"`
	mu       sync.Mutex
	// countOnly: Options.CountOnly.
	countOnly bool

	// Notices are things about the whole run worth saying once, such as
	// a server that allowed fewer connections than Jobs.
	Notices []string `json:"notices,omitempty"`
}

// Warning is a problem with a directory's listing that stopped nothing
// but leaves the mirror unsure it has every entry.
type Warning struct {
	Path string      `json:"path"` // the directory, relative to the target ("" for the start)
	URL  string      `json:"url"`  // redacted
	Kind WarningKind `json:"kind"`
	// Line is the listing line, exactly as the server sent it (kind
	// unparsed).
	Line    string `json:"line,omitempty"`
	Message string `json:"message"`
}

// WarningKind says what a Warning is about.
type WarningKind string

const (
	// WarnUnparsed: a line of the listing fits no known layout.
	WarnUnparsed WarningKind = "unparsed"
	// WarnNLSTFallback: no line of the listing fits a known layout; the
	// names came from NLST.
	WarnNLSTFallback WarningKind = "nlst_fallback"
	// WarnTruncated: the server said it cut the listing short.
	WarnTruncated WarningKind = "truncated"
)

// maxLineWarnings bounds the unparsed lines of one directory that are
// reported one by one; all of them are counted.
const maxLineWarnings = 20

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
	if s.countOnly && (r.Status == StatusNew || r.Status == StatusUpdated || r.Status == StatusUnchanged) {
		return
	}
	s.Entries = append(s.Entries, r)
}

// ErrPartial is returned (wrapped) when the run finished but some entries
// failed, or some listing lines were not understood; the summary says
// which.
var ErrPartial = errors.New("mirror: some entries failed")

// ErrUnsupported is returned for a URL whose scheme the mirror cannot walk.
var ErrUnsupported = errors.New("mirror: scheme cannot be mirrored (ftp, gopher, http, https, nntp and news can)")

// remoteFile is one file (or symbolic link) found on the remote side.
type remoteFile struct {
	rel  string
	full *uri.URL // its URL; nil when base and tail make it (url)
	// base and tail make the URL of an FTP file, base's path followed by
	// tail, when it is asked for: a listing of many files then holds a
	// name for each, not a URL.
	base  *uri.URL
	tail  string
	size  int64 // -1 unknown
	mtime time.Time
	link  string // symbolic link target; "" for files
	raw   bool   // ask the driver for the bytes as sent
	last  bool   // no transfer may follow on its connection (the worker loop)
	// typecode is the FTP typecode that url puts after tail
	// (";type=i"); 0 for none.
	typecode byte
	// coarse: the listing's time is coarser than the server's MDTM
	// (coarseTimes); askTime: and the listed minute may not have closed
	// (fresh), so the time of the transfer is kept (Record.Fetched);
	// exact is the time MDTM gave for the transfer, when it was asked
	// (a conditional fetch), fetched when it began.
	coarse, askTime bool
	exact, fetched  time.Time
	// checked: MDTM was asked for the file along with the others of its
	// directory (askTimes), and gave mdtm (zero for no time).
	checked bool
	mdtm    time.Time
	attempt // its failures so far (again)
}

// url is rf's URL.
func (rf *remoteFile) url() *uri.URL {
	if rf.full != nil {
		return rf.full
	}
	if rf.typecode != 0 {
		return withPath(rf.base, rf.base.Path+rf.tail+";type="+string(rf.typecode))
	}
	return withPath(rf.base, rf.base.Path+rf.tail)
}

// retryable reports whether a failed transfer or listing is worth one more
// attempt: not when the server refused it (not found, permission, login),
// the safety policy refused it, or the run was cancelled. A connection cut
// or timed out, a server hiccup ("421", "500 OOPS") or a short transfer is.
// This is the policy of a mirror run without Options.Retry (one more
// attempt at once, for anything that is not a refusal), broader than
// proto.Transient by design: it also tries again an error nobody
// classified and a protocol error. With Options.Retry, proto.Transient
// decides (see next).
func retryable(ctx context.Context, err error) bool {
	if err == nil || ctx.Err() != nil {
		return false
	}
	if diskFull(err) {
		return false
	}
	return !proto.Refused(err) && !errors.Is(err, errNotFile)
}

// Run mirrors start into dir, creating dir if needed. It returns the
// summary even when it also returns an error: ctx.Err() after a
// cancellation (partial files are kept for the next run), an error
// wrapping ErrPartial when some entries failed (a file that could not be
// fetched, a directory below the start that could not be listed), or the
// error that stopped the run (the starting directory could not be listed;
// then nothing is deleted).
func Run(ctx context.Context, f Fetcher, start *uri.URL, dir string, opts Options) (*Summary, error) {
	t0 := time.Now()
	sum := &Summary{Source: start.Redacted(), Target: dir, DryRun: opts.DryRun, countOnly: opts.CountOnly}
	if err := checkShard(opts); err != nil {
		return sum, err
	}
	w, news, err := sourceOf(f, start, opts)
	if err != nil {
		return sum, err
	}
	created, err := makeTarget(dir, opts.DryRun)
	if err != nil {
		return sum, err
	}
	root, err := openRoot(dir, opts.DryRun)
	if err != nil {
		return sum, err
	}
	defer root.Close()
	if err := claimShardDir(root, opts); err != nil {
		return sum, err
	}
	m, err := loadManifest(root, news == nil)
	if err != nil {
		return sum, err
	}
	if m.unread != nil {
		sum.Notices = append(sum.Notices, fmt.Sprintf("the manifest %s could not be read (%v): read as none, each file compared by its size and time on disk; a new one replaces it", manifestName, m.unread))
	}
	m.setSource(start.Redacted())
	jobs := cmp.Or(max(opts.Jobs, 0), DefaultJobs)
	r := &run{
		f: f, w: w, root: root, m: m, opts: opts, sum: sum, jobs: jobs, dirs: newDirs(root),
		slots: make(chan struct{}, jobs), refused: make(chan struct{}), seen: newPathSet(), reported: map[string]bool{}, menus: map[string]menuRead{},
		bound: newBounds(opts),
	}
	if s, ok := f.(Syncer); ok {
		r.archiving, r.beforeSave = true, s.Sync
	}
	r.keepReserve()
	if !r.archiving {
		r.resumable = r.findResumable()
	}
	var walkErr error
	if news != nil {
		walkErr = runNews(ctx, r, news, start)
	} else {
		walkErr = r.run(ctx)
	}
	sum.Duration = time.Since(t0)
	// Directories are listed in parallel: their warnings in path order.
	slices.SortStableFunc(sum.Warnings, func(a, b Warning) int { return strings.Compare(a.Path, b.Path) })
	r.noteBusy()
	sum.Bound = r.bound.name()
	if walkErr = r.finish(walkErr, dir, created); walkErr != nil {
		return sum, walkErr
	}
	return sum, sum.partial()
}

// sourceOf returns how start is walked: by the walker of its tree form,
// or, for a news URL, through f's news sessions.
func sourceOf(f Fetcher, start *uri.URL, opts Options) (walker, NewsDialer, error) {
	if _, err := newsTargetOf(start); errors.Is(err, uri.ErrOtherScheme) {
		w, err := newWalker(start, opts)
		return w, nil, err
	}
	if opts.Shards > 1 {
		// A news mirror fetches by group and number, not by walking
		// paths: a shard would fetch every article, and the manifests'
		// high water marks could not be merged.
		return nil, nil, fmt.Errorf("%w: a news mirror cannot be split into shards", ErrShard)
	}
	nd, ok := f.(NewsDialer)
	if !ok {
		return nil, nil, fmt.Errorf("%w: %s (no news sessions)", ErrUnsupported, start.Scheme)
	}
	return nil, nd, nil
}

// saveLast saves the manifest at the end of the run. When the disk filled
// up, during the run or after its last file, the reserve is removed to
// make room for it. A manifest that still cannot be written makes the
// run partial (ErrPartial, exit 8, with a notice), not a failure: the
// files in place have their remote times, by which the next run knows
// them (unchanged).
func (r *run) saveLast() error {
	if r.full.Load() {
		r.releaseReserve()
	}
	err := r.m.save(r.root, r.beforeSave)
	if err != nil && diskFull(err) && !r.full.Load() {
		r.releaseReserve()
		err = r.m.save(r.root, r.beforeSave)
	}
	switch {
	case err == nil && !r.full.Load():
		r.growReserve(reserveFor(r.m.savedSize()))
	case err != nil && diskFull(err):
		r.sum.mu.Lock()
		r.sum.Notices = append(r.sum.Notices, "the manifest could not be saved: "+err.Error())
		r.sum.mu.Unlock()
		return fmt.Errorf("%w: %w", ErrPartial, err)
	}
	return err
}

// partial returns the error of a run that finished with s: one wrapping
// ErrPartial (and ErrBound) when it stopped at a bound, some entries
// failed or some listings are in doubt, else nil.
func (s *Summary) partial() error {
	switch {
	case s.Bound != "":
		return fmt.Errorf("%w: %w: %s", ErrPartial, ErrBound, s.Bound)
	case s.Unparsed > 0 || s.NLSTFallback > 0 || s.Truncated > 0:
		return fmt.Errorf("%w: %d failed, %d listing lines not understood, %d directories listed by NLST, %d listings cut short by the server",
			ErrPartial, s.Failed, s.Unparsed, s.NLSTFallback, s.Truncated)
	case s.Failed > 0:
		return fmt.Errorf("%w: %d failed", ErrPartial, s.Failed)
	}
	return nil
}

// makeTarget creates dir (but in a dry run) and reports whether it did.
func makeTarget(dir string, dry bool) (created bool, err error) {
	if dry {
		return false, nil
	}
	if _, err := os.Stat(dir); err == nil {
		return false, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, fmt.Errorf("mirror: %w", err)
	}
	return true, nil
}

// finish saves the manifest at the end of a run that ended with walkErr,
// and returns the run's error. A first run (no manifest before) that
// failed before it recorded anything (a refused connection, a wrong
// password) leaves nothing behind instead: no manifest, its state
// directory removed when empty, and dir too when the run created it and
// it is empty; the next run starts again as a first one.
func (r *run) finish(walkErr error, dir string, created bool) error {
	if r.opts.DryRun {
		return walkErr
	}
	if walkErr != nil && r.m.fresh && r.m.empty() {
		// The manifest, if the periodic saver wrote one, is this run's
		// own and records nothing.
		r.root.Remove(manifestName)
		r.releaseReserve()
		r.root.Remove(stateDir) // only when empty: it may keep partial files' records
		if created {
			os.Remove(dir) // only when empty
		}
		return walkErr
	}
	if err := r.saveLast(); err != nil && walkErr == nil {
		return err
	}
	return walkErr
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
	f Fetcher
	// archiving: f is a Syncer (see there).
	archiving bool
	// resumable holds the relative paths that have a partial file's
	// record (partMeta), found when the run starts and added as it
	// writes them: a file without one has nothing to resume, and is not
	// looked for on disk (most files of a fresh mirror).
	resumable   map[string]bool
	resumableMu sync.Mutex
	w           walker
	root        *os.Root
	m           *manifest
	opts        Options
	sum         *Summary
	jobs        int

	// slots holds one token per connection in use: listings and transfers
	// share Jobs of them.
	slots chan struct{}

	// dirs holds a handle per local directory in use.
	dirs *dirs

	// placer writes the small files the workers receive.
	placer *placer

	// bound holds the bounds of the walk and what they counted.
	bound *bounds

	// beforeSave is what the manifest's save calls before it writes
	// (see manifest.save), or nil: a news mirror's sync of its articles
	// (newsRun.written), then the Fetcher's Sync (Syncer).
	beforeSave func() error

	// outstanding counts the directories and files queued and not yet
	// done (listed, reported).
	outstanding sync.WaitGroup
	// unlisted counts the directories queued whose files are not queued
	// yet: while there are any, more files may come.
	unlisted atomic.Int32
	below    int // directories below the start the manifest has files in, up to Jobs-1

	mu         sync.Mutex
	held       int                 // slots held for good: connections the server refused
	owed       atomic.Int32        // slots to keep for good at their next release
	refused    chan struct{}       // closed when the first slot is kept for good
	seen       pathSet             // relative paths found on the remote side, and what the walk took at each (claim)
	reported   map[string]bool     // skipped entries already in the report
	unlistable []string            // directories whose listing failed
	dotless    []string            // directories listed without the names that begin with a dot
	menus      map[string]menuRead // gopher: the menus read, by directory
	links      []remoteFile        // the links listed, made at the end (links.go)

	// full: a write found the local disk full (noteFull).
	full atomic.Bool

	// menuDot: the gopher server has ended a menu with a "." line
	// (walk_gopher.go); menuDotKept: a gophermap kept by an earlier run
	// ends with one.
	menuDot, menuDotKept atomic.Bool
}

// skipped reports a skipped entry once, however many menus list it.
func (r *run) skipped(e EntryReport) {
	key := e.Path + "\x00" + e.Reason
	r.mu.Lock()
	dup := r.reported[key]
	r.reported[key] = true
	r.mu.Unlock()
	if !dup {
		r.sum.add(e)
	}
}

// acquire takes a connection slot, as long as ctx allows.
func (r *run) acquire(ctx context.Context) error {
	select {
	case r.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// warmSlots takes up to most slots for Warm's logins, waiting for
// those in use, until the server first refuses a connection for their
// number: the slots the run then keeps for good (shrink) never come back,
// and waiting for them would hold the rest until ctx ends.
func (r *run) warmSlots(ctx context.Context, most int) (n int) {
	for n < most {
		select {
		case r.slots <- struct{}{}:
			n++
		case <-r.refused:
			return n
		case <-ctx.Done():
			return n
		}
	}
	return n
}

func (r *run) releaseSlot() {
	if r.keepSlot() {
		return
	}
	<-r.slots
}

func (r *run) run(ctx context.Context) error {
	r.placer = r.startPlacer()
	fresh := r.m.len() == 0 && !r.opts.DryRun // every file listed is fetched
	r.below = r.m.dirs(r.jobs - 1)
	files := r.fileQueue()
	dirs := newQueue[dirJob]()
	var wg sync.WaitGroup
	for worker := range r.jobs {
		wg.Go(func() { r.work(ctx, worker, files, dirs) })
	}
	var warm sync.WaitGroup
	if w, ok := r.f.(Warmer); ok && r.jobs > 1 && (fresh || r.below > 0) {
		// Into a target without a manifest, Jobs-1 logins: a first run
		// fetches everything. A later one may find nothing to fetch,
		// but lists every directory: one login for each directory below
		// the start that the manifest has files in, up to Jobs-1. The
		// logins hold connection slots like transfers, so that the run
		// never has more than Jobs connections open.
		most := r.jobs - 1
		if !fresh {
			most = r.below
		}
		warm.Go(func() {
			n := r.warmSlots(ctx, most)
			w.Warm(ctx, r.w.startURL(), r.request(proto.Options{FTP: proto.FTPOptions{DirectCWD: true}}), n)
			for range n {
				r.releaseSlot()
			}
		})
	}
	stopSaver := r.startSaver()
	walkErr := r.walk(ctx, dirs, files)
	r.outstanding.Wait()
	files.close()
	wg.Wait()
	warm.Wait()
	r.placer.stop()
	stopSaver()
	r.dirs.close()
	if walkErr == nil && ctx.Err() != nil {
		walkErr = ctx.Err()
	}
	if r.opts.walked != nil {
		r.opts.walked()
	}
	r.judgeMenus()
	if walkErr == nil {
		r.tidy(ctx)
	}
	r.placeLinks()
	return walkErr
}

// work is a worker: it takes files from files (a link that names a
// directory goes to dirs) until the queue is closed and empty.
func (r *run) work(ctx context.Context, worker int, files *queue[remoteFile], dirs *queue[dirJob]) {
	var at *group[remoteFile] // the directory the worker is in
	var next remoteFile
	held := false
	for {
		rf, ok := next, held
		if !held {
			rf, ok = files.popAt(&at, true)
		}
		if !ok {
			return
		}
		next, held = r.holdNext(files, &at, rf)
		rf.last = !held
		if ctx.Err() != nil {
			r.outstanding.Done()
			continue
		}
		rep := r.file(ctx, worker, rf)
		if rep.handed {
			continue
		}
		if rep.dir != nil {
			// Still outstanding itself, so the walk
			// is not over yet (see walk).
			r.outstanding.Add(1)
			r.unlisted.Add(1)
			rep.dir.depth = depthOf(rep.dir.rel)
			dirs.push(*rep.dir)
			r.outstanding.Done()
			continue
		}
		if rep.Status == StatusFailed && r.again(ctx, &rf, &rep, files) {
			continue
		}
		r.sum.add(rep)
		r.outstanding.Done()
	}
}

// tidy ends a walk that finished: it deletes what the remote side no
// longer holds (Delete), and the partial files of entries not failed.
func (r *run) tidy(ctx context.Context) {
	if r.opts.Delete {
		r.deleteStale(ctx)
	}
	if !r.opts.DryRun && !r.bound.stopped.Load() {
		// A walk stopped at a bound leaves the partial files of the
		// entries it did not reach for a later run.
		r.prunePartials()
	}
}

// startSaver saves the manifest periodically so that a run killed without
// warning loses little; it returns a function that stops it.
func (r *run) startSaver() func() {
	if r.opts.DryRun {
		return func() {}
	}
	every := cmp.Or(max(r.opts.SaveEvery, 0), 2*time.Second)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTimer(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				start := time.Now()
				if r.m.save(r.root, r.beforeSave) == nil && !r.full.Load() {
					r.growReserve(reserveFor(r.m.savedSize()))
				}
				t.Reset(saveWait(every, time.Since(start)))
			}
		}
	})
	return func() { close(done); wg.Wait() }
}

// saveWait is how long the saver waits after a save that took took: every,
// or ten times took when that is longer. The manifest is encoded whole,
// under the lock a worker takes to record a file, and that grows with the
// tree (0.5 s for 100,000 files on a busy machine, 12 s for a million):
// saved every 2 s, a large tree would spend most of its run saving, and
// the run's time would grow with the square of its files. This bounds
// saving to about a tenth of the run.
func saveWait(every, took time.Duration) time.Duration { return max(every, 10*took) }

// walk lists the starting directory, then the directories below it, up to
// Jobs at a time, and queues every file for the workers as soon as its
// directory is listed. If the starting directory cannot be listed the run
// stops with that error; a directory below it that cannot be listed is a
// failed entry of the report, and nothing under it is deleted.
//
// The walk is over when no directory and no file is outstanding: a file's
// link may turn out to name a directory (dirLinker), which its worker
// then puts on dirs.
func (r *run) walk(ctx context.Context, dirs *queue[dirJob], files *queue[remoteFile]) error {
	defer dirs.close()
	// When the manifest names directories below the start, they are
	// listed next: the start's listing sends the EPSV of one ahead.
	start := dirJob{rel: "", url: r.w.startURL(), ahead: r.below > 0}
	r.unlisted.Add(1)
	l, err := r.listAgain(ctx, start)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &ListError{URL: start.url.Redacted(), Err: err}
	}
	r.take(start, l, dirs, files)
	var listers sync.WaitGroup
	for range r.jobs {
		listers.Go(func() { r.lister(ctx, dirs, files) })
	}
	r.outstanding.Wait()
	dirs.close()
	listers.Wait()
	return ctx.Err()
}

// lister lists the directories of dirs until the queue is closed and
// empty. An FTP lister takes the directory it lists next with the one it
// lists (held), so that the listing sends that one's EPSV ahead (ahead).
func (r *run) lister(ctx context.Context, dirs *queue[dirJob], files *queue[remoteFile]) {
	_, ftp := r.w.(*ftpWalker)
	var next dirJob
	held := false
	for {
		d, ok := next, held
		if !held {
			d, ok = dirs.pop()
		}
		if !ok {
			return
		}
		if ftp {
			next, held = dirs.popAt(nil, false)
		}
		d.ahead = held
		if !r.visit(ctx, d, dirs, files) {
			r.unlisted.Add(-1)
		}
		r.outstanding.Done()
	}
}

// holdNext takes, for an FTP worker about to fetch rf, the file it
// fetches next, if one is queued (held): the EPSV sent ahead with rf's
// RETR then has its transfer, which no other worker can take. Without
// one, nothing is sent ahead. A file above aheadMax is not followed by
// one held: another worker may take the next file meanwhile.
func (r *run) holdNext(files *queue[remoteFile], at **group[remoteFile], rf remoteFile) (next remoteFile, held bool) {
	if _, ok := r.w.(*ftpWalker); !ok || rf.size > aheadMax {
		return next, false
	}
	return files.popAt(at, false)
}

// aheadMax is the largest file after which an FTP worker holds its next
// one (holdNext): a transfer short enough that the next file's wait
// for it is about what the EPSV sent ahead saves.
const aheadMax = 1 << 20

// visit lists one directory below the start and takes what it holds;
// queued is whether its files were queued (queueEntries).
func (r *run) visit(ctx context.Context, d dirJob, dirs *queue[dirJob], files *queue[remoteFile]) (queued bool) {
	if ctx.Err() != nil || r.beyondBound(d) {
		return false
	}
	l, err := r.listAgain(ctx, d)
	if err != nil {
		if ctx.Err() != nil {
			return false
		}
		r.keepOut(d.rel)
		r.sum.add(EntryReport{Path: d.rel, URL: d.url.Redacted(), Status: StatusFailed, Reason: "cannot list the directory: " + err.Error()})
		return false
	}
	return r.take(d, l, dirs, files)
}

// list fetches one listing on a connection slot.
func (r *run) list(ctx context.Context, d dirJob) (*listing, error) {
	if err := r.acquire(ctx); err != nil {
		return nil, err
	}
	defer r.releaseSlot()
	// A lister that holds its next directory lists it next: the listing
	// sends the EPSV of that one ahead.
	l, err := r.w.list(ctx, r.f, r.request(proto.Options{FTP: proto.FTPOptions{ListAhead: d.ahead}}), d)
	if err == nil {
		err = r.checkMenuEnd(d, l)
	}
	if err == nil {
		r.askTimes(ctx, d, l)
		r.revalidate(ctx, d, l)
	}
	return l, r.shrink(err)
}

// take makes the local directory of d, keeps a gopher menu, reports the
// skipped entries and queues the subdirectories and files not seen before
// (queued: not when d is taken for a link above it).
func (r *run) take(d dirJob, l *listing, dirs *queue[dirJob], files *queue[remoteFile]) (queued bool) {
	s, ok := summed(d, l)
	if ok {
		if i := slices.IndexFunc(d.above, func(a listingSum) bool { return a.unique == s.unique && a.sum == s.sum }); i >= 0 {
			r.linkAbove(d, d.above[i])
			return false
		}
	}
	if d.rel != "" {
		r.makeDir(d.rel)
	}
	if l.menu != nil {
		r.saveMenu(d, l.menu)
	}
	if len(l.unparsed) > 0 || l.fallback || l.truncated != "" {
		r.listingWarnings(d, l)
	}
	if l.dotNames != "" {
		r.noteDotNames(l.dotNames)
		r.mu.Lock()
		r.dotless = append(r.dotless, d.rel)
		r.mu.Unlock()
	}
	for _, s := range l.skipped {
		if s.rel != "" && r.opts.excludes(s.rel, false) {
			continue // excluded: not an entry of this mirror
		}
		r.skipped(s)
	}
	chain := d.above
	if ok {
		chain = append(slices.Clip(d.above), s)
	}
	r.queueEntries(d, l, chain, dirs, files)
	return true
}

// queueEntries queues the subdirectories and files of a listing that are
// not excluded and not taken before, directories first: of a directory
// and a file of one name in a listing, the directory is kept (claim).
// Links are kept for the end of the walk (placeLinks).
func (r *run) queueEntries(d dirJob, l *listing, chain []listingSum, dirs *queue[dirJob], files *queue[remoteFile]) {
	for _, sub := range l.dirs {
		if r.opts.excludes(sub.rel, true) || !r.claim(sub.rel, entryKind{dir: true}, func() *uri.URL { return sub.url }) {
			continue
		}
		sub.above, sub.depth = chain, d.depth+1
		r.outstanding.Add(1)
		r.unlisted.Add(1)
		dirs.push(sub)
	}
	r.unlisted.Add(-1) // d's files are queued below: any more come from sub

	batch := l.files[:0] // the listing's own array: l is not read after
	for _, rf := range l.files {
		if r.opts.excludes(rf.rel, false) || !r.claim(rf.rel, entryKind{size: rf.size, mtime: rf.mtime, link: rf.link}, rf.url) {
			continue
		}
		if rf.link != "" {
			r.addLink(rf)
			continue
		}
		batch = append(batch, rf)
	}
	r.outstanding.Add(len(batch))
	files.pushAllWait(batch)
}

// A server may list a link to a directory as the directory (FTP LIST,
// HTTP index pages with FollowSymLinks, gopher menus), and a link back up
// the tree then leads a walk down without end. With FTP unique facts the
// link is known (entrySum) and skipped. Elsewhere a directory whose
// listing holds what a directory above it on the walk holds (likeSum) is
// taken for such a link: not walked, and, being a guess, a failed entry
// (exit 8, nothing below it deleted). See docs/ftp.md on symbolic links.

// summed identifies the directory d by its listing l (listingSum); ok is
// false for a listing of none.
func summed(d dirJob, l *listing) (s listingSum, ok bool) {
	s.rel = d.rel
	if l.hasUnique {
		s.unique, s.sum = true, l.unique
		return s, true
	}
	s.sum, ok = likeSum(l)
	return s, ok
}

// likeSum identifies a listing by what it holds: its directories by name,
// its files by name, size and time, its links by name and target; ok is
// false for a listing of none. Each entry is hashed on its own, and the
// hashes summed (sumAcc), so that the order of the listing does not
// matter and a listing of many entries takes no memory for each.
func likeSum(l *listing) (sum [sha256.Size]byte, ok bool) {
	if l.hasLike {
		return l.like, true
	}
	var like sumAcc
	for _, d := range l.dirs {
		like.dir(path.Base(d.rel))
	}
	for _, f := range l.files {
		like.file(path.Base(f.rel), f.size, f.mtime, f.link)
	}
	if like.n == 0 {
		return sum, false
	}
	return like.sum(), true
}

// sumAcc sums the hashes of entries, as 256-bit numbers, whatever their
// order: a sum of a listing that holds nothing for each entry.
type sumAcc struct {
	acc [sha256.Size]byte
	n   int
}

func (a *sumAcc) add(h [sha256.Size]byte) {
	carry := 0
	for i := len(h) - 1; i >= 0; i-- {
		s := int(a.acc[i]) + int(h[i]) + carry
		a.acc[i], carry = byte(s), s>>8
	}
	a.n++
}

// sum is the hash of the sum and the number of entries.
func (a *sumAcc) sum() [sha256.Size]byte {
	b := binary.BigEndian.AppendUint64(a.acc[:len(a.acc):len(a.acc)], uint64(a.n))
	return sha256.Sum256(b)
}

func (a *sumAcc) dir(name string) {
	var buf [128]byte
	b := strconv.AppendQuote(append(buf[:0], "d "...), name)
	a.add(sha256.Sum256(b))
}

func (a *sumAcc) file(name string, size int64, mtime time.Time, link string) {
	var buf [128]byte
	b := strconv.AppendQuote(append(buf[:0], "f "...), name)
	b = strconv.AppendInt(append(b, ' '), size, 10)
	b = strconv.AppendInt(append(b, ' '), mtime.UnixNano(), 10)
	b = strconv.AppendQuote(append(b, ' '), link)
	a.add(sha256.Sum256(b))
}

// linkAbove reports the directory d, whose listing holds what the listing
// of a directory above it on the walk holds (a), as a link to that one:
// skipped when their unique facts say so, else a failed entry, and
// Delete is kept out of it.
func (r *run) linkAbove(d dirJob, a listingSum) {
	name := "the starting directory"
	if a.rel != "" {
		name = quoteName(a.rel)
	}
	if a.unique {
		r.skipped(EntryReport{Path: d.rel, URL: d.url.Redacted(), Status: StatusSkipped,
			Reason: "a link to " + name + ": its listing has the same entries, with the same unique facts"})
		return
	}
	r.keepOut(d.rel)
	r.sum.add(EntryReport{Path: d.rel, URL: d.url.Redacted(), Status: StatusFailed,
		Reason: "its listing holds what the listing of " + name + " above it holds (the same names, types, sizes and times): taken for a link back up the tree, and not walked"})
}

// excludes applies Include and Exclude (and the shard). Directories are
// only excluded by Exclude (an Include glob for files must not stop the
// walk).
func (opts *Options) excludes(rel string, isDir bool) bool {
	base := path.Base(rel)
	match := func(g string) bool {
		ok, _ := path.Match(g, rel)
		if !ok {
			ok, _ = path.Match(g, base)
		}
		return ok
	}
	if slices.ContainsFunc(opts.Exclude, match) {
		return true
	}
	if !isDir && opts.Shards > 1 && ShardOf(rel, opts.Shards) != opts.Shard {
		return true // another shard's (shard.go)
	}
	if isDir || len(opts.Include) == 0 {
		return false
	}
	return !slices.ContainsFunc(opts.Include, match)
}

// request returns a copy of the template request with the per-call
// options over its own (proto.Options.Merge).
func (r *run) request(opts proto.Options) *proto.Request {
	req := r.opts.Request
	req.Options = req.Options.Merge(opts)
	req.Options.ListingCap = cmp.Or(max(req.Options.ListingCap, 0), r.opts.ListingCap)
	return &req
}

// makeDir makes the local directory of a listed remote directory, so that
// empty ones are mirrored too. A symbolic link a previous run made there
// (the remote entry was a link then) is replaced: files are never written
// through a link.
func (r *run) makeDir(rel string) {
	if r.opts.DryRun {
		return
	}
	if st, err := r.dirs.lstat(rel); err == nil && st.Mode()&fs.ModeSymlink != 0 {
		r.dirs.forget(rel)
		r.root.Remove(rel)
	}
	r.dirs.open(rel, true)
}

// listingWarnings reports the lines of d's listing that fit no known
// layout, the NLST fallback, and a listing the server cut short. What the
// remote side holds in d is then not known for sure: like a directory that
// could not be listed, nothing below it is deleted.
func (r *run) listingWarnings(d dirJob, l *listing) {
	u := d.url.Redacted()
	r.sum.mu.Lock()
	r.sum.Unparsed += len(l.unparsed)
	for i, line := range l.unparsed {
		if i == maxLineWarnings {
			r.sum.Warnings = append(r.sum.Warnings, Warning{Path: d.rel, URL: u, Kind: WarnUnparsed,
				Message: fmt.Sprintf("%d more listing lines fit no known layout", len(l.unparsed)-i)})
			break
		}
		r.sum.Warnings = append(r.sum.Warnings, Warning{Path: d.rel, URL: u, Kind: WarnUnparsed, Line: line,
			Message: "listing line fits no known layout: " + QuoteLine(line)})
	}
	if l.fallback {
		r.sum.NLSTFallback++
		r.sum.Warnings = append(r.sum.Warnings, Warning{Path: d.rel, URL: u, Kind: WarnNLSTFallback,
			Message: "no listing line fits a known layout: names from NLST, each one's type from CWD, sizes and times from SIZE and MDTM"})
	}
	if l.truncated != "" {
		r.sum.Truncated++
		r.sum.Warnings = append(r.sum.Warnings, Warning{Path: d.rel, URL: u, Kind: WarnTruncated,
			Message: "the server cut the listing short (" + QuoteLine(l.truncated) + "): entries past its limit are not mirrored"})
	}
	r.sum.mu.Unlock()
	r.keepOut(d.rel)
}

// noteDotNames adds the run's one notice that the server would not list
// the names that begin with a dot (why, from the driver): the mirror has
// every name the listings showed, but cannot tell whether the server
// holds others.
func (r *run) noteDotNames(why string) {
	n := why + "; files and directories so named, if the server holds any, are not mirrored"
	r.sum.mu.Lock()
	defer r.sum.mu.Unlock()
	if !slices.Contains(r.sum.Notices, n) {
		r.sum.Notices = append(r.sum.Notices, n)
	}
}

// QuoteLine quotes a listing line for a message, as strconv.Quote does
// (control characters, invalid UTF-8 and quotes escaped), cut to 300 bytes.
func QuoteLine(line string) string {
	const max = 300
	if len(line) > max {
		return strconv.Quote(line[:max]) + fmt.Sprintf(" (%d bytes)", len(line))
	}
	return strconv.Quote(line)
}
