package mirror

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
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
	over      bool // an overview (else no overview and no LISTGROUP)
	ids       map[int64]string
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

func (s edgeSession) Group(ctx context.Context, name string) (int64, int64, error) {
	return s.e.low, s.e.high, nil
}

func (s edgeSession) Overview(ctx context.Context, first, last int64) ([]NewsArticle, bool, error) {
	if s.e.onOverview != nil {
		s.e.onOverview()
	}
	s.e.mu.Lock()
	s.e.overs = append(s.e.overs, fmt.Sprintf("%d-%d", first, last))
	s.e.mu.Unlock()
	if !s.e.over {
		return nil, false, nil
	}
	if err := s.e.check("OVER", first, last); err != nil {
		return nil, true, err
	}
	var out []NewsArticle
	for n, id := range s.e.ids {
		if n >= first && n <= last {
			out = append(out, NewsArticle{Number: n, MessageID: id})
		}
	}
	return out, true, nil
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

func (s edgeSession) ArticleNumbers(ctx context.Context, group string, first, last int64) ([]int64, bool, error) {
	return nil, false, nil
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

func (s edgeSession) ListActive(ctx context.Context, wildmat string) ([]string, error) {
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
			e := &edgeServer{low: tc.low, high: math.MaxInt64, over: tc.over,
				ids: map[int64]string{tc.low: "<low@x>", math.MaxInt64: "<top@x>"}}
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
	e := &edgeServer{low: 1, high: 1000, over: true, ids: map[int64]string{1: "<a@x>"}, onOverview: cancel}
	_, err := Run(ctx, edgeFetcher{e}, uri.MustParse("nntp://edge.invalid/edge.g"), t.TempDir(), newsRunOpts(1))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Run = %v, want context.Canceled", err)
	}
	if len(e.overs) != 1 {
		t.Errorf("overview ranges %q after a cancel in the first; want 1", e.overs)
	}
}
