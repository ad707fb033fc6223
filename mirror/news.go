package mirror

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"net"
	"net/textproto"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rfc1738/fetch/internal/numrange"
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/retry"
	"github.com/rfc1738/fetch/uri"
	"github.com/rfc1738/fetch/warc"
)

// A news mirror is not a tree walk: a group is a numbered sequence of
// articles, read on one connection after a GROUP command. Each article is
// kept in its own file named by its number, in the group's directory
// (comp.lang.go -> comp/lang/go/123, as INN's tradspool lays them out),
// exactly as the server sends it, dot-unstuffed with LF line ends. The
// manifest keeps each group's high water mark (a later run asks only for
// newer numbers) and an index by Message-ID: an article crossposted to
// several groups is fetched once and hard-linked (copied where links
// fail) into the others.

// NewsSession is one connection to a news server, used by one goroutine
// at a time. proto/nntp's Session is one, and a NewsNumberer.
type NewsSession interface {
	// GroupCount selects a group and gives the count of the GROUP
	// reply beside its low and high water marks: the server's estimate
	// of the number of the group's articles (RFC 3977 section
	// 6.1.1.2), at least their number when the group is not empty, -1
	// when unknown. The mirror uses it to ask for the overview of a
	// group whose articles are few across a wide range of numbers in
	// few commands, not range after range of nothing.
	GroupCount(ctx context.Context, name string) (count, low, high int64, err error)
	// OverviewIDs lists the numbers and Message-IDs of the selected
	// group's articles first to last; ok is false when the server has
	// no overview (the mirror then asks STAT for each number).
	OverviewIDs(ctx context.Context, first, last int64) (nums []int64, ids []string, ok bool, err error)
	// Stat gives the Message-ID of article n; found is false when the
	// server has no article n.
	Stat(ctx context.Context, n int64) (id string, found bool, err error)
	// Articles retrieves the numbered articles of the selected group in
	// order, calling fn with each (body nil for a number the server no
	// longer has); an error from fn stops it.
	Articles(ctx context.Context, nums []int64, fn func(n int64, id string, body io.Reader) error) error
	// GroupNames lists the groups matching a wildmat (RFC 3977 section 4).
	GroupNames(ctx context.Context, wildmat string) ([]string, error)
	// Server is host[:port] for the article URLs in the manifest.
	Server() string
	Close() error
}

// A NewsNumberer is a NewsSession that can list which articles of a group
// exist (LISTGROUP) and STAT many at once. On a server without an
// overview the mirror uses it instead of a STAT of each number from the
// group's low to its high water mark in turn, one round trip each: an old
// group whose articles have mostly expired holds few of its numbers.
type NewsNumberer interface {
	// ListNumbers lists the numbers of group's articles first to last
	// and selects the group; ok is false when LISTGROUP cannot list
	// them (the server has none, or only RFC 2980's list of the whole
	// group, which would be over the limit on a list), and the mirror
	// STATs every number.
	ListNumbers(ctx context.Context, group string, first, last int64) (nums []int64, ok bool, err error)
	// StatEach asks STAT for each of nums in the selected group, calling
	// fn in order with the article's Message-ID; found is false when the
	// server has no such article.
	StatEach(ctx context.Context, nums []int64, fn func(n int64, id string, found bool) error) error
}

// NewsDialer opens news sessions to the server of u, after the caller's
// safety checks. A Fetcher that is also a NewsDialer can mirror nntp and
// news URLs.
type NewsDialer interface {
	OpenNews(ctx context.Context, u *uri.URL, req *proto.Request) (NewsSession, error)
}

// A NewsArchiver is a NewsDialer that archives the articles the mirror
// stores: each one it writes becomes a WARC resource record of type
// message/news under its nntp URL (as `fetch get` records it), holding
// the bytes of the stored file. A crosspost is recorded once, under the
// group it was fetched from; its hard links in the other groups add no
// record. fetch.Client gives its WARC writer; nil archives nothing.
type NewsArchiver interface {
	NewsWARC() *warc.Writer
}

// NewsArticle is one article of a group's overview.
type NewsArticle struct {
	Number    int64
	MessageID string
}

// maxArticle bounds the bytes of one article kept by the mirror (a
// variable for the tests).
var maxArticle int64 = 64 << 20

// newsTarget is what a news URL asks to mirror: one group, or the groups
// matching a wildmat.
type newsTarget struct {
	group   string
	wildmat bool
}

// newsTargetOf returns the group an nntp URL names (RFC 1738 section
// 3.7), or the group or wildmat a news URL names (section 3.6; "*" for
// news:*); it fails for a URL that names an article or no group.
func newsTargetOf(u *uri.URL) (newsTarget, error) {
	var g string
	var article bool
	if n, err := u.NNTP(); err == nil {
		g, article = n.Group, n.Article != nil
	} else if !errors.Is(err, uri.ErrOtherScheme) {
		return newsTarget{}, err
	} else if v, err := u.News(); err != nil {
		return newsTarget{}, err
	} else {
		g, article = v.Group, v.Article != ""
		if v.All {
			g = "*"
		}
	}
	switch {
	case article:
		return newsTarget{}, fmt.Errorf("mirror: %s names an article, not a group", u.Redacted())
	case g == "":
		return newsTarget{}, fmt.Errorf("mirror: %s names no group", u.Redacted())
	}
	return newsTarget{group: g, wildmat: strings.ContainsAny(g, "*?[,!")}, nil
}

