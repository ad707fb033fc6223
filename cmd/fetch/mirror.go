package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"
	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/internal/termtext"
	"github.com/rfc1738/fetch/proto"
)

// mirrorOptions are the flags of "fetch mirror". The connection flags are
// those of "fetch get", so the client is built the same way.
type mirrorOptions struct {
	get              getOptions
	url, dir         string
	jobs             int
	delete, dryRun   bool
	keepVersions     bool
	include, exclude []string
	maxArticles      int
	mbox, maildir    string
	shard            string // --shard K/N (shard.go)
	maxDepth         int
	maxFiles         int64
	quota            byteSize
	maxListing       byteSize
}

func newMirrorCmd(e *env) *cobra.Command {
	o := &mirrorOptions{}
	cmd := &cobra.Command{
		Use:   "mirror [flags] URL DIR",
		Short: "Mirror an FTP tree, gopher hole, HTTP index or newsgroups into DIR",
		Long: `Mirror the FTP directory, gopher menu or HTTP index page at URL, and everything
below it on the same host and port, into DIR.

Runs are incremental: a file whose size and modification time match the last
run (recorded in DIR/.fetch/manifest.json with its SHA-256) is not fetched
again. Files are written to DIR/.fetch/partial and renamed into place when
complete, so no file ever stands partial under its final name; a run that was
interrupted (Ctrl-C, or killed) resumes its partial files next time when the
remote file is unchanged. Remote names with "/", "..", control characters or an
absolute form are skipped and named in the report; nothing is written outside
DIR and local symbolic links are never followed out of it. Names that some
system could not hold as they are, so that DIR can be copied to Windows too
(over 255 bytes; CON, PRN, AUX, NUL, COM0-9, LPT0-9 with any extension; a
final space or dot; < > : " | ? *), the name .fetch at the top, and gophermap
in a gopher mirror are not fetched: failed entries, named, exit 8.

Gopher menus are kept as DIR/.../gophermap so the hole can be browsed offline.
Once the server has ended a menu with a "." line (RFC 1436; in this run, or
in the gophermap an earlier run kept), a menu of it without one was cut: it is
asked for again, then failed (exit 8) with nothing below it deleted. From a
server that never sends the line (pygopherd), --delete first reads a menu
again and deletes below it only when both readings are the same bytes.
FTP files are fetched byte-exact (TYPE I) unless URL ends in ;type=a; sizes and
times come from the listings, so a file costs two commands (EPSV, RETR).

A transfer or listing that fails for a transient reason (a connection refused,
cut, reset or timed out, a transfer too slow for --speed-limit, FTP 421/425/426/
450/451, HTTP 408/429/5xx) is tried again up to --retry times (default 3), after
a growing wait; a file resumes from the byte it reached. A server that refuses
connections beyond its limit ("421 Too many connections") is mirrored with the
connections it allows, with one notice. Entries the server refuses (not found, permission denied) are
reported as failed and the run goes on; the exit code is then 8 (partial).

An FTP listing line that fits no known layout (Unix ls -l, MS-DOS/IIS, EPLF,
VMS, NetWare, OS/2, OS/400, MLSD) is never dropped silently: it is quoted in a
warning on stderr that names the directory, counted as "unparsed" in the
report, and the exit code is 8. When not one line of a directory's listing is
understood, its names are taken from NLST and each one's type learnt with CWD,
SIZE and MDTM: the files are mirrored, and the exit code is still 8. A server
that says it cut a listing short at its limit ("226 Output truncated to 10000
matches") is named in a warning too, with exit 8, unless its other end
(LIST -r) makes it whole. A directory whose listing says the server could not
read it is a failed entry, not an empty directory. Nothing below such
directories is deleted by --delete. Names that begin with a dot are mirrored:
a Unix server that lists with LIST is asked with LIST -a.

A VMS server lists every version of a file (NAME.EXT;3, NAME.EXT;2): the
highest is kept, as NAME.EXT; with --keep-versions every one is kept under its
listed name. Each is retrieved by its full name, version included.

News: nntp://host/group, nntp://host/comp.lang.* (a wildmat, groups from LIST
ACTIVE) or news:group (server from --nntp-server or NNTPSERVER) keeps one file
per article, named by its number in the group's directory (comp/lang/go/123, as
INN's tradspool does), as the server sends it, dot-unstuffed. The manifest
keeps each group's high water mark ("groups") and an index by Message-ID
("message_ids"): a later run asks only for newer articles, and a crosspost is
stored once and hard-linked into its other groups. -j N uses N connections,
one group at a time each; --delete removes articles the server has expired;
--mbox and --maildir export the articles after the run.`,
		Example: `  fetch mirror -j 8 ftp://127.0.0.1:2121/pub/ ./pub
  fetch mirror --exclude '*.iso' --delete ftp://ftp.example.org/pub/ ./mirror
  fetch mirror gopher://127.0.0.1:7070/1/ ./hole
  fetch mirror --dry-run --json http://127.0.0.1:8080/dir/ ./dir
  fetch mirror -j 4 --mbox news.mbox 'nntp://127.0.0.1:1119/local.*' ./news
  NNTPSERVER=127.0.0.1:1119 fetch mirror --maildir ./Maildir news:local.test ./news`,
		Args: exactArgs("URL", "DIR"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.url, o.dir = o.get.withUser(args[0]), args[1]
			err := runMirror(cmd.Context(), o, e)
			if cmd.Context().Err() != nil {
				e.kept.add("the same command again goes on where this mirror stopped")
			}
			return err
		},
	}
	f := cmd.Flags()
	f.SortFlags = false
	f.IntVarP(&o.jobs, "jobs", "j", 4, "use `N` connections at once, for listings and transfers (each keeps its FTP login)")
	f.BoolVar(&o.delete, "delete", false, "delete local files that are no longer on the remote side")
	f.StringArrayVar(&o.include, "include", nil, "mirror only files matching `GLOB` (repeatable)")
	f.StringArrayVar(&o.exclude, "exclude", nil, "skip files and directories matching `GLOB` (repeatable)")
	f.BoolVarP(&o.dryRun, "dry-run", "n", false, "report what would be done; write nothing")
	f.BoolVar(&o.keepVersions, "keep-versions", false, `FTP on VMS: keep every version of a file as NAME.EXT;n (default: the highest, as NAME.EXT)`)
	f.BoolVar(&o.get.json, "json", false, "print the report as JSON")
	f.BoolVarP(&o.get.verbose, "verbose", "v", false, "trace the protocol on stderr and list every entry")
	f.BoolVarP(&o.get.silent, "silent", "s", false, "no progress bars")
	f.Var((*seconds)(&o.get.connectTimeout), "connect-timeout", "give up connecting after `SECONDS`")
	f.Var((*seconds)(&o.get.maxTime), "max-time", "give up each transfer after `SECONDS`")
	addRetryFlags(f, &o.get, 3)
	addPoliteFlags(f, &o.get.polite)
	f.IntSliceVar(&o.get.allowPorts, "allow-port", nil, "lift the port rules for `PORT` (repeatable)")
	f.BoolVar(&o.get.denyPrivate, "deny-private", false, "refuse loopback, private and link-local addresses")
	f.StringVar(&o.get.email, "email", "", "`ADDRESS` sent as the anonymous FTP password (default $FETCH_EMAIL)")
	f.IntVar(&o.maxArticles, "max-articles", 0, "news: fetch at most `N` articles of each group per run, the newest (0: all)")
	f.StringVar(&o.mbox, "mbox", "", "news: after the run, write every article to `FILE` (mboxrd)")
	f.StringVar(&o.maildir, "maildir", "", "news: after the run, deliver every article into the maildir `DIR`")
	f.StringVar(&o.get.nntpServer, "nntp-server", "", "news server `HOST[:PORT]` for news: URLs (default $NNTPSERVER)")
	f.BoolVar(&o.get.netrc, "netrc", false, "look up logins and passwords in ~/.netrc")
	f.StringVar(&o.get.netrcFile, "netrc-file", "", "look up logins and passwords in `FILE`")
	addFTPFlags(f, &o.get)
	addWARCFlags(f, &o.get.warc)
	f.IntVar(&o.maxDepth, "max-depth", fetch.DefaultMirrorDepth, "list directories down to `N` levels below URL, so fetch files down to N (wget's -l; 0: no bound)")
	f.Int64Var(&o.maxFiles, "max-files", 0, "start at most `N` transfers (0: no bound)")
	f.Var(&o.quota, "quota", "start no transfer once `BYTES` arrived (suffix k, m, g: KiB, MiB, GiB; 0: no bound)")
	o.maxListing = byteSize(proto.DefaultListingCap)
	f.Var(&o.maxListing, "max-listing", "fail a directory whose listing, menu or index page is over `BYTES` (suffix k, m, g)")
	f.StringVar(&o.shard, "shard", "", "transfer only shard `K/N` of the files (K from 0 to N-1), into a DIR of its own; see fetch manifest merge")
	return cmd
}

