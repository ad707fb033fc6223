package mirror

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// edgeServer is a news server in memory with one group, edge.g, whose
// GROUP gives low and high as they are, however large; it holds the
// articles ids (number → Message-ID). Every number asked for outside
// low..high, and every empty range, is an error, recorded in bad.
type edgeServer struct {
	low, high int64
	over      bool // an overview (else no overview, and LISTGROUP as numbers says)
	numbers   bool // LISTGROUP (ArticleNumbers lists ids)
	ids       map[int64]string
	// count, when set, is GROUP's count (GroupCount); nil gives
	// len(ids).
	count *int64
	// noIDs: the overview gives no Message-IDs.
	noIDs bool
	// onOverview, when set, is called at each Overview.
	onOverview func()

	mu    sync.Mutex
	stats int64    // numbers STATed
	overs []string // Overview ranges asked for
	bad   []string
}

func (e *edgeServer) check(what string, lo, hi int64) error {
	if lo <= hi && lo >= e.low && hi <= e.high {
		return nil
	}
	e.mu.Lock()
	e.bad = append(e.bad, fmt.Sprintf("%s %d-%d", what, lo, hi))
	e.mu.Unlock()
	return &proto.ProtocolError{Proto: "nntp", Msg: fmt.Sprintf("%s %d-%d outside the group's %d-%d", what, lo, hi, e.low, e.high)}
}

type edgeFetcher struct{ srv *edgeServer }

func (f edgeFetcher) Fetch(context.Context, *uri.URL, *proto.Request) (*proto.Response, error) {
	return nil, errors.New("edgeFetcher: no Fetch")
}

func (f edgeFetcher) OpenNews(context.Context, *uri.URL, *proto.Request) (NewsSession, error) {
	return edgeSession{f.srv}, nil
}

type edgeSession struct{ e *edgeServer }

var (
	_ NewsSession  = edgeSession{}
	_ NewsNumberer = edgeSession{}
)

func (s edgeSession) GroupCount(ctx context.Context, name string) (int64, int64, int64, error) {
	if s.e.count != nil {
		return *s.e.count, s.e.low, s.e.high, nil
	}
	return int64(len(s.e.ids)), s.e.low, s.e.high, nil
}

func (s edgeSession) OverviewIDs(ctx context.Context, first, last int64) ([]int64, []string, bool, error) {
	if s.e.onOverview != nil {
		s.e.onOverview()
	}
	s.e.mu.Lock()
	s.e.overs = append(s.e.overs, fmt.Sprintf("%d-%d", first, last))
	s.e.mu.Unlock()
	if !s.e.over {
		return nil, nil, false, nil
	}
	if err := s.e.check("OVER", first, last); err != nil {
		return nil, nil, true, err
	}
	var nums []int64
	var ids []string
	for n, id := range s.e.ids {
		if s.e.noIDs {
			id = ""
		}
		if n >= first && n <= last {
			nums, ids = append(nums, n), append(ids, id)
		}
	}
	return nums, ids, true, nil
}

func (s edgeSession) Stat(ctx context.Context, n int64) (string, bool, error) {
	if err := s.e.check("STAT", n, n); err != nil {
		return "", false, err
	}
	s.e.mu.Lock()
	s.e.stats++
	s.e.mu.Unlock()
	id, ok := s.e.ids[n]
	return id, ok, nil
}

func (s edgeSession) ListNumbers(ctx context.Context, group string, first, last int64) ([]int64, bool, error) {
	if !s.e.numbers {
		return nil, false, nil
	}
	var nums []int64
	for n := range s.e.ids {
		if n >= first && n <= last {
			nums = append(nums, n)
		}
	}
	slices.Sort(nums)
	return nums, true, nil
}

func (s edgeSession) StatEach(ctx context.Context, nums []int64, fn func(int64, string, bool) error) error {
	for _, n := range nums {
		id, found, err := s.Stat(ctx, n)
		if err != nil {
			return err
		}
		if err := fn(n, id, found); err != nil {
			return err
		}
	}
	return nil
}

func (s edgeSession) Articles(ctx context.Context, nums []int64, fn func(int64, string, io.Reader) error) error {
	for _, n := range nums {
		if err := s.e.check("ARTICLE", n, n); err != nil {
			return err
		}
		id := s.e.ids[n]
		if err := fn(n, id, strings.NewReader("Message-ID: "+id+"\n\nbody\n")); err != nil {
			return err
		}
	}
	return nil
}

func (s edgeSession) GroupNames(ctx context.Context, wildmat string) ([]string, error) {
	return []string{"edge.g"}, nil
}

func (s edgeSession) Server() string { return "edge.invalid" }
func (s edgeSession) Close() error   { return nil }