// groupDir is the directory of a group's articles: its name with the dots
// turned into slashes. It fails for a name that would not stay one path
// inside the target (empty parts, "..", control characters, ".fetch").
func groupDir(group string) (string, error) {
	if strings.ContainsAny(group, `/\`) {
		return "", fmt.Errorf("group %q: %w", group, errNameSlash)
	}
	rel := strings.ReplaceAll(group, ".", "/")
	if err := checkRel(rel); err != nil {
		return "", fmt.Errorf("group %q: %w", group, err)
	}
	return rel, nil
}

// newsRun is the state of one news mirror run, on top of the shared run.
type newsRun struct {
	*run
	d      NewsDialer
	start  *uri.URL
	server string
	warc   *warc.Writer // nil: no archive

	idMu  sync.Mutex
	spare NewsSession // the listing connection, until a worker takes it
	// live counts the open connections: the spare and those workers
	// hold; dialing counts the workers opening one. A worker refused for
	// the server's limit gives its place up only while others have or
	// are getting a connection (giveUpConnection).
	live     atomic.Int32
	dialing  atomic.Int32
	inFlight map[string]bool // Message-IDs being fetched in this run
	later    []pendingLink   // crossposts whose first copy was in flight

	// written holds the articles stored since the manifest was last
	// saved: run.beforeSave syncs them before the next save.
	written written
}

type pendingLink struct {
	group, rel, url, id string
	n                   int64
}

// newsTask is one unit of a worker's work: list a group (GROUP, OVER) and
// decide what to fetch, or fetch one chunk of a listed group's articles.
// A task that failed on a connection lost or timed out goes back to the
// queue (again), a chunk with the articles it had not stored.
type newsTask struct {
	g     *groupRun
	chunk []int64 // nil: list the group
	// failedAt is the lowest number of the chunk whose article failed
	// in an earlier attempt (see groupRun), or 0.
	failedAt int64
	attempt  // its failures so far (again)
}

// groupRun is the state of one group during the run. Its chunks may be
// fetched on several connections at once; the last one to end records
// the group's new high water mark.
type groupRun struct {
	name, dir string
	low, high int64
	count     int64 // the GROUP reply's (NewsSession.GroupCount); -1: unknown
	mark      GroupMark
	ids       map[int64]string // Message-IDs from the overview

	mu       sync.Mutex
	pending  int   // chunks not yet done
	failedAt int64 // lowest number that failed; 0: none
}

// chunkMin is the smallest number of articles a group's fetch is split
// into for several connections.
const chunkMin = 32

// runNews mirrors the group or groups of start into the run's target.
// Jobs connections work at once; each selects the group of the task it
// takes, so that the articles of one large group are fetched on all of
// them.
func runNews(ctx context.Context, r *run, d NewsDialer, start *uri.URL) error {
	t, err := newsTargetOf(start)
	if err != nil {
		return err
	}
	nr := &newsRun{run: r, d: d, start: start, inFlight: map[string]bool{}}
	then := r.beforeSave
	r.beforeSave = func() error {
		if err := nr.written.sync(r.root); err != nil || then == nil {
			return err
		}
		return then()
	}
	var s NewsSession
	groups := []string{t.group}
	var a attempt
	for {
		s, err = d.OpenNews(ctx, start, r.request(proto.Options{}))
		if err == nil && t.wildmat {
			if groups, err = s.GroupNames(ctx, t.group); err != nil {
				s.Close()
				err = fmt.Errorf("mirror: list groups %s: %w", t.group, err)
			}
		}
		if err == nil || !r.waitAgain(ctx, &a, err) {
			break
		}
	}
	if err != nil {
		return retry.Tried(err, a.attempts()) // it names the URL
	}
	slices.Sort(groups)
	nr.server = s.Server()
	if a, ok := d.(NewsArchiver); ok {
		nr.warc = a.NewsWARC()
	}
	stopSaver := r.startSaver()
	defer stopSaver()
	tasks := newQueue[newsTask]()
	var open sync.WaitGroup // tasks queued and not yet done
	nr.queueGroups(groups, tasks, &open)
	// The connection that listed the groups serves the first worker to
	// need one; the others open theirs when they take their first task.
	nr.spare = s
	nr.live.Add(1)
	var wg sync.WaitGroup
	for worker := range r.jobs {
		wg.Go(func() { nr.worker(ctx, worker, tasks, &open) })
	}
	open.Wait()
	tasks.close()
	wg.Wait()
	if nr.spare != nil {
		nr.spare.Close()
		nr.live.Add(-1)
	}
	nr.linkLater(ctx)
	r.dirs.close()
	if err := ctx.Err(); err != nil {
		return err
	}
	if !r.opts.DryRun {
		r.prunePartials()
	}
	return nil
}

// queueGroups queues the listing of each group. A name that cannot be a
// directory of the target is named and left before any command about it
// is sent.
func (nr *newsRun) queueGroups(groups []string, tasks *queue[newsTask], open *sync.WaitGroup) {
	for _, g := range groups {
		dir, err := groupDir(g)
		if err != nil {
			nr.skipped(EntryReport{Path: quoteName(g), Status: StatusSkipped, Reason: err.Error()})
			continue
		}
		open.Add(1)
		tasks.push(newsTask{g: &groupRun{name: g, dir: dir}})
	}
}

// worker takes tasks from the queue and does them on its own connection
// (the first worker to need one takes the one that listed the groups),
// opened when it first needs one and again after a failure.
func (nr *newsRun) worker(ctx context.Context, worker int, tasks *queue[newsTask], open *sync.WaitGroup) {
	var c newsConn
	defer nr.drop(&c)
	for {
		task, ok := tasks.pop()
		if !ok {
			return
		}
		if ctx.Err() != nil {
			open.Done()
			continue
		}
		stay, err := nr.connect(ctx, &c, task, tasks)
		if !stay {
			return
		}
		var lost *EntryReport // an article whose read failed, not reported yet
		if err == nil {
			task, lost, err = nr.do(ctx, worker, &c, task, tasks, open)
		}
		if err != nil && ctx.Err() == nil {
			nr.drop(&c) // a new connection for the next task
			nr.taskFailed(ctx, task, err, lost, tasks, open)
		}
		open.Done()
	}
}

// newsConn is a worker's connection and the group selected on it.
type newsConn struct {
	s       NewsSession
	current string
}

// drop closes c's connection, if it has one.
func (nr *newsRun) drop(c *newsConn) {
	if c.s != nil {
		c.s.Close()
		nr.live.Add(-1)
	}
	c.s, c.current = nil, ""
}

// connect gives c a connection when it has none: the spare one that
// listed the groups, or a new one. It reports false when the worker is to
// end: the server allows fewer connections than Jobs and others hold
// theirs (giveUpConnection); task then goes back to them.
func (nr *newsRun) connect(ctx context.Context, c *newsConn, task newsTask, tasks *queue[newsTask]) (bool, error) {
	if c.s != nil {
		return true, nil
	}
	c.current = ""
	nr.idMu.Lock()
	c.s, nr.spare = nr.spare, nil
	nr.idMu.Unlock()
	if c.s != nil {
		return true, nil
	}
	nr.dialing.Add(1)
	defer nr.dialing.Add(-1)
	s, err := nr.d.OpenNews(ctx, nr.start, nr.request(proto.Options{}))
	if err != nil {
		if nr.giveUpConnection(err) {
			tasks.push(task)
			return false, nil
		}
		return true, err
	}
	c.s = s
	nr.live.Add(1)
	return true, nil
}

// selectGroup selects g on c unless it is selected already; a listing
// task asks for the group's count and water marks too.
func (nr *newsRun) selectGroup(ctx context.Context, c *newsConn, g *groupRun, listing bool) error {
	if c.current == g.name {
		return nil
	}
	c.current = ""
	var err error
	if listing {
		g.count, g.low, g.high, err = c.s.GroupCount(ctx, g.name)
	} else {
		_, _, _, err = c.s.GroupCount(ctx, g.name)
	}
	if err == nil {
		c.current = g.name
	}
	return err
}

// do does task on c: a listing task (no chunk) lists its group and goes
// on with the group's first chunk; a chunk is fetched. It returns the
// task as left (its chunk the numbers not stored yet) and, on a failure,
// the article whose read failed (see fetchChunk). A connection that fails
// after the chunk's last article is dropped, the chunk done.
func (nr *newsRun) do(ctx context.Context, worker int, c *newsConn, task newsTask, tasks *queue[newsTask], open *sync.WaitGroup) (newsTask, *EntryReport, error) {
	if err := nr.selectGroup(ctx, c, task.g, task.chunk == nil); err != nil {
		return task, nil, err
	}
	if task.chunk == nil {
		first, err := nr.listGroup(ctx, worker, c.s, task.g, tasks, open)
		if err != nil || first == nil {
			return task, nil, err
		}
		// The group's first chunk, on this connection.
		task = newsTask{g: task.g, chunk: first}
	}
	rest, failedAt, lost, err := nr.fetchChunk(ctx, worker, c.s, task.g, task.chunk, task.failedAt)
	task.chunk, task.failedAt = rest, failedAt
	if err != nil && len(rest) == 0 {
		// Every article was stored; the connection failed after.
		task.g.chunkDone(task.failedAt)
		nr.groupDone(task.g)
		nr.drop(c)
		err = nil
	}
	return task, lost, err
}

// taskFailed puts task back on the queue when its failure err is worth
// another attempt (again); otherwise it reports the failure and counts
// the task's chunk as done, failed from its first article on.
func (nr *newsRun) taskFailed(ctx context.Context, task newsTask, err error, lost *EntryReport, tasks *queue[newsTask], open *sync.WaitGroup) {
	if nr.again(ctx, task, err, tasks, open) {
		return
	}
	if lost != nil {
		nr.sum.add(*lost)
	}
	nr.sum.add(EntryReport{Path: task.g.dir, Status: StatusFailed, Reason: "group " + task.g.name + ": " + err.Error()})
	if task.chunk != nil {
		task.g.chunkDone(lowestFailed(task.failedAt, task.chunk[0]))
		nr.groupDone(task.g)
	}
}

// giveUpConnection reports whether a worker whose connection the server
// refused with err gives up its place: when the server refused it for
// their number (proto.ErrBusy) and others have a connection or are
// opening one (the caller is still counted as dialing), which go on with
// the queue. The run then says so (noteBusy), as a file
// mirror does. The last worker never gives up: its task is tried again as
// any other transient failure.
func (nr *newsRun) giveUpConnection(err error) bool {
	return errors.Is(err, proto.ErrBusy) && nr.live.Load()+nr.dialing.Load() > 1 && nr.giveUpSlot()
}

// again puts a failed task back on the queue, to be done on a new
// connection, when run.next says its failure is worth another attempt.
// It reports false when the failure is final.
func (nr *newsRun) again(ctx context.Context, task newsTask, err error, tasks *queue[newsTask], open *sync.WaitGroup) bool {
	d, ok := nr.next(ctx, &task.attempt, err)
	if ok {
		open.Add(1) // outstanding: the run waits for it
		pushAfter(ctx, tasks, task, d)
	}
	return ok
}

func (nr *newsRun) articleURL(group string, n int64) string {
	return "nntp://" + nr.server + "/" + uri.Escape(group, "") + "/" + strconv.FormatInt(n, 10)
}

// overviewChunk is the most article numbers asked for in one OVER of a
// dense group. The overview of a big group in one answer outgrows the
// limit on a listing (nntp.DefaultMaxListBytes, 64 MiB: some 200,000
// lines), which failed the group, and keeps a slow server writing for
// minutes before the first article; newsreaders ask in ranges too. A
// variable for the tests.
var overviewChunk int64 = 10000

// maxListed bounds the articles of one group that a run lists and keeps
// in memory (some 100 bytes each, with what is decided about them), and
// maxRanges the OVER commands (or ranges of STATs) it sends for them.
// Past either the listing stops at the end of a range: the articles
// listed are fetched, the group's high water mark is recorded there, and
// the group is reported partial; the next run goes on from there.
// Variables for the tests.
var (
	maxListed = 1 << 20
	maxRanges = 10000
)

// overviewWidth is how many numbers one OVER asks for in a group of count
// articles (-1: unknown) from low to high: overviewChunk, or more where
// the count says the group is sparse, as many as hold overviewChunk of
// its articles at its density. An old group whose articles have mostly
// expired, or a server that claims 1 to 10^12, is listed in a few
// commands, not in 10^8 answered "no articles in that range"; a count of
// 0 asks for the whole range in one OVER. A count below the truth (RFC
// 3977 section 6.1.1.2 forbids it) gives longer answers, up to the limit
// on a listing, which then fails the group: never a silent loss.
func overviewWidth(count, low, high int64) int64 {
	if count < 0 || high < low {
		return overviewChunk
	}
	span := float64(uint64(high)-uint64(low)) + 1
	w := float64(overviewChunk) * span / max(float64(count), 1)
	if w >= math.MaxInt64 {
		return math.MaxInt64
	}
	return max(overviewChunk, int64(w))
}

// groupListing is what a run lists of a group: the articles from keep on
// (those it decides about), the numbers only of those below keep (listed
// for Delete), and the last number the listing covers, below the last
// asked for when it stopped at maxListed or maxRanges.
type groupListing struct {
	keep  int64
	arts  []NewsArticle
	below []int64
	to    int64
}

func (l *groupListing) add(a NewsArticle) {
	if a.Number < l.keep {
		l.below = append(l.below, a.Number)
		return
	}
	l.arts = append(l.arts, a)
}

// listRanges lists the numbers first to last in ranges of width, each by
// list, until the listing is full: maxListed articles kept, or maxRanges
// ranges that reach keep. The numbers below keep, listed for Delete only,
// count for neither: a bound there would stop every run of a big group at
// the same place, below its new articles. The error is list's, or ctx's.
//
// Article numbers may run to math.MaxInt64: RFC 3977 section 6 bounds them
// to 2,147,483,647, but servers with big groups went past it and send
// larger ones, which the mirror takes as they are; numrange walks such a
// range without computing a number past its end, and checks ctx before
// each range.
func (l *groupListing) listRanges(ctx context.Context, first, last, width int64, list func(lo, hi int64) error) error {
	ranges := 0
	err := numrange.Chunks(ctx, first, last, width, func(lo, hi int64) error {
		if hi >= l.keep {
			if len(l.arts) >= maxListed || ranges >= maxRanges {
				return errListBound
			}
			ranges++
		}
		if err := list(lo, hi); err != nil {
			return err
		}
		l.to = hi
		return nil
	})
	if errors.Is(err, errListBound) {
		return nil
	}
	return err
}

// errListBound stops a listing at maxListed or maxRanges; it never leaves
// listRanges.
var errListBound = errors.New("mirror: listing bound")

// overviewChunks is the overview of the selected group from first to last,
// asked for in ranges of width numbers (overviewWidth), until the listing
// is full (listRanges); of the articles below keep it keeps the numbers.
// ok is false when the server has no overview (the caller then asks STAT
// for each number).
func overviewChunks(ctx context.Context, s NewsSession, first, keep, last, width int64) (groupListing, bool, error) {
	l := groupListing{keep: keep, to: first - 1}
	err := l.listRanges(ctx, first, last, width, func(lo, hi int64) error {
		nums, ids, ok, err := s.OverviewIDs(ctx, lo, hi)
		if err == nil && !ok {
			return errNoOverview
		}
		if err != nil {
			return err
		}
		for i, n := range nums {
			l.add(NewsArticle{Number: n, MessageID: ids[i]})
		}
		return nil
	})
	switch {
	case errors.Is(err, errNoOverview):
		return groupListing{}, false, nil
	case err != nil:
		return groupListing{}, true, err
	}
	return l, true, nil
}

// errNoOverview ends overviewChunks' walk at a server without an
// overview; it never leaves overviewChunks.
var errNoOverview = errors.New("mirror: no overview")

// statRange lists the articles first to last of the selected group on a
// server without an overview, by STAT (RFC 3977 section 6.2.4): of the
// numbers LISTGROUP gives (section 6.1.2), else of every number in ranges
// of overviewChunk; many STATs at a time when s is a NewsNumberer, else
// one by one. The numbers LISTGROUP gives below keep are not STATed: only
// whether they exist matters there. As overviewChunks, it stops when the
// listing is full (of LISTGROUP's numbers from keep on, it STATs the
// first maxListed).
func statRange(ctx context.Context, s NewsSession, group string, first, keep, last int64) (groupListing, error) {
	l := groupListing{keep: keep, to: first - 1}
	add := func(n int64, id string, found bool) error {
		if found {
			l.add(NewsArticle{Number: n, MessageID: id})
		}
		return nil
	}
	nn, many := s.(NewsNumberer)
	if many {
		nums, listed, err := nn.ListNumbers(ctx, group, first, last)
		if err != nil {
			return groupListing{}, err
		}
		if listed {
			i, _ := slices.BinarySearch(nums, keep)
			l.below, nums = nums[:i], nums[i:]
			l.to = last
			if len(nums) > maxListed {
				nums = nums[:maxListed]
				l.to = nums[maxListed-1]
			}
			if err := nn.StatEach(ctx, nums, add); err != nil {
				return groupListing{}, err
			}
			return l, nil
		}
	}
	var nums []int64
	err := l.listRanges(ctx, first, last, overviewChunk, func(lo, hi int64) error {
		if many {
			nums = slices.AppendSeq(nums[:0], numrange.Numbers(lo, hi))
			if err := nn.StatEach(ctx, nums, add); err != nil {
				return err
			}
		} else {
			for n := range numrange.Numbers(lo, hi) {
				id, found, err := s.Stat(ctx, n)
				if err != nil {
					return err
				}
				add(n, id, found)
			}
		}
		return nil
	})
	if err != nil {
		return groupListing{}, err
	}
	return l, nil
}

// renumbered handles a group whose high water mark on the server is
// below the one recorded (g.mark.High). New articles take numbers above
// the high water mark (RFC 3977 section 6.1.1.2): the server numbered the
// group again (a rebuilt spool, another server under the same name), and
// its articles from 1 on would never be asked for, while the files under
// those numbers hold the old ones. The recorded mark drops to the
// server's. A group with articles is listed again from its low water mark
// (an article stored under a number the server now gives to another is
// then not overwritten, and fails: see otherArticle), and the run says
// so: a failed entry naming both marks (exit 8). An empty group (count 0,
// high below low, or "0 0 0", all of RFC 3977's forms) has nothing to
// miss: its mark drops without a word.
func (nr *newsRun) renumbered(g *groupRun, dir string) {
	low, high := g.low, g.high
	if g.count == 0 || high < low || high < 1 {
		g.mark.High = max(high, 0)
		return
	}
	from := max(low, 1)
	nr.sum.add(EntryReport{Path: dir, URL: nr.articleURL(g.name, from), Status: StatusFailed,
		Reason: fmt.Sprintf("group %s: the server's high water mark %d is below the %d recorded: the group was renumbered or rebuilt (or its newest articles removed); listed again from %d, and an article stored under a number the server now gives to another is not overwritten",
			g.name, high, g.mark.High, from)})
	g.mark.High = from - 1
}

// renumberedUnder handles a group whose article under the recorded mark
// is now another (id; old is the one stored there) while the server's
// high water mark is above the mark: renumbered or rebuilt, and grown
// since. The articles above the mark are fetched as listed; the run says
// so (a failed entry naming the group, the number and both Message-IDs:
// exit 8), and the recorded mark drops below the group's low water mark,
// so that the next run lists the group again from there, as renumbered
// does at once: what is missing comes, and an article stored under a
// number the server now gives to another fails and is not overwritten.
func (nr *newsRun) renumberedUnder(g *groupRun, dir, old, id string) {
	from := max(g.low, 1)
	nr.sum.add(EntryReport{Path: dir, URL: nr.articleURL(g.name, g.mark.High), Status: StatusFailed,
		Reason: fmt.Sprintf("group %s: article %d, the last one recorded, is now %s, where %s is stored: the group was renumbered or rebuilt, and articles under lower numbers may be missing; the next run lists it again from %d",
			g.name, g.mark.High, id, old, from)})
	g.mu.Lock()
	g.mark.High = from - 1
	g.failedAt = lowestFailed(g.failedAt, from)
	g.mu.Unlock()
}

// listGroup decides what to fetch of the selected group g: the numbers
// above its high water mark, up to MaxArticles of the newest, not stored
// under another group already; with Delete it removes the local articles
// the server no longer has. The articles to fetch are split in chunks: it
// queues all but the first, which it returns, for the caller to fetch on
// the connection that has the group selected (nil: nothing to fetch).
func (nr *newsRun) listGroup(ctx context.Context, worker int, s NewsSession, g *groupRun, tasks *queue[newsTask], open *sync.WaitGroup) ([]int64, error) {
	dir := g.dir
	from, askFrom, probe := nr.startAt(g, dir)
	high := g.high
	var l groupListing
	haveList := false
	var err error
	if high >= askFrom {
		if l, haveList, err = nr.listRange(ctx, s, g, dir, askFrom, from); err != nil {
			return nil, err
		}
		high = g.high
	}
	if nr.opts.Delete && (haveList || high < askFrom) {
		nr.deleteGone(g.name, dir, high, l)
	}
	var nums []int64
	g.ids = map[int64]string{}
	for _, a := range l.arts {
		if a.Number >= from && nr.wanted(g, dir, a, probe) {
			nums = append(nums, a.Number)
			g.ids[a.Number] = a.MessageID
		}
	}
	if nr.opts.DryRun {
		return nil, nil
	}
	if len(nums) == 0 {
		nr.groupDone(g)
		return nil, nil
	}
	if _, err := nr.dirs.open(dir, true); err != nil {
		return nil, err
	}
	return nr.queueChunks(g, nums, tasks, open), nil
}

// startAt reads g's recorded mark and returns the first number to fetch
// (from), the first to list (askFrom: lower with Delete, which needs the
// whole group), and the recorded mark's article when it is listed again
// to see whether the group was renumbered (probe, or 0).
func (nr *newsRun) startAt(g *groupRun, dir string) (from, askFrom, probe int64) {
	low, high := g.low, g.high
	nr.m.mu.Lock()
	g.mark = nr.m.Groups[g.name]
	nr.m.mu.Unlock()
	if g.mark.High > high {
		nr.renumbered(g, dir)
	}
	next := g.mark.High + 1
	switch {
	case g.mark.High == math.MaxInt64:
		// No number follows (see overviewChunks): the mark's own
		// article is asked for again, found stored and unchanged.
		next = g.mark.High
	case g.mark.High >= max(low, 1) && high > g.mark.High && nr.stat(dir+"/"+strconv.FormatInt(g.mark.High, 10)).regular:
		// New articles: the last one recorded is listed with them, at
		// no round trip more (the same OVER, or STATs sent together).
		// Under another Message-ID than the one stored, the group was
		// renumbered or rebuilt and has since grown past the recorded
		// mark (a mark fallen below it is seen above): articles new to
		// the mirror may stand under lower numbers, which no run would
		// ask for (renumberedUnder).
		next, probe = g.mark.High, g.mark.High
	}
	from = max(low, next, 1)
	if nr.opts.MaxArticles > 0 {
		from = max(from, high-int64(nr.opts.MaxArticles)+1)
	}
	askFrom = from
	if nr.opts.Delete {
		askFrom = max(low, 1)
	}
	return from, askFrom, probe
}

// listRange lists g's articles from askFrom to its high water mark, by
// overview or else by STAT, and reports whether it has a listing. A
// listing cut short (maxListed, maxRanges) lowers g.high to its end and
// is reported as a failed entry, so that the next run goes on from there.
func (nr *newsRun) listRange(ctx context.Context, s NewsSession, g *groupRun, dir string, askFrom, from int64) (groupListing, bool, error) {
	low, high := g.low, g.high
	l, ok, err := overviewChunks(ctx, s, askFrom, from, high, overviewWidth(g.count, low, high))
	switch {
	case err != nil:
		return l, false, err
	case ok:
	case g.count == 0:
		// No overview, and the server says the group is empty
		// (RFC 3977 section 6.1.1.2: the count of a group that
		// has articles is at least their number): no STAT of
		// every number of its range, which may be 10^12 numbers.
		// Nothing is deleted on that word alone.
		return l, false, nil
	default:
		if l, err = statRange(ctx, s, g.name, askFrom, from, high); err != nil {
			return l, false, err
		}
	}
	if l.to < high {
		nr.sum.add(EntryReport{Path: dir, URL: nr.articleURL(g.name, l.to+1), Status: StatusFailed,
			Reason: fmt.Sprintf("group %s: listed up to article %d of %d: one run lists at most %d articles of a group in at most %d ranges; the next run goes on from %d",
				g.name, l.to, high, maxListed, maxRanges, l.to+1)})
		g.high = l.to
	}
	return l, true, nil
}

// wanted reports whether the listed article a of g is to be fetched. The
// probe (see startAt) only checks for a renumbering; an article stored
// under its number with another Message-ID fails and is not overwritten;
// a dry run reports it; an article stored under another group already is
// linked, and one another group is fetching now is linked later.
func (nr *newsRun) wanted(g *groupRun, dir string, a NewsArticle, probe int64) bool {
	rel := dir + "/" + strconv.FormatInt(a.Number, 10)
	url := nr.articleURL(g.name, a.Number)
	if a.Number == probe {
		if old := nr.otherArticle(rel, nr.stat(rel), a.MessageID); old != "" {
			nr.renumberedUnder(g, dir, old, a.MessageID)
		}
		return false
	}
	if old := nr.otherArticle(rel, nr.stat(rel), a.MessageID); old != "" {
		nr.sum.add(EntryReport{Path: rel, URL: url, Status: StatusFailed, Reason: notOverwritten(rel, old, a.MessageID)})
		g.mu.Lock()
		g.failedAt = lowestFailed(g.failedAt, a.Number)
		g.mu.Unlock()
		return false
	}
	if nr.opts.DryRun {
		nr.sum.add(EntryReport{Path: rel, URL: url, Status: StatusNew, Reason: "dry run: would fetch"})
		return false
	}
	if a.MessageID != "" && nr.linkKnown(rel, url, a.MessageID) {
		return false
	}
	if a.MessageID != "" && !nr.claimID(a.MessageID) {
		nr.idMu.Lock()
		nr.later = append(nr.later, pendingLink{group: g.name, rel: rel, url: url, id: a.MessageID, n: a.Number})
		nr.idMu.Unlock()
		return false
	}
	return true
}

// queueChunks splits nums in chunks, one per connection at least chunkMin
// long, queues all but the first and returns it: the first is for this
// connection, the group being selected; the others for whichever
// connection is free.
func (nr *newsRun) queueChunks(g *groupRun, nums []int64, tasks *queue[newsTask], open *sync.WaitGroup) []int64 {
	size := max(chunkMin, (len(nums)+nr.jobs-1)/nr.jobs)
	var chunks [][]int64
	for len(nums) > 0 {
		k := min(size, len(nums))
		chunks = append(chunks, nums[:k:k])
		nums = nums[k:]
	}
	g.mu.Lock()
	g.pending = len(chunks)
	g.mu.Unlock()
	for _, c := range chunks[1:] {
		open.Add(1)
		tasks.push(newsTask{g: g, chunk: c})
	}
	return chunks[0]
}

// fetchChunk fetches the articles nums of the selected group g,
// pipelined; failedAt is the lowest number that failed in an earlier
// attempt at the chunk, or 0. When the chunk is done it counts it
// (chunkDone). When the conversation fails, it returns the numbers not
// stored yet (the article being read among them), the lowest number that
// failed, and the failure of the article being read, if any, which it
// leaves to the caller to report: tried again, the article may come.
func (nr *newsRun) fetchChunk(ctx context.Context, worker int, s NewsSession, g *groupRun, nums []int64, failedAt int64) (rest []int64, failed int64, lost *EntryReport, err error) {
	done := 0 // articles handled
	err = s.Articles(ctx, nums, func(n int64, id string, body io.Reader) error {
		if body == nil {
			nr.releaseID(g.ids[n])
			done++
			return nil // expired between the overview and now
		}
		if id == "" {
			id = g.ids[n]
		}
		rep := nr.storeArticle(worker, g.dir+"/"+strconv.FormatInt(n, 10), nr.articleURL(g.name, n), id, body)
		if rep.err != nil {
			// A read error (the connection, or an article over
			// maxArticle) leaves the conversation out of step.
			lost = &rep
			return rep.err
		}
		if rep.Status == StatusFailed {
			failedAt = lowestFailed(failedAt, n)
		}
		done++
		return nil
	})
	if err != nil {
		return nums[done:], failedAt, lost, err // the caller decides
	}
	g.chunkDone(failedAt)
	nr.groupDone(g)
	return nil, failedAt, nil, nil
}

// chunkDone counts one chunk of g as done; failedAt is the lowest number
// that failed in it, or 0.
func (g *groupRun) chunkDone(failedAt int64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.pending--
	g.failedAt = lowestFailed(g.failedAt, failedAt)
}

// lowestFailed is the lower of two numbers of articles that failed, 0
// standing for none.
func lowestFailed(a, b int64) int64 {
	if a == 0 || b != 0 && b < a {
		return b
	}
	return a
}

// groupDone records g's new marks once its last chunk is done: the high
// water mark stays below the first article that failed, so that the next
// run asks for it again.
func (nr *newsRun) groupDone(g *groupRun) {
	g.mu.Lock()
	if g.pending > 0 {
		g.mu.Unlock()
		return
	}
	newHigh := max(g.mark.High, g.high)
	if g.failedAt > 0 {
		newHigh = max(g.mark.High, g.failedAt-1)
	}
	g.mu.Unlock()
	nr.m.mu.Lock()
	defer nr.m.mu.Unlock()
	if nr.m.Groups == nil {
		nr.m.Groups = map[string]GroupMark{}
	}
	if old, ok := nr.m.Groups[g.name]; !ok || old != (GroupMark{High: newHigh, Low: g.low}) {
		nr.m.Groups[g.name] = GroupMark{High: newHigh, Low: g.low}
		nr.m.dirty = true
	}
}

// claimID marks id as being fetched by this worker; false when another
// worker is fetching it.
func (nr *newsRun) claimID(id string) bool {
	nr.idMu.Lock()
	defer nr.idMu.Unlock()
	if nr.inFlight[id] {
		return false
	}
	nr.inFlight[id] = true
	return true
}

func (nr *newsRun) releaseID(id string) {
	nr.idMu.Lock()
	delete(nr.inFlight, id)
	nr.idMu.Unlock()
}

// storeArticle reads one article and places it; the manifest records it
// and indexes its Message-ID. A failure to read it (rep.err set) is
// returned unreported.
func (nr *newsRun) storeArticle(worker int, rel, url, id string, body io.Reader) EntryReport {
	rep := EntryReport{Path: rel, URL: url}
	rf := remoteFile{rel: rel, size: -1}
	start := time.Now()
	data, err := io.ReadAll(io.LimitReader(body, maxArticle+1))
	if err == nil && int64(len(data)) > maxArticle {
		err = fmt.Errorf("article over %d bytes", maxArticle)
	}
	if err != nil {
		// Not reported here: the caller may try it again (fetchChunk).
		rep.Status, rep.Reason, rep.err = StatusFailed, err.Error(), err
		if id != "" {
			nr.releaseID(id)
		}
		return rep
	}
	loc := nr.stat(rel)
	got := articleID(bytes.NewReader(data))
	if got == "" {
		got = id
	}
	if old := nr.otherArticle(rel, loc, got); old != "" {
		// The overview said nothing of it, or something else.
		rep.Status, rep.Reason = StatusFailed, notOverwritten(rel, old, got)
	} else {
		rep = nr.writeArticle(worker, rf, loc, rep, data)
	}
	if rep.Status == StatusNew || rep.Status == StatusUpdated {
		if err := nr.archive(url, start, data); err != nil {
			// The file is stored; the archive misses it, and says so.
			rep.Status, rep.Reason = StatusFailed, err.Error()
		}
	}
	nr.sum.add(rep)
	if rep.Status != StatusFailed && id != "" {
		nr.m.mu.Lock()
		if nr.m.MessageIDs == nil {
			nr.m.MessageIDs = map[string]string{}
		}
		nr.m.MessageIDs[id] = rel
		nr.m.dirty = true
		nr.m.mu.Unlock()
	} else if id != "" {
		// Not stored: a crosspost met later may fetch it again. A stored
		// one stays claimed, so that a crosspost met while it was in
		// flight waits for linkLater.
		nr.releaseID(id)
	}
	return rep
}

// otherArticle returns the Message-ID of the article stored at rel (loc)
// when it is another than id: the server gives its number to another
// article than the one stored under it (a group renumbered or rebuilt).
// It returns "" when nothing is stored at rel, when it is the same
// article, or when either Message-ID is unknown.
func (nr *newsRun) otherArticle(rel string, loc local, id string) string {
	if !loc.exists || !loc.regular || id == "" {
		return ""
	}
	f, err := nr.root.Open(rel)
	if err != nil {
		return ""
	}
	defer f.Close()
	if old := articleID(f); old != id {
		return old
	}
	return ""
}

// notOverwritten is the reason of an article not stored because rel holds
// another one, old; id is the server's.
func notOverwritten(rel, old, id string) string {
	return fmt.Sprintf("%s holds %s; the server's article under this number is %s (the group renumbered or rebuilt?): not overwritten", rel, old, id)
}

// articleID is the Message-ID field of the article r holds (its header,
// read up to 64 KiB), or "".
func articleID(r io.Reader) string {
	tp := textproto.NewReader(bufio.NewReader(io.LimitReader(r, 64<<10)))
	h, _ := tp.ReadMIMEHeader() // a header cut short still gives its fields
	return strings.TrimSpace(h.Get("Message-Id"))
}

// archive records a stored article in the run's WARC file, if any: a
// resource record of type message/news holding data, under url, dated
// start. The writer's dedup applies: the same bytes at the same URL (a
// manifest's, see fetch.Client.Mirror) are not written again.
func (nr *newsRun) archive(url string, start time.Time, data []byte) error {
	if nr.warc == nil {
		return nil
	}
	rec, err := nr.warc.Begin(warc.Capture{URI: url, Date: start, IP: nr.warc.Address(serverPort(nr.server)), ContentType: "message/news"})
	if err != nil {
		return fmt.Errorf("warc: %s: %w", url, err)
	}
	if _, err := rec.Write(data); err != nil {
		rec.Abort()
		return err
	}
	return rec.Commit()
}

// serverPort is the host:port of a news server as its URLs name it
// (host[:port], the port elided when it is 119): the key under which the
// client's dialer noted the address it reached.
func serverPort(server string) string {
	if _, _, err := net.SplitHostPort(server); err == nil {
		return server
	}
	return net.JoinHostPort(strings.Trim(server, "[]"), "119")
}

// writeArticle writes data to its partial file and renames it into place.
func (nr *newsRun) writeArticle(worker int, rf remoteFile, loc local, rep EntryReport, data []byte) EntryReport {
	if loc.exists && !loc.regular {
		rep.Status, rep.Reason = StatusSkipped, "a directory or symbolic link stands at this local path"
		return rep
	}
	rf.size = int64(len(data))
	if err := nr.writeWhole(rf, data); err != nil {
		rep.Status, rep.Reason = StatusFailed, err.Error()
		return rep
	}
	nr.written.add(rf.rel)
	sum := sha256.Sum256(data)
	return nr.record(worker, rf, loc, rep, rf.size, rf.size, hex.EncodeToString(sum[:]))
}

// linkKnown stores a crosspost whose Message-ID the manifest knows under
// another path: a hard link to that file, or a copy where links fail. It
// reports false when the id is unknown or its file is gone.
func (nr *newsRun) linkKnown(rel, url, id string) bool {
	nr.m.mu.Lock()
	src, ok := nr.m.MessageIDs[id]
	var rec Record
	if ok {
		rec, ok = nr.m.Files[src]
	}
	nr.m.mu.Unlock()
	if !ok {
		return false
	}
	if src == rel {
		if l := nr.stat(rel); l.regular && l.size == rec.Size {
			nr.sum.add(EntryReport{Path: rel, URL: url, Status: StatusUnchanged})
			return true
		}
		return false
	}
	if l := nr.stat(src); !l.regular || l.size != rec.Size {
		return false
	}
	loc := nr.stat(rel)
	rep := EntryReport{Path: rel, URL: url}
	if err := nr.linkOrCopy(src, rel); err != nil {
		rep.Status, rep.Reason = StatusFailed, "crosspost of "+src+": "+err.Error()
		nr.sum.add(rep)
		return true
	}
	nr.written.add(rel)
	nr.m.put(rel, Record{Size: rec.Size, SHA256: rec.SHA256, URL: url, Link: ""})
	rep.Status, rep.Reason = statusFor(loc), "crosspost: linked to "+src
	nr.sum.add(rep)
	return true
}

// linkOrCopy makes rel a hard link to src, through a partial name renamed
// into place; where the file system refuses links, a copy.
func (nr *newsRun) linkOrCopy(src, rel string) error {
	part := partialDir + "/" + rel
	if err := nr.root.MkdirAll(path.Dir(part), 0o755); err != nil {
		return err
	}
	nr.root.Remove(part)
	if nr.root.Link(src, part) == nil {
		return nr.place(remoteFile{rel: rel, size: -1}, true)
	}
	data, err := nr.root.ReadFile(src)
	if err != nil {
		return err
	}
	return nr.writeWhole(remoteFile{rel: rel, size: -1}, data)
}

// linkLater stores the crossposts met while their first copy was being
// fetched by another worker: a link to that copy, or, when it was not
// stored, the article fetched again under this group and number.
func (nr *newsRun) linkLater(ctx context.Context) {
	var again []pendingLink
	for _, p := range nr.later {
		if !nr.linkKnown(p.rel, p.url, p.id) {
			again = append(again, p)
		}
	}
	nr.later = nil
	if len(again) == 0 || ctx.Err() != nil {
		return
	}
	fail := func(p pendingLink, err error) {
		nr.sum.add(EntryReport{Path: p.rel, URL: p.url, Status: StatusFailed, Reason: err.Error()})
		nr.lowerMark(p.group, p.n-1)
	}
	s, err := nr.d.OpenNews(ctx, nr.start, nr.request(proto.Options{}))
	if err != nil {
		for _, p := range again {
			fail(p, err)
		}
		return
	}
	defer s.Close()
	current := ""
	for i, p := range again {
		if current != p.group {
			if _, _, _, err := s.GroupCount(ctx, p.group); err != nil {
				fail(p, err)
				continue
			}
			current = p.group
		}
		err := s.Articles(ctx, []int64{p.n}, func(n int64, id string, body io.Reader) error {
			if body == nil {
				return nil // expired meanwhile
			}
			rep := nr.storeArticle(0, p.rel, p.url, p.id, body)
			if rep.Status == StatusFailed {
				nr.lowerMark(p.group, p.n-1)
			}
			return rep.err
		})
		if err != nil {
			for _, q := range again[i:] {
				fail(q, err)
			}
			return
		}
	}
}

// lowerMark keeps group g's high water mark at most high, so that the
// next run asks again for what failed above it.
func (nr *newsRun) lowerMark(g string, high int64) {
	nr.m.mu.Lock()
	defer nr.m.mu.Unlock()
	if mk, ok := nr.m.Groups[g]; ok && mk.High > high {
		mk.High = max(high, 0)
		nr.m.Groups[g] = mk
		nr.m.dirty = true
	}
}

// deleteGone removes the local articles of group g (in dir) that the
// server no longer has: numbers up to high missing from the listing l
// (which covers low..high), and so those below low.
func (nr *newsRun) deleteGone(g, dir string, high int64, l groupListing) {
	have := make(map[int64]bool, len(l.arts)+len(l.below))
	for _, a := range l.arts {
		have[a.Number] = true
	}
	for _, n := range l.below {
		have[n] = true
	}
	entries, err := fs.ReadDir(nr.root.FS(), dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		n, err := strconv.ParseInt(e.Name(), 10, 64)
		if err != nil || n < 1 || strconv.FormatInt(n, 10) != e.Name() {
			continue
		}
		if n <= high && !have[n] {
			nr.deleteLocal(dir+"/"+e.Name(), "article "+strconv.FormatInt(n, 10)+" of "+g+" expired")
		}
	}
}
