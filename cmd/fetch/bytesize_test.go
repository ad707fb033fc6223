package main

import "testing"

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
		if err == nil && n < 0 {
			t.Fatalf("parseByteSize(%q) = %d", s, n)
		}
	})
}
