package mirror

import (
	"strconv"
	"testing"
)

// The articles of a news mirror are files group/dir/<number> (RFC 3977
// section 6.1.1: article numbers are decimal); ExportMbox writes them by
// directory, then by number, not by the digits' text.
var articleOrderTests = []struct {
	a, b string
	want int
}{
	{"comp/lang/go/9", "comp/lang/go/10", -1},
	{"comp/lang/go/10", "comp/lang/go/9", 1},
	{"comp/lang/go/10", "comp/lang/go/10", 0},
	{"comp/lang/go/10", "comp/lang/rust/9", -1}, // directory first
	{"a/10", "a/010", 1},                        // the same number: by text
	{"a/x", "a/1", -1},                          // not a number: 0
	{"1", "a/1", -1},                            // no directory
}

func TestCompareArticlePaths(t *testing.T) {
	for _, tt := range articleOrderTests {
		if got := compareArticlePaths(tt.a, tt.b); got != tt.want {
			t.Errorf("compareArticlePaths(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

// FuzzCompareArticlePaths: compareArticlePaths is a total order, as
// slices.SortFunc needs (0 only for equal paths, reversed when its
// arguments are, transitive), and orders two articles of one directory by
// number.
func FuzzCompareArticlePaths(f *testing.F) {
	for _, tt := range articleOrderTests {
		f.Add(tt.a, tt.b, "comp/lang/go/11", uint32(7))
	}
	f.Fuzz(func(t *testing.T, a, b, c string, n uint32) {
		sign := func(x int) int { return min(max(x, -1), 1) }
		ab, ba := compareArticlePaths(a, b), compareArticlePaths(b, a)
		if (ab == 0) != (a == b) || sign(ab) != -sign(ba) {
			t.Fatalf("compareArticlePaths(%q, %q) = %d, reversed %d", a, b, ab, ba)
		}
		bc, ac := compareArticlePaths(b, c), compareArticlePaths(a, c)
		if ab <= 0 && bc <= 0 && ac > 0 || ab >= 0 && bc >= 0 && ac < 0 {
			t.Fatalf("not transitive: %q, %q, %q: %d, %d, %d", a, b, c, ab, bc, ac)
		}
		lo, hi := c+"/"+strconv.FormatUint(uint64(n), 10), c+"/"+strconv.FormatUint(uint64(n)+1, 10)
		if compareArticlePaths(lo, hi) >= 0 {
			t.Fatalf("%q not before %q", lo, hi)
		}
	})
}