// TestNewsMirrorTopNumbers mirrors a group whose numbers end at
// math.MaxInt64 (RFC 3977 section 6 bounds them to 2,147,483,647; the
// mirror takes larger ones, as servers with big groups send them), with
// and without an overview: each range asked for lies within the group,
// every number is STATed once where there is no overview, the two articles
// come, and a second run asks for no more than the mark's own number.
// Before, lo+overviewChunk-1 overflowed: a group of exactly 10,000 numbers
// up to math.MaxInt64 was STATed in a loop that never ended (out of
// memory), one of fewer numbers was asked for negative numbers.
func TestNewsMirrorTopNumbers(t *testing.T) {
	for _, tc := range []struct {
		low  int64
		over bool
	}{
		{math.MaxInt64 - 9999, false}, // one range of overviewChunk, to the top
		{math.MaxInt64 - 5, false},    // lo+overviewChunk-1 overflows
		{math.MaxInt64 - 25000, false},
		{math.MaxInt64 - 9999, true},
		{math.MaxInt64 - 5, true},
		{math.MaxInt64 - 25000, true},
	} {
		t.Run(fmt.Sprintf("low=max-%d/over=%v", math.MaxInt64-tc.low, tc.over), func(t *testing.T) {
			// The count of a server that subtracts the water marks:
			// the overview is asked for in ranges of overviewChunk.
			e := &edgeServer{low: tc.low, high: math.MaxInt64, over: tc.over,
				ids:   map[int64]string{tc.low: "<low@x>", math.MaxInt64: "<top@x>"},
				count: new(math.MaxInt64 - tc.low + 1)}
			dir := t.TempDir()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			u := uri.MustParse("nntp://edge.invalid/edge.g")
			sum, err := Run(ctx, edgeFetcher{e}, u, dir, newsRunOpts(2))
			if err != nil || sum.New != 2 || sum.Failed != 0 {
				t.Fatalf("Run = %+v, %v; want 2 new", sum, err)
			}
			if e.bad != nil {
				t.Errorf("asked outside the group: %q", e.bad)
			}
			if want := math.MaxInt64 - tc.low + 1; !tc.over && e.stats != want {
				t.Errorf("%d numbers STATed, want %d", e.stats, want)
			}
			for n := range e.ids {
				if _, err := os.Stat(filepath.Join(dir, "edge", "g", strconv.FormatInt(n, 10))); err != nil {
					t.Errorf("article %d: %v", n, err)
				}
			}
			// The mark is math.MaxInt64: nothing follows it.
			e.stats, e.overs = 0, nil
			sum, err = Run(ctx, edgeFetcher{e}, u, dir, newsRunOpts(2))
			if err != nil || sum.New != 0 || sum.Failed != 0 {
				t.Fatalf("second Run = %+v, %v; want nothing new", sum, err)
			}
			if e.stats > 1 || len(e.overs) > 1 || e.bad != nil {
				t.Errorf("second run: %d STATs, overviews %q, bad %q; want at most the mark's own number", e.stats, e.overs, e.bad)
			}
		})
	}
}

// The overview of a group is asked for range by range, ctx checked before
// each: cancelled during the first, no second is asked for. Before, the
// loop went on to the group's end (and past MaxInt64 forever, Overview
// answering nothing for a range whose end lay before its start).
func TestNewsMirrorOverviewCancel(t *testing.T) {
	defer func(c int64) { overviewChunk = c }(overviewChunk)
	overviewChunk = 10
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// A count of 1000 (as a server that subtracts the water marks): the
	// ranges are overviewChunk numbers wide.
	e := &edgeServer{low: 1, high: 1000, over: true, ids: map[int64]string{1: "<a@x>"}, count: new(int64(1000)), onOverview: cancel}
	_, err := Run(ctx, edgeFetcher{e}, uri.MustParse("nntp://edge.invalid/edge.g"), t.TempDir(), newsRunOpts(1))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Run = %v, want context.Canceled", err)
	}
	if len(e.overs) != 1 {
		t.Errorf("overview ranges %q after a cancel in the first; want 1", e.overs)
	}
}

