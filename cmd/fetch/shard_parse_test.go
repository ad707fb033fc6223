package main

import (
	"strconv"
	"strings"
	"testing"
)

// --shard K/N: K and N are unsigned decimal numbers, 0 <= K < N <= 100000
// (docs/mirror.md, "A mirror split across machines").
func TestParseShard(t *testing.T) {
	for _, tc := range []struct {
		in   string
		k, n int
		ok   bool
	}{
		{"", 0, 0, true}, // no --shard
		{"0/1", 0, 1, true},
		{"1/2", 1, 2, true},
		{"01/2", 1, 2, true},
		{"99999/100000", 99999, 100000, true},
		{"2/2", 0, 0, false},
		{"0/0", 0, 0, false},
		{"0/100001", 0, 0, false},
		{"+1/2", 0, 0, false},
		{"1/+2", 0, 0, false},
		{"-0/2", 0, 0, false},
		{" 1/2", 0, 0, false},
		{"1/2/3", 0, 0, false},
		{"1", 0, 0, false},
		{"/2", 0, 0, false},
	} {
		k, n, err := parseShard(tc.in)
		if (err == nil) != tc.ok || k != tc.k || n != tc.n {
			t.Errorf("parseShard(%q) = %d, %d, %v; want %d, %d, ok %v", tc.in, k, n, err, tc.k, tc.n, tc.ok)
		}
	}
}

// An accepted K/N is digits, one "/" and digits, naming the numbers
// returned, within the bounds.
func FuzzParseShard(f *testing.F) {
	for _, s := range []string{"0/1", "1/2", "+1/2", "-0/2", "7/3", "0/100000", "1/2/3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k, n, err := parseShard(s)
		if err != nil || s == "" {
			return
		}
		a, b, _ := strings.Cut(s, "/")
		if strings.Trim(a, "0123456789") != "" || strings.Trim(b, "0123456789") != "" {
			t.Fatalf("parseShard(%q) accepted a part that is not digits", s)
		}
		ka, _ := strconv.Atoi(a)
		nb, _ := strconv.Atoi(b)
		if ka != k || nb != n || k < 0 || k >= n || n > 100000 {
			t.Fatalf("parseShard(%q) = %d, %d", s, k, n)
		}
	})
}
