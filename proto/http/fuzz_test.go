package http

import (
	"strconv"
	"testing"
)

// FuzzContentRange: the Content-Range parser (RFC 9110 section 14.4) never
// panics, and what it accepts is well-formed.
func FuzzContentRange(f *testing.F) {
	for _, s := range []string{
		"bytes 0-9/10", "bytes 4-9/*", "bytes */10", "bytes 4/10", "bytes -1-2/3",
		"bytes 9223372036854775807-1/2", "bytes 1-2/99999999999999999999", "", "bytes ", "bytes 1-/",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		first, total, ok := contentRange(s)
		if !ok {
			if first != 0 || total != 0 {
				t.Errorf("contentRange(%q) = %d, %d, false; want zeros", s, first, total)
			}
			return
		}
		if total < -1 {
			t.Errorf("contentRange(%q) total = %d", s, total)
		}
		// The first byte position is the decimal number after "bytes ".
		want := strconv.FormatInt(first, 10)
		if len(s) < 6+len(want) {
			t.Errorf("contentRange(%q) = first %d, longer than the input", s, first)
		}
	})
}