// validate checks the flags of o.
func (o *mirrorOptions) validate() error {
	if o.jobs < 1 || o.jobs > 64 {
		return flagErrorf("--jobs %d: want 1 to 64", o.jobs)
	}
	if err := o.get.validateRetry(); err != nil {
		return err
	}
	for _, g := range slices.Concat(o.include, o.exclude) {
		if _, err := path.Match(g, "x"); err != nil { // the mirror's matcher
			return flagErrorf("bad glob %q: %v", g, err)
		}
	}
	if err := o.get.validateFTP(); err != nil {
		return err
	}
	if err := o.get.polite.validate(); err != nil {
		return err
	}
	if o.maxArticles < 0 {
		return flagErrorf("--max-articles %d: want 0 or more", o.maxArticles)
	}
	if o.maxDepth < 0 || o.maxFiles < 0 {
		return flagErrorf("--max-depth and --max-files want 0 or more")
	}
	if o.maxListing == 0 {
		return flagErrorf("--max-listing wants more than 0 bytes")
	}
	if o.dryRun && o.get.warc.file != "" {
		return flagErrorf("--dry-run writes nothing: not even --warc-file's archive")
	}
	return nil
}

// options are the library's options for the flags of o.
func (o *mirrorOptions) options() fetch.MirrorOptions {
	opts := fetch.MirrorOptions{
		Jobs: o.jobs, Delete: o.delete, DryRun: o.dryRun,
		Include: o.include, Exclude: o.exclude, KeepVersions: o.keepVersions, MaxArticles: o.maxArticles,
		MaxDepth: o.maxDepth, MaxFiles: o.maxFiles, Quota: int64(o.quota), ListingCap: int64(o.maxListing),
	}
	if o.maxDepth == 0 {
		opts.MaxDepth = -1 // wget's -l 0: no bound
	}
	// The report lists new, updated and unchanged files only with
	// --json or -v (printMirror); else the run counts them.
	opts.CountOnly = !o.get.json && !o.get.verbose
	return opts
}

