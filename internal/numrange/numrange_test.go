package numrange

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"
)

type span struct{ lo, hi int64 }

// chunkTests are ranges at both ends of int64. RFC 3977 section 6 bounds
// article numbers to 1..2,147,483,647; servers send larger ones, so the
// walk must stay exact up to math.MaxInt64.
var chunkTests = []struct {
	first, last, size int64
	want              []span
}{
	{1, 10, 4, []span{{1, 4}, {5, 8}, {9, 10}}},
	{1, 8, 4, []span{{1, 4}, {5, 8}}},
	{5, 5, 10000, []span{{5, 5}}},
	{6, 5, 10, nil}, // empty: last < first
	// The high water mark at math.MaxInt64: lo+size would overflow.
	{math.MaxInt64 - 9, math.MaxInt64, 10, []span{{math.MaxInt64 - 9, math.MaxInt64}}},
	{math.MaxInt64 - 9, math.MaxInt64, 4, []span{{math.MaxInt64 - 9, math.MaxInt64 - 6}, {math.MaxInt64 - 5, math.MaxInt64 - 2}, {math.MaxInt64 - 1, math.MaxInt64}}},
	{math.MaxInt64 - 5, math.MaxInt64, 10000, []span{{math.MaxInt64 - 5, math.MaxInt64}}},
	{math.MaxInt64, math.MaxInt64, 1, []span{{math.MaxInt64, math.MaxInt64}}},
	{math.MaxInt64 - 2, math.MaxInt64, math.MaxInt64, []span{{math.MaxInt64 - 2, math.MaxInt64}}},
	// A range across zero: last-first overflows int64.
	{math.MinInt64, math.MaxInt64, math.MaxInt64, []span{{math.MinInt64, -2}, {-1, math.MaxInt64 - 2}, {math.MaxInt64 - 1, math.MaxInt64}}},
}

func TestChunks(t *testing.T) {
	for _, tt := range chunkTests {
		t.Run(fmt.Sprintf("%d-%d/%d", tt.first, tt.last, tt.size), func(t *testing.T) {
			var got []span
			err := Chunks(context.Background(), tt.first, tt.last, tt.size, func(lo, hi int64) error {
				got = append(got, span{lo, hi})
				if len(got) > 10 {
					return errors.New("too many ranges")
				}
				return nil
			})
			if err != nil || !slices.Equal(got, tt.want) {
				t.Errorf("Chunks(%d, %d, %d) = %v, %v; want %v", tt.first, tt.last, tt.size, got, err, tt.want)
			}
		})
	}
}

// Chunks stops at an error of fn, and before the next range once ctx is
// done.
func TestChunksStop(t *testing.T) {
	stop := errors.New("stop")
	calls := 0
	err := Chunks(context.Background(), 1, 100, 10, func(lo, hi int64) error { calls++; return stop })
	if !errors.Is(err, stop) || calls != 1 {
		t.Errorf("Chunks with fn failing = %v after %d calls; want stop after 1", err, calls)
	}
	ctx, cancel := context.WithCancel(context.Background())
	calls = 0
	err = Chunks(ctx, 1, 100, 10, func(lo, hi int64) error { calls++; cancel(); return nil })
	if !errors.Is(err, context.Canceled) || calls != 1 {
		t.Errorf("Chunks with ctx cancelled in fn = %v after %d calls; want context.Canceled after 1", err, calls)
	}
}

func TestNumbers(t *testing.T) {
	for _, tt := range []struct {
		lo, hi int64
		want   []int64
	}{
		{1, 3, []int64{1, 2, 3}},
		{3, 3, []int64{3}},
		{4, 3, nil},
		{math.MaxInt64 - 2, math.MaxInt64, []int64{math.MaxInt64 - 2, math.MaxInt64 - 1, math.MaxInt64}},
	} {
		var got []int64
		for n := range Numbers(tt.lo, tt.hi) {
			got = append(got, n)
			if len(got) > 10 {
				break
			}
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("Numbers(%d, %d) = %v, want %v", tt.lo, tt.hi, got, tt.want)
		}
	}
}
