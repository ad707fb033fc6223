package ftp

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/proto"
)

// streamed reads raw as a stream does (Driver.List), given to the capture
// in pieces of step bytes as a data connection may give it, and returns
// the entries handed over and what the listing held.
func streamed(t *testing.T, raw, format, syst string, lean bool, step int) ([]proto.Entry, listed) {
	t.Helper()
	var got []proto.Entry
	s := newStream(func(e proto.Entry) error { got = append(got, e); return nil }, "")
	s.begin(format, syst, lean, clock(2020, 1, 10, 0, 0, 0))
	c := &capture{max: int64(len(raw)) + 1, sink: s.line}
	for i := 0; i < len(raw); i += step {
		if err := c.write([]byte(raw[i:min(i+step, len(raw))])); err != nil {
			t.Fatal(err)
		}
	}
	l, err := s.finish(c.text().String())
	if err != nil {
		t.Fatal(err)
	}
	return got, l
}

// entryKeys are the entries as sortable text.
func entryKeys(es []proto.Entry) []string {
	keys := make([]string, len(es))
	for i, e := range es {
		keys[i] = fmt.Sprintf("%q %s %d %d %q %v", e.Name, e.Type, e.Size, e.ModTime.UnixNano(), e.Target, e.Extra)
	}
	slices.Sort(keys)
	return keys
}

// checkStreamed checks that a stream reads raw as parseChunks reads it
// whole: the same entries (those of lines held for the end of the
// listing come last, so they are compared in any order), the same
// unparsed lines in order, the same word on "." and "..".
func checkStreamed(t *testing.T, raw, format, syst string, step int) {
	t.Helper()
	for _, lean := range []bool{false, true} {
		p := newLineParser(format, syst, clock(2020, 1, 10, 0, 0, 0))
		p.lean = lean && format != formatNLST
		want, wantUnparsed, wantSelf := p.parseChunks(text{raw}, format)
		got, l := streamed(t, raw, format, syst, lean, step)
		if !slices.Equal(entryKeys(got), entryKeys(want)) || !slices.Equal(l.unparsed, wantUnparsed) || l.self != wantSelf || l.n != len(want) {
			t.Errorf("%s, lean %v, pieces of %d, %q:\nstreamed %q, unparsed %q, self %v, n %d\nwhole    %q, unparsed %q, self %v",
				format, lean, step, raw, entryKeys(got), l.unparsed, l.self, l.n, entryKeys(want), wantUnparsed, wantSelf)
		}
	}
}

// streamEdges are listings whose held lines (read at the end) the lines
// read on their own decide.
var streamEdges = []string{
	// ls's "total" in German, left out when a line after it is read as
	// ls, here one read on its own.
	"insgesamt 4\r\n-rw-r--r-- 1 u g 9 Jan  5 10:00 a\r\n",
	// ls --time-style=iso: the recent file's time of day shows the
	// names' column, so the old file's second space is padding.
	"-rw-r--r-- 1 u g 9 01-05 10:00 b\r\n-rw-r--r-- 1 u g 9 2019-01-05  a\r\n",
	// A VMS name line is joined only with the line right after it,
	// which here is read on its own.
	"LONGNAME.TXT;1\r\n-rw-r--r-- 1 u g 9 Jan  5 10:00 x\r\n  2/4  4-JAN-2001 12:34:56 [SYS] (RWED,RWED,RE,RE)\r\n",
	"LONGNAME.TXT;1\r\n  2/4  4-JAN-2001 12:34:56 [SYS] (RWED,RWED,RE,RE)\r\n-rw-r--r-- 1 u g 9 Jan  5 10:00 x\r\n",
}

