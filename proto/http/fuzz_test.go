package http

import (
	"regexp"
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
	// The grammar of RFC 9110 section 14.4 (range-resp), with the section's
	// validity rule: first-pos <= last-pos < complete-length.
	re := regexp.MustCompile(`^bytes ([0-9]+)-([0-9]+)/([0-9]+|\*)$`)
	f.Fuzz(func(t *testing.T, s string) {
		first, total, ok := contentRange(s)
		if !ok {
			if first != 0 || total != 0 {
				t.Errorf("contentRange(%q) = %d, %d, false; want zeros", s, first, total)
			}
		}
		wantFirst, wantTotal, valid := int64(0), int64(-1), false
		if m := re.FindStringSubmatch(s); m != nil {
			var last int64
			var err1, err2, err3 error
			wantFirst, err1 = strconv.ParseInt(m[1], 10, 64)
			last, err2 = strconv.ParseInt(m[2], 10, 64)
			if m[3] != "*" {
				wantTotal, err3 = strconv.ParseInt(m[3], 10, 64)
			}
			valid = err1 == nil && err2 == nil && err3 == nil && wantFirst <= last && (wantTotal == -1 || last < wantTotal)
		}
		if ok != valid || ok && (first != wantFirst || total != wantTotal) {
			t.Errorf("contentRange(%q) = %d, %d, %v; the grammar gives %d, %d, %v", s, first, total, ok, wantFirst, wantTotal, valid)
		}
	})
}
