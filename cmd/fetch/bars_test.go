package main

import (
	"strings"
	"testing"
	"time"

	"github.com/mattn/go-runewidth"
	"github.com/vbauerster/mpb/v8/decor"
)

func TestHumanBytes(t *testing.T) {
	tests := []struct {
		n    int64
		want string
	}{
		{0, "0 B"},
		{4, "4 B"},
		{1023, "1023 B"},
		{1024, "1.0 KiB"},
		{4096, "4.0 KiB"},
		{1536 << 10, "1.5 MiB"},
		{5 << 30, "5.0 GiB"},
		{3 << 40, "3.0 TiB"},
		{2048 << 40, "2048.0 TiB"},
	}
	for _, tt := range tests {
		if got := humanBytes(tt.n); got != tt.want {
			t.Errorf("humanBytes(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

func TestCutName(t *testing.T) {
	tests := []struct {
		name string
		cols int
		want string
	}{
		{"pub/a.txt", 20, "pub/a.txt"},
		{"pub/a.txt", 9, "pub/a.txt"},
		{"pub/linux/kernel/v6.x/linux-6.1.tar.xz", 20, "pub/lin…x-6.1.tar.xz"},
		{"pub/linux/kernel/v6.x/linux-6.1.tar.xz", 8, "pub…r.xz"},
		{"ab", 1, "a"},
		{"日本語のファイル名.txt", 12, "日本…名.txt"},
		{"bad\x1b[2Jname", 40, "bad?[2Jname"}, // control characters shown as "?"
	}
	for _, tt := range tests {
		got := cutName(tt.name, tt.cols)
		if got != tt.want {
			t.Errorf("cutName(%q, %d) = %q, want %q", tt.name, tt.cols, got, tt.want)
		}
		if w := runewidth.StringWidth(got); w > tt.cols {
			t.Errorf("cutName(%q, %d) is %d columns wide", tt.name, tt.cols, w)
		}
	}
}

// A file's line fits the terminal: name, bar and counters, for a fake
// terminal of each width; the name is never cut below 8 columns.
func TestFileLineFits(t *testing.T) {
	long := "pub/" + strings.Repeat("very-long-directory/", 8) + "file.iso"
	for _, cols := range []int{40, 80, 120, 200} {
		n := nameCols(cols)
		name := cutName(long, n)
		bar := min(barCols, max(0, cols-n-counterCols-4)) // mpb narrows the bar to fit
		line := padRight(name, n) + " " + strings.Repeat("=", bar) + " " + fileCounters(decor.Statistics{Current: 1000 << 20, Total: 1023 << 20})
		if w := runewidth.StringWidth(line); w > max(cols, 8+counterCols+4) {
			t.Errorf("width %d: the line is %d columns: %q", cols, w, line)
		}
		if n >= 16 && !strings.HasSuffix(name, "file.iso") {
			t.Errorf("width %d: the file name is lost: %q", cols, name)
		}
	}
	for cols, want := range map[int]int{20: 8, 60: 13, 80: 23, 120: 40, 300: 40} {
		if n := nameCols(cols); n != want {
			t.Errorf("nameCols(%d) = %d, want %d", cols, n, want)
		}
	}
}

func TestFileCounters(t *testing.T) {
	tests := []struct {
		s    decor.Statistics
		want string
	}{
		{decor.Statistics{Current: 4, Total: 4, Completed: true}, "4 B / 4 B  100 %"},
		{decor.Statistics{Current: 512 << 10, Total: 1 << 20}, "512.0 KiB / 1.0 MiB   50 %"},
		{decor.Statistics{Current: 1 << 20, Total: 1 << 20}, "1.0 MiB / 1.0 MiB   99 %"},  // not complete yet
		{decor.Statistics{Current: 3 << 20}, "3.0 MiB"},                                   // size unknown
		{decor.Statistics{Current: 3 << 20, Completed: true}, "3.0 MiB / 3.0 MiB  100 %"}, // unknown, then done
	}
	for _, tt := range tests {
		if got := fileCounters(tt.s); got != tt.want {
			t.Errorf("fileCounters(%+v) = %q, want %q", tt.s, got, tt.want)
		}
	}
}

func TestOverallText(t *testing.T) {
	tests := []struct {
		o    overall
		want string
	}{
		{overall{files: 3, bytes: 1 << 20, known: 4 << 20, elapsed: time.Second},
			"3 files  1.0 MiB / 4.0 MiB   25 %  1.0 MiB/s  ETA 3s"},
		{overall{files: 0, bytes: 0, known: 0, elapsed: 0}, "0 files  0 B  0 B/s"},
		{overall{files: 40, bytes: 4 << 20, known: 4 << 20, elapsed: 2 * time.Second, done: true},
			"40 files  4.0 MiB  100 %  2.0 MiB/s  done"},
		{overall{files: 1, bytes: 1 << 20, known: 121 << 20, elapsed: time.Second},
			"1 files  1.0 MiB / 121.0 MiB    0 %  1.0 MiB/s  ETA 2m00s"},
	}
	for _, tt := range tests {
		if got := overallText(tt.o); got != tt.want {
			t.Errorf("overallText(%+v) =\n%q, want\n%q", tt.o, got, tt.want)
		}
	}
}

func TestETAText(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"},
		{7400 * time.Millisecond, "7s"},
		{125 * time.Second, "2m05s"},
		{3720 * time.Second, "1h02m"},
	}
	for _, tt := range tests {
		if got := etaText(tt.d); got != tt.want {
			t.Errorf("etaText(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}