// TestStreamReadsAsWhole checks the stream against the whole listing's
// parse (RFC 959 section 4.1.3 leaves LIST's layout to the server; RFC
// 3659 section 7 gives MLSD's) on the table tests' lines, the whole
// listings, and ls -l in 44 languages, where the whole listing decides
// the reading of some lines (months.go): their entries must be the same
// whichever way the listing is read.
func TestStreamReadsAsWhole(t *testing.T) {
	for _, raw := range streamEdges {
		for _, step := range []int{1, 4096} {
			checkStreamed(t, raw, formatLIST, "UNIX Type: L8", step)
			checkStreamed(t, raw, formatLIST, "VMS", step)
		}
	}
	for _, tt := range wholeListings {
		for _, step := range []int{1, 7, 4096} {
			checkStreamed(t, tt.raw, formatLIST, tt.syst, step)
		}
	}
	var lines []string
	for _, tt := range unixTests {
		lines = append(lines, tt.line)
	}
	for _, tt := range dosTests {
		lines = append(lines, tt.line)
	}
	for _, tests := range [][]lineTest{eplfTests, vmsTests, netwareTests, os2Tests, os400Tests} {
		for _, tt := range tests {
			lines = append(lines, tt.line)
		}
	}
	checkStreamed(t, strings.Join(lines, "\r\n"), formatLIST, "", 13)
	var mlsd []string
	for _, tt := range mlsdTests {
		mlsd = append(mlsd, tt.line)
	}
	checkStreamed(t, strings.Join(mlsd, "\r\n")+"\r\n", formatMLSD, "", 5)
	checkStreamed(t, "a\r\n.\r\n..\r\nb c\nd", formatNLST, "", 2)
	files, err := filepath.Glob(filepath.Join("testdata", "ls-locales", "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no ls-locales: %v", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		checkStreamed(t, string(b), formatLIST, "UNIX Type: L8", 100)
		// An English line first: read on its own, before the lines
		// the whole listing decides.
		checkStreamed(t, "-rw-r--r-- 1 u g 9 Jan  5 10:00 english\r\n"+string(b), formatLIST, "UNIX Type: L8", 100)
	}
}

// TestStreamHandsOverAsRead checks that a line read on its own is handed
// over as soon as its line end arrives, before the rest of the listing,
// and that lines that need the whole listing (German dates, where the
// space after the year is padding when all such lines have it) are held
// for its end.
func TestStreamHandsOverAsRead(t *testing.T) {
	var got []string
	s := newStream(func(e proto.Entry) error { got = append(got, e.Name); return nil }, "")
	s.begin(formatLIST, "UNIX Type: L8", true, clock(2020, 1, 10, 0, 0, 0))
	c := &capture{max: 1 << 20, sink: s.line}
	write := func(b string) {
		if err := c.write([]byte(b)); err != nil {
			t.Fatal(err)
		}
	}
	write("-rw-r--r-- 1 u g 9 Jan  5 10:00 a\r\n-rw-r--r-- 1 u g 9 Jan  5 10:00 b")
	if !slices.Equal(got, []string{"a"}) {
		t.Fatalf("after one line and a half: %q, want [a]", got)
	}
	write("\r\n-rw-r--r-- 1 root root 1  5. Jan 2019  c\r\n-rw-r--r-- 1 root root 1  5. Feb 2019  d\r\n")
	if !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("after German lines: %q, want [a b]", got)
	}
	l, err := s.finish(c.text().String())
	if err != nil || !slices.Equal(got, []string{"a", "b", "c", "d"}) || l.n != 4 || l.unparsed != nil {
		t.Errorf("at the end: %q, %+v, %v; want [a b c d]", got, l, err)
	}
}

func FuzzStreamReadsAsWhole(f *testing.F) {
	for _, tt := range wholeListings {
		f.Add(tt.raw, tt.syst, uint8(3), false)
	}
	for _, raw := range streamEdges {
		f.Add(raw, "", uint8(1), false)
	}
	f.Add("insgesamt 4\r\n-rw-r--r-- 1 u g 9 Jan  5 10:00 a\r\n", "", uint8(1), false)
	f.Add("LONGNAME.TXT;1\r\n  2/4  4-JAN-2001 12:34:56 [SYS] (RWED,RWED,RE,RE)\r\n", "VMS", uint8(9), false)
	f.Add("type=file;size=5;modify=20200102030405; a\r\ntype=cdir; .\r\n", "", uint8(2), true)
	f.Fuzz(func(t *testing.T, raw, syst string, step uint8, mlsd bool) {
		format := formatLIST
		if mlsd {
			format = formatMLSD
		}
		checkStreamed(t, raw, format, syst, int(step)+1)
	})
}