func runMirror(ctx context.Context, o *mirrorOptions, e *env) (err error) {
	if err := o.validate(); err != nil {
		return err
	}
	red := newRedactor([]string{o.url})
	c := o.get.client(e, red, o.get.tlsDrivers())
	defer c.CloseIdleConnections()
	if c.WARC, err = o.get.warc.open(e, red); err != nil {
		return err
	}
	defer closeWARC(c, e, &err)
	o.get.warnAllowPorts(e)
	opts := o.options()
	if opts.Shard, opts.Shards, err = parseShard(o.shard); err != nil {
		return err
	}
	bars := newMirrorBars(ctx, e, o)
	opts.Progress = bars.event
	opts.Retry = o.get.retryPolicy(above(bars.p, e.err), red)
	sum, err := c.Mirror(ctx, o.url, o.dir, opts)
	bars.wait()
	return reportMirror(ctx, e, o, red, sum, err)
}

// reportMirror writes what a mirror run ended with (err): its notices,
// warnings and report when it ran, then the news exports when it did
// not fail, and returns the command's error (see partialMirror).
func reportMirror(ctx context.Context, e *env, o *mirrorOptions, red *redactor, sum *fetch.MirrorSummary, err error) error {
	if sum != nil {
		for _, n := range sum.Notices {
			fmt.Fprintf(e.err, "fetch: mirror: %s\n", termtext.Listing(n))
		}
	}
	partial := errors.Is(err, fetch.ErrMirrorPartial)
	if err == nil || partial || ctx.Err() != nil {
		printMirrorWarnings(e.err, sum, red)
		if perr := printMirror(e.out, sum, o); perr != nil && err == nil {
			err = perr
		}
	}
	if (err == nil || partial) && !o.dryRun {
		if xerr := exportNews(e, o); xerr != nil {
			return xerr
		}
	}
	if err == nil {
		return nil
	}
	if partial {
		return partialMirror(e, sum)
	}
	return err
}

