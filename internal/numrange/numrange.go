// Package numrange walks a range of article numbers in chunks. NNTP
// article numbers are 1 to 2,147,483,647 in RFC 3977 (section 6), but
// servers with bigger groups send larger ones, up to math.MaxInt64; a
// walk that computes lo+size or counts n++ past the end of such a range
// overflows, and either never ends or goes negative. Chunks never computes
// a number beyond the range it walks.
package numrange

import (
	"context"
	"fmt"
	"iter"
)

// Chunks calls fn with the ranges lo-hi, in order, of size numbers each
// but the last, which ends at last, that together cover first to last.
// It calls nothing when last < first. It checks ctx before each range
// and returns ctx.Err() once ctx is done; an error from fn stops it and
// is returned as it is. Chunks panics when size is not positive, a
// programming error.
func Chunks(ctx context.Context, first, last, size int64, fn func(lo, hi int64) error) error {
	if size < 1 {
		panic(fmt.Sprintf("numrange: chunk size %d", size))
	}
	for lo := first; lo <= last; {
		if err := ctx.Err(); err != nil {
			return err
		}
		// last-lo as unsigned is exact for any lo <= last, even across
		// zero; hi = lo+size-1 only when that stays within last.
		hi := last
		if uint64(last)-uint64(lo) >= uint64(size) {
			hi = lo + size - 1
		}
		if err := fn(lo, hi); err != nil {
			return err
		}
		if hi == last {
			return nil
		}
		lo = hi + 1
	}
	return nil
}

// Numbers yields each number from lo to hi in order, hi included,
// without counting past hi (a loop "n <= hi; n++" never ends when hi is
// math.MaxInt64). It yields nothing when hi < lo.
func Numbers(lo, hi int64) iter.Seq[int64] {
	return func(yield func(int64) bool) {
		if hi < lo {
			return
		}
		for n := lo; ; n++ {
			if !yield(n) || n == hi {
				return
			}
		}
	}
}
