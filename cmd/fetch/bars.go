package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/mattn/go-runewidth"
	"github.com/vbauerster/mpb/v8/decor"
	"golang.org/x/term"

	"github.com/rfc1738/fetch/internal/termtext"
)

// The text of the progress bars, apart from the bar itself (mpb draws
// that): sizes in B, KiB, MiB, GiB; a file's path cut to the width of
// the terminal; a percentage that is 100 once the transfer is complete.

// barCols is the width of the bar itself, in columns.
const barCols = 30

// termCols is the width of the terminal w is, or 80 when w is not one
// whose width can be asked. On a terminal the bars follow its width as
// it changes; this is for other writers (a test's buffer).
func termCols(w io.Writer) int {
	if f, ok := w.(*os.File); ok {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 0 {
			return cols
		}
	}
	return 80
}

// humanBytes is n bytes for the bars: "512 B", "4.0 KiB", "1.5 MiB".
func humanBytes(n int64) string { return scaledBytes(n, "B", "TiB") }

// byteCount is n bytes for a report line: "512 bytes", "4.0 KiB", up to
// GiB.
func byteCount(n int64) string { return scaledBytes(n, "bytes", "GiB") }

// scaledBytes is n with unit below 1 KiB, else in the largest of KiB,
// MiB, GiB and TiB that it reaches, top at most, to one decimal.
func scaledBytes(n int64, unit, top string) string {
	if n < 1024 {
		return fmt.Sprintf("%d %s", n, unit)
	}
	v := float64(n) / 1024
	for _, u := range []string{"KiB", "MiB", "GiB", "TiB"} {
		if v < 1024 || u == top {
			return fmt.Sprintf("%.1f %s", v, u)
		}
		v /= 1024
	}
	panic("unreachable")
}

// cutName fits name into cols columns: a name too long loses its middle,
// replaced by "…", so that the start of the path and the file name stay.
func cutName(name string, cols int) string {
	name = termtext.Listing(name)
	if runewidth.StringWidth(name) <= cols {
		return name
	}
	if cols < 2 {
		return runewidth.Truncate(name, cols, "")
	}
	tail := (cols - 1) * 2 / 3 // the file name matters most
	head := cols - 1 - tail
	r := []rune(name)
	end := ""
	for i := len(r) - 1; i >= 0 && runewidth.StringWidth(string(r[i:])) <= tail; i-- {
		end = string(r[i:])
	}
	return runewidth.Truncate(name, head, "") + "…" + end
}

// counterCols is the width of fileCounters' text at most (sizes up to
// "1023.9 MiB").
const counterCols = len("1023.9 MiB / 1023.9 MiB  100 %")

// fileCounters is the text beside a file's bar: the bytes so far, of how
// many when known, and the percentage, 100 once the transfer completed.
func fileCounters(s decor.Statistics) string {
	if s.Total <= 0 && !s.Completed {
		return humanBytes(s.Current)
	}
	pct := 100
	if !s.Completed {
		pct = int(min(99, s.Current*100/max(s.Total, 1)))
	}
	return fmt.Sprintf("%s / %s  %3d %%", humanBytes(s.Current), humanBytes(max(s.Total, s.Current)), pct)
}

// nameCols is the width of a file's name on a terminal cols wide: half
// of what its counters leave, the other half for the bar (which mpb
// narrows to fit), between 8 and 40 columns.
func nameCols(cols int) int {
	return min(40, max(8, (cols-counterCols-4)/2))
}

// overall is the state of a mirror run for its overall bar.
type overall struct {
	files   int64         // files transferred
	bytes   int64         // bytes received
	known   int64         // bytes of the files begun, as far as known
	elapsed time.Duration // since the run began
	done    bool          // the run ended
}

// overallText is the overall bar's text: files and bytes done (of the
// bytes known to be coming), the share done, 100 % once the run ended,
// the mean rate, and the time left for the bytes known.
func overallText(o overall) string {
	rate := float64(o.bytes) / max(o.elapsed.Seconds(), 1e-3)
	s := fmt.Sprintf("%d files  %s", o.files, humanBytes(o.bytes))
	switch {
	case o.done:
		return s + fmt.Sprintf("  100 %%  %s/s  done", humanBytes(int64(rate)))
	case o.known > o.bytes:
		s += fmt.Sprintf(" / %s  %3d %%", humanBytes(o.known), min(99, o.bytes*100/o.known))
	}
	s += fmt.Sprintf("  %s/s", humanBytes(int64(rate)))
	if o.known > o.bytes && o.bytes > 0 {
		s += "  ETA " + etaText(time.Duration(float64(o.known-o.bytes)/rate*float64(time.Second)))
	}
	return s
}

// etaText is a time left, to the second: "7s", "2m05s", "1h02m".
func etaText(d time.Duration) string {
	d = d.Round(time.Second)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

// padRight pads s with spaces to cols columns.
func padRight(s string, cols int) string {
	if w := runewidth.StringWidth(s); w < cols {
		return s + strings.Repeat(" ", cols-w)
	}
	return s
}