// A group of 25 articles, listed by a run that keeps at most 10
// (maxListed; 1<<20 in earnest) in ranges of 5 numbers, by each way the
// mirror lists: the overview, LISTGROUP then STAT, STAT of every number.
// Each run stops at the end of the range that reached the bound, fetches
// what it listed, records the group's high water mark there, says so (a
// failed entry for the group, ErrPartial: exit 8) and the next goes on
// from there: 10, then 10 of which the first is the mark's own article
// (renumberedUnder), then the last 6 with it again, and no error. Before, the articles
// listed were kept across ranges without a bound. With Delete the numbers
// below the mark, listed only to find what expired, count for nothing.
func TestNewsMirrorListBound(t *testing.T) {
	defer func(c int64, l int) { overviewChunk, maxListed = c, l }(overviewChunk, maxListed)
	overviewChunk, maxListed = 5, 10
	for _, tc := range []struct {
		name          string
		over, numbers bool
	}{
		{"overview", true, false},
		{"listgroup", false, true},
		{"stat", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := &edgeServer{low: 1, high: 25, over: tc.over, numbers: tc.numbers, ids: map[int64]string{}}
			for n := int64(1); n <= 25; n++ {
				e.ids[n] = fmt.Sprintf("<a%d@x>", n)
			}
			dir := t.TempDir()
			u := uri.MustParse("nntp://edge.invalid/edge.g")
			opts := newsRunOpts(2)
			// From the second run on, the listing begins with the
			// recorded mark's article, listed again to see that it is
			// the same (renumberedUnder): 9 new of 10 listed, then 6.
			for i, want := range []struct {
				new  int
				high int64
			}{{10, 10}, {9, 19}, {6, 25}} {
				sum, err := Run(t.Context(), edgeFetcher{e}, u, dir, opts)
				if sum.New != want.new {
					t.Errorf("run %d: %d new, want %d", i+1, sum.New, want.new)
				}
				if partial := want.high < 25; partial != errors.Is(err, ErrPartial) || partial != (sum.Failed == 1) {
					t.Errorf("run %d: %v, %d failed; want partial %v", i+1, err, sum.Failed, partial)
				}
				if m := readManifest(t, dir); m.Groups["edge.g"].High != want.high {
					t.Errorf("run %d: mark %+v, want %d", i+1, m.Groups["edge.g"], want.high)
				}
			}
			if e.bad != nil {
				t.Errorf("asked outside the group: %q", e.bad)
			}
			for n := range e.ids {
				if _, err := os.Stat(filepath.Join(dir, "edge", "g", strconv.FormatInt(n, 10))); err != nil {
					t.Errorf("article %d: %v", n, err)
				}
			}
			// Five more and one expired: with Delete the 25 below the
			// mark are listed again, and the run is whole.
			for n := int64(26); n <= 30; n++ {
				e.ids[n] = fmt.Sprintf("<a%d@x>", n)
			}
			delete(e.ids, 3)
			e.high = 30
			opts.Delete = true
			sum, err := Run(t.Context(), edgeFetcher{e}, u, dir, opts)
			if err != nil || sum.New != 5 || sum.Deleted != 1 {
				t.Errorf("run with Delete: %v, %d new, %d deleted; want 5 and 1", err, sum.New, sum.Deleted)
			}
		})
	}
}

// A server that claims a wide range with nothing in it, or that keeps
// saying "no articles in that range", is asked for at most maxRanges
// ranges in a run (3 here; ranges of 10 numbers, the count claiming every
// number holds an article): the run says it stopped (exit 8), records the
// mark at the end of the last range, and the next run goes on.
func TestNewsMirrorRangeBound(t *testing.T) {
	defer func(c int64, r int) { overviewChunk, maxRanges = c, r }(overviewChunk, maxRanges)
	overviewChunk, maxRanges = 10, 3
	e := &edgeServer{low: 1, high: 100, over: true, ids: map[int64]string{100: "<z@x>"}, count: new(int64(100))}
	dir := t.TempDir()
	u := uri.MustParse("nntp://edge.invalid/edge.g")
	sum, err := Run(t.Context(), edgeFetcher{e}, u, dir, newsRunOpts(1))
	if !errors.Is(err, ErrPartial) || sum.Failed != 1 || sum.New != 0 {
		t.Errorf("Run = %v, %d failed, %d new; want ErrPartial, 1 and 0", err, sum.Failed, sum.New)
	}
	if want := []string{"1-10", "11-20", "21-30"}; !slices.Equal(e.overs, want) {
		t.Errorf("overview ranges %q, want %q", e.overs, want)
	}
	if m := readManifest(t, dir); m.Groups["edge.g"].High != 30 {
		t.Errorf("mark %+v, want 30", m.Groups)
	}
}

// An article file stands under the number of an article to fetch (a
// manifest lost, a group renumbered) and the overview gives no Message-ID
// to compare: the article is fetched, and its own Message-ID compared with
// the stored file's. Another article is not written over the file: the
// entry fails, the file stays.
func TestNewsMirrorNotOverwritten(t *testing.T) {
	e := &edgeServer{low: 1, high: 2, over: true, noIDs: true, ids: map[int64]string{1: "<new1@x>", 2: "<new2@x>"}}
	dir := t.TempDir()
	old := "Message-ID: <old@x>\n\nold\n"
	if err := os.MkdirAll(filepath.Join(dir, "edge", "g"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "edge", "g", "1"), []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := Run(t.Context(), edgeFetcher{e}, uri.MustParse("nntp://edge.invalid/edge.g"), dir, newsRunOpts(1))
	if !errors.Is(err, ErrPartial) || sum.Failed != 1 || sum.New != 1 {
		t.Errorf("Run = %v, %d failed, %d new; want ErrPartial, 1, 1: %+v", err, sum.Failed, sum.New, sum.Entries)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "edge", "g", "1")); string(b) != old {
		t.Errorf("edge/g/1 = %q, want the old article kept", b)
	}
	if m := readManifest(t, dir); m.Groups["edge.g"].High != 0 {
		t.Errorf("mark %+v, want 0, below the article not stored", m.Groups)
	}
}