// partialMirror says on stderr why a run was partial, and returns its
// exit code.
func partialMirror(e *env, sum *fetch.MirrorSummary) error {
	if sum.Bound != "" {
		fmt.Fprintf(e.err, "fetch: mirror: stopped at the bound %s: entries past it are not mirrored\n", sum.Bound)
	}
	if sum.Failed > 0 {
		fmt.Fprintf(e.err, "fetch: mirror: %d entries failed\n", sum.Failed)
	}
	if sum.Unparsed > 0 || sum.NLSTFallback > 0 {
		fmt.Fprintf(e.err, "fetch: mirror: %d listing lines fit no known layout (%d directories listed by NLST instead): some entries may be missing\n",
			sum.Unparsed, sum.NLSTFallback)
	}
	if sum.Truncated > 0 {
		fmt.Fprintf(e.err, "fetch: mirror: the server cut %d listings short at its limit: entries past it are missing\n", sum.Truncated)
	}
	return &exitError{code: fetch.ExitPartial}
}

// printMirrorWarnings writes the listing problems of a run on w, one line
// each, naming the directory and quoting the line; with -s too, since
// each may be a file that was not mirrored.
func printMirrorWarnings(w io.Writer, s *fetch.MirrorSummary, red *redactor) {
	if s == nil {
		return
	}
	for _, wa := range s.Warnings {
		fmt.Fprintln(w, red.redact(fmt.Sprintf("fetch: warning: %s: %s", wa.URL, termtext.Listing(wa.Message))))
	}
}

// exportNews writes the --mbox and --maildir exports of a news mirror.
func exportNews(e *env, o *mirrorOptions) error {
	for _, x := range []struct {
		out, what string
		export    func(dir, out string) (int, error)
	}{{o.mbox, "messages", fetch.ExportMbox}, {o.maildir, "new messages", fetch.ExportMaildir}} {
		if x.out == "" {
			continue
		}
		n, err := x.export(o.dir, x.out)
		if err != nil {
			return err
		}
		if !o.get.silent && !o.get.json {
			fmt.Fprintf(e.err, "fetch: mirror: %d %s in %s\n", n, x.what, termtext.Listing(x.out))
		}
	}
	return nil
}

// printMirror writes the report: JSON, or for people the entries worth a
// look (all of them with -v) and a summary line.
func printMirror(w io.Writer, s *fetch.MirrorSummary, o *mirrorOptions) error {
	if s == nil {
		return nil
	}
	sort.Slice(s.Entries, func(i, j int) bool { return s.Entries[i].Path < s.Entries[j].Path })
	if o.get.json {
		return encodeJSON(w, s)
	}
	for _, en := range s.Entries {
		quiet := en.Status == "new" || en.Status == "updated" || en.Status == "unchanged"
		if quiet && !o.get.verbose {
			continue
		}
		line := fmt.Sprintf("%-9s %s", en.Status, termtext.Listing(en.Path))
		if en.Reason != "" {
			line += ": " + termtext.Listing(en.Reason)
		}
		fmt.Fprintln(w, line)
	}
	dry := ""
	if s.DryRun {
		dry = " (dry run: nothing written)"
	}
	if s.Bound != "" {
		dry += " (stopped at the bound " + s.Bound + ")"
	}
	_, err := fmt.Fprintf(w, "new %d, updated %d, unchanged %d, skipped %d, failed %d, deleted %d, unparsed %d; %s in %.2f s%s\n",
		s.New, s.Updated, s.Unchanged, s.Skipped, s.Failed, s.Deleted, s.Unparsed, byteCount(s.Bytes), s.Duration.Seconds(), dry)
	return err
}

// mirrorBars draws an overall bar (files, bytes, rate, time left) and
// one bar per file in flight, named by its path, on stderr: only when
// stderr is a terminal and neither -s nor -v is given. A file's bar goes
// when the file is done; the overall bar ends full.
type mirrorBars struct {
	mu    sync.Mutex
	p     *mpb.Progress
	total *mpb.Bar
	files map[int]*fileBar // by worker: the file it transfers
	start time.Time

	// The overall bar's figures, read by its decorator as it draws.
	done, bytes, known atomic.Int64
	ended              atomic.Bool
}

// fileBar is the bar of one file in flight.
type fileBar struct {
	path  string
	bar   *mpb.Bar
	bytes int64 // as last reported
}

