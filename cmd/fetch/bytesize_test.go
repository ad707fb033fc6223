package main

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

// TestParseByteSize: the sizes of --quota and --max-listing, with wget's
// suffixes (its manual, --quota: "k" kilobytes, "m" megabytes; 1024 each).
func TestParseByteSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true},
		{"100", 100, true},
		{"64k", 64 << 10, true},
		{"64K", 64 << 10, true},
		{"5m", 5 << 20, true},
		{"2G", 2 << 30, true},
		{"8589934591g", 8589934591 << 30, true},
		{"8589934592g", 0, false}, // over int64
		{"", 0, false},
		{"k", 0, false},
		{"-1", 0, false},
		{"+5", 0, false},
		{"-0", 0, false}, // a sign, as "-1" and "+5" have
		{"-0k", 0, false},
		{"1.5m", 0, false},
		{"1t", 0, false},
		{"1 k", 0, false},
	} {
		got, err := parseByteSize(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("parseByteSize(%q) = %d, %v; want %d, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func FuzzParseByteSize(f *testing.F) {
	for _, s := range []string{"0", "64k", "5M", "2g", "-1", "9223372036854775807"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := parseByteSize(s)
		// Accepted: digits, a suffix or none, and a value an int64 holds.
		num, shift := s, 0
		if i := len(s) - 1; i > 0 {
			if j := strings.IndexByte("kKmMgG", s[i]); j >= 0 {
				num, shift = s[:i], 10*(j/2+1)
			}
		}
		v, perr := strconv.ParseUint(num, 10, 64)
		fits := perr == nil && strings.Trim(num, "0123456789") == "" && v <= math.MaxInt64>>shift
		if (err == nil) != fits || fits && n != int64(v)<<shift {
			t.Fatalf("parseByteSize(%q) = %d, %v; want %d << %d, ok %v", s, n, err, v, shift, fits)
		}
	})
}