func newMirrorBars(ctx context.Context, e *env, o *mirrorOptions) *mirrorBars {
	if o.get.silent || o.get.verbose || o.get.json || !e.stderrTTY {
		return &mirrorBars{}
	}
	return startMirrorBars(ctx, e.err, termCols(e.err))
}

// startMirrorBars draws the bars on w, a terminal cols wide when it is
// not one whose width can be asked.
func startMirrorBars(ctx context.Context, w io.Writer, cols int) *mirrorBars {
	b := &mirrorBars{files: map[int]*fileBar{}, start: time.Now()}
	b.p = mpb.NewWithContext(ctx, mpb.WithOutput(w), mpb.WithAutoRefresh(), mpb.WithWidth(cols))
	b.total = b.p.AddBar(0, mpb.BarPriority(-1), mpb.BarWidth(barCols),
		mpb.PrependDecorators(nameDecor("all files")),
		mpb.AppendDecorators(decor.Any(func(s decor.Statistics) string {
			return overallText(b.figures())
		})))
	return b
}

// above is where a line for the person goes while the bars of p are
// drawn: above them (mpb prints it at its next refresh), and to w once
// they are done; w itself when p is nil (no bars).
func above(p *mpb.Progress, w io.Writer) io.Writer {
	if p == nil {
		return w
	}
	return &aboveBars{p: p, w: w}
}

// aboveBars writes lines above running bars, and to w once they are done.
type aboveBars struct {
	p *mpb.Progress
	w io.Writer
}

func (a *aboveBars) Write(p []byte) (int, error) {
	if n, err := a.p.Write(p); err == nil {
		return n, nil
	}
	return a.w.Write(p)
}

// figures are the overall bar's figures now.
func (b *mirrorBars) figures() overall {
	return overall{files: b.done.Load(), bytes: b.bytes.Load(), known: b.known.Load(),
		elapsed: time.Since(b.start), done: b.ended.Load()}
}

// nameDecor shows name cut to the width the terminal leaves it.
func nameDecor(name string) decor.Decorator {
	return decor.Any(func(s decor.Statistics) string {
		n := nameCols(s.AvailableWidth)
		return padRight(cutName(name, n), n)
	})
}

func (b *mirrorBars) event(ev fetch.MirrorEvent) {
	if b.p == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	fb := b.files[ev.Worker]
	if fb == nil || fb.path != ev.Path {
		if fb != nil {
			fb.bar.Abort(true) // a file left without its end
		}
		fb = &fileBar{path: ev.Path, bar: b.p.AddBar(0, mpb.BarRemoveOnComplete(), mpb.BarWidth(barCols),
			mpb.PrependDecorators(nameDecor(ev.Path)),
			mpb.AppendDecorators(decor.Any(fileCounters)))}
		b.files[ev.Worker] = fb
		b.known.Add(max(ev.Size, 0))
		b.total.SetTotal(b.known.Load(), false)
	}
	b.bytes.Add(ev.Bytes - fb.bytes)
	fb.bytes = ev.Bytes
	if ev.Size > 0 {
		fb.bar.SetTotal(max(ev.Size, ev.Bytes), false)
	}
	fb.bar.SetCurrent(ev.Bytes)
	b.total.SetCurrent(b.bytes.Load())
	if ev.Done {
		b.endFile(ev, fb)
	}
}

// endFile ends the bar of a file: full when it was transferred, removed
// when it failed.
func (b *mirrorBars) endFile(ev fetch.MirrorEvent, fb *fileBar) {
	delete(b.files, ev.Worker)
	if ev.Status == "failed" {
		fb.bar.Abort(true)
		return
	}
	b.done.Add(1)
	if ev.Size <= 0 {
		b.known.Add(ev.Bytes) // the size became known at the end
		b.total.SetTotal(b.known.Load(), false)
	}
	fb.bar.SetTotal(-1, true)
}

// wait ends the bars: each file's that is left is removed, and the
// overall bar is drawn full, with the run's figures.
func (b *mirrorBars) wait() {
	if b.p == nil {
		return
	}
	b.mu.Lock()
	for _, fb := range b.files {
		fb.bar.Abort(true)
	}
	b.ended.Store(true)
	b.total.SetTotal(-1, true)
	b.mu.Unlock()
	b.p.Wait()
}
