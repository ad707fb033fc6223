package gopher

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"testing/iotest"
)

// textTests: RFC 1436 section 3.8 ("textfile ... Lastline" and lines
// beginning with a period "doubled"), and servers that just close.
var textTests = []struct {
	name string
	in   string
	want string
}{
	{"terminated CRLF", "hello\r\nworld\r\n.\r\n", "hello\r\nworld\r\n"},
	{"terminated LF", "hello\nworld\n.\n", "hello\nworld\n"},
	{"closed without dot", "hello\r\nworld\r\n", "hello\r\nworld\r\n"},
	{"closed mid line", "hello\r\nwor", "hello\r\nwor"},
	{"dot at end of stream", "hello\r\n.", "hello\r\n"},
	{"dot CR at end of stream", "hello\r\n.\r", "hello\r\n"},
	{"unstuffed", "..hidden\r\n...three\r\n.\r\n", ".hidden\r\n..three\r\n"},
	// No terminator: a server that sends files as they are (pygopherd,
	// Gophernicus), whose ".." lines are data ("..." at the start of a
	// line of prose, "../up" in a README). They were unstuffed.
	{"no terminator: .. kept", "a\n..b\n", "a\n..b\n"},
	{"no terminator: ... kept", "...and then\r\n../up\r\nend\r\n", "...and then\r\n../up\r\nend\r\n"},
	// A line that a stuffing server would have doubled: the server does
	// not stuff; a terminator at the end is still one.
	{"single-dot line, then terminator", "..a\n.b\n..c\n.\n", "..a\n.b\n..c\n"},
	{"terminator after stuffed lines", "x\r\n..a\r\n...b\r\ny\r\n.\r\n", "x\r\n.a\r\n..b\r\ny\r\n"},
	{"only stuffed lines", "..\r\n.\r\n", ".\r\n"},
	{"stuffed, cut without terminator", "..a\r\n..b", "..a\r\n..b"},
	// A "." line with data after it: a server that sends files raw
	// (pygopherd); the rest, ".." included, is data.
	{"dot line followed by data", "a\r\n.\r\n..after\r\n", "a\r\n.\r\n..after\r\n"},
	{"raw text ending in a dot line", "a\n.\n..b\n.\n", "a\n.\n..b\n"},
	{"dot followed by text kept", ".profile\r\n", ".profile\r\n"},
	{"dot not at line start", "a.\r\n b .\r\n", "a.\r\n b .\r\n"},
	{"empty", "", ""},
	{"only terminator", ".\r\n", ""},
	{"dot CR in middle is data", ".\rx\r\n", ".\rx\r\n"},
	{"binary bytes pass", "\x00\xff\r\n..\x01\r\n.\r\n", "\x00\xff\r\n.\x01\r\n"},
}

func TestTextReader(t *testing.T) {
	for _, tt := range textTests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := io.ReadAll(NewTextReader(strings.NewReader(tt.in)))
			if err != nil || string(got) != tt.want {
				t.Errorf("NewTextReader(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
			// The same one byte at a time on both sides.
			r := iotest.OneByteReader(NewTextReader(iotest.OneByteReader(strings.NewReader(tt.in))))
			got, err = io.ReadAll(r)
			if err != nil || string(got) != tt.want {
				t.Errorf("byte by byte: NewTextReader(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

// TestTextReaderLongLines: lines longer than the reader's buffer are
// passed through in pieces; only a line's true start is inspected.
func TestTextReaderLongLines(t *testing.T) {
	long := strings.Repeat("x", 40) + "\n"
	// In a 16-byte buffer the chunk after the first 16 bytes starts with
	// ".." but is not the start of a line.
	mid := strings.Repeat("y", 16) + "..z\n"
	in := long + mid + "..w\n" + ".\n"
	want := long + mid + ".w\n"
	br := bufio.NewReaderSize(strings.NewReader(in), 16)
	got, err := io.ReadAll(NewTextReader(br))
	if err != nil || string(got) != want {
		t.Errorf("long lines: got %q, %v; want %q", got, err, want)
	}
}

// dotTests: Gopher+ data announced by "+-1" (gopherplus.txt section 2.3:
// "terminated by a period on a line by itself") ends at its first "."
// line, whatever follows; a binary keeps its "..". A stream that ends
// before that line was cut: the data before the end is returned, then
// io.ErrUnexpectedEOF. Such data, cut at the end of a line, was taken as
// whole: a mirror stored "line1\r\nline2\r\n" of a longer document, exit 0.
var dotTests = []struct {
	name    string
	in      string
	unstuff bool
	want    string
	cut     bool
}{
	{"binary keeps ..", "..a\r\nb\r\n.\r\nc", false, "..a\r\nb\r\n", false},
	{"text unstuffed, after dot ignored", "..a\r\n.\r\nafter\r\n", true, ".a\r\n", false},
	{"dot LF", "a\n.\n", true, "a\n", false},
	{"only the dot line", ".\r\n", true, "", false},
	{"cut at a line end", "line1\r\nline2\r\n", true, "line1\r\nline2\r\n", true},
	{"cut at a line end, binary", "line1\r\n", false, "line1\r\n", true},
	{"cut mid line", "line1\r\nli", true, "line1\r\nli", true},
	{"empty", "", true, "", true},
	// A "." the close leaves without its line end may be the first byte
	// of a stuffed "..x" line.
	{"dot without line end", "a\r\n.", true, "a\r\n.", true},
	{"dot CR without LF", "a\r\n.\r", true, "a\r\n.\r", true},
	{"stuffed line, cut", "..a\r\n..b", true, ".a\r\n.b", true},
}

func TestDotReaderStrict(t *testing.T) {
	for _, tt := range dotTests {
		t.Run(tt.name, func(t *testing.T) {
			for _, r := range []io.Reader{
				newDotReader(strings.NewReader(tt.in), tt.unstuff),
				iotest.OneByteReader(newDotReader(iotest.OneByteReader(strings.NewReader(tt.in)), tt.unstuff)),
			} {
				got, err := io.ReadAll(r)
				if string(got) != tt.want || errors.Is(err, io.ErrUnexpectedEOF) != tt.cut || !tt.cut && err != nil {
					t.Errorf("newDotReader(%q, %v) = %q, %v; want %q, cut %v", tt.in, tt.unstuff, got, err, tt.want, tt.cut)
				}
			}
		})
	}
}

// TestTextReaderDotThenSilence: a "." line after which the server neither
// sends nor closes ends the text when the wait fails (the idle timeout).
func TestTextReaderDotThenSilence(t *testing.T) {
	r := NewTextReader(io.MultiReader(strings.NewReader("a\r\n.\r\n"), iotest.ErrReader(os.ErrDeadlineExceeded)))
	got, err := io.ReadAll(r)
	if err != nil || string(got) != "a\r\n" {
		t.Errorf("got %q, %v; want \"a\\r\\n\", nil", got, err)
	}
}

// TestTextReaderStreams: the reader returns what has arrived without
// waiting for the rest.
func TestTextReaderStreams(t *testing.T) {
	pr, pw := io.Pipe()
	r := NewTextReader(pr)
	go pw.Write([]byte("first line\r\n"))
	b := make([]byte, 64)
	n, err := r.Read(b)
	if err != nil || string(b[:n]) != "first line\r\n" {
		t.Fatalf("Read = %q, %v", b[:n], err)
	}
	pw.CloseWithError(io.ErrUnexpectedEOF)
	if _, err := io.ReadAll(r); err != io.ErrUnexpectedEOF {
		t.Errorf("error after a lost connection = %v, want io.ErrUnexpectedEOF", err)
	}
}

// FuzzTextReader: no panic, never more bytes out than in, the same result
// whatever the read sizes.
func FuzzTextReader(f *testing.F) {
	for _, tt := range textTests {
		f.Add([]byte(tt.in))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		got, err := io.ReadAll(NewTextReader(bytes.NewReader(in)))
		if err != nil {
			t.Fatalf("error %v", err)
		}
		if len(got) > len(in) {
			t.Fatalf("%d bytes out of %d in", len(got), len(in))
		}
		got2, _ := io.ReadAll(NewTextReader(bufio.NewReaderSize(iotest.HalfReader(bytes.NewReader(in)), 16)))
		if !bytes.Equal(got, got2) {
			t.Fatalf("read sizes change the result: %q vs %q", got, got2)
		}
		if want := referenceText(in); !bytes.Equal(got, want) {
			t.Fatalf("%q: %q, the whole-text reading gives %q", in, got, want)
		}
	})
}

// referenceText reads a gopher text as a whole, as NewTextReader does
// line by line: a last line that is "." is the terminator; with it, and
// every other line that begins with "." beginning with "..", the server
// stuffed, and those lines lose one dot; otherwise the text is as sent.
func referenceText(in []byte) []byte {
	var lines [][]byte
	for b := in; len(b) > 0; {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			i = len(b) - 1
		}
		lines = append(lines, b[:i+1])
		b = b[i+1:]
	}
	if len(lines) == 0 {
		return nil
	}
	last := string(lines[len(lines)-1])
	if last != ".\r\n" && last != ".\n" && last != "." && last != ".\r" {
		return in
	}
	body := lines[:len(lines)-1]
	stuffed := true
	for _, l := range body {
		if l[0] == '.' && (len(l) < 2 || l[1] != '.') {
			stuffed = false
		}
	}
	var out []byte
	for _, l := range body {
		if stuffed && len(l) > 1 && l[0] == '.' && l[1] == '.' {
			l = l[1:]
		}
		out = append(out, l...)
	}
	return out
}

// FuzzDotReader: "+-1" data read in strict mode is what a whole-data
// reading gives, whatever the read sizes: the lines before the first "."
// line (unstuffed for a text), or, without that line, all the lines and
// io.ErrUnexpectedEOF.
func FuzzDotReader(f *testing.F) {
	for _, tt := range dotTests {
		f.Add([]byte(tt.in), tt.unstuff)
	}
	f.Fuzz(func(t *testing.T, in []byte, unstuff bool) {
		want, whole := referenceDot(in, unstuff)
		for _, r := range []io.Reader{
			newDotReader(bytes.NewReader(in), unstuff),
			newDotReader(bufio.NewReaderSize(iotest.HalfReader(bytes.NewReader(in)), 16), unstuff),
		} {
			got, err := io.ReadAll(r)
			if !bytes.Equal(got, want) || (err == nil) != whole || err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("newDotReader(%q, %v) = %q, %v; want %q, whole %v", in, unstuff, got, err, want, whole)
			}
		}
	})
}

// referenceDot reads "+-1" data as a whole, line by line.
func referenceDot(in []byte, unstuff bool) (data []byte, whole bool) {
	out := []byte{}
	for b := in; len(b) > 0; {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			i = len(b) - 1
		}
		line := b[:i+1]
		b = b[i+1:]
		if s := string(line); s == ".\r\n" || s == ".\n" {
			return out, true
		}
		if unstuff && len(line) > 1 && line[0] == '.' && line[1] == '.' {
			line = line[1:]
		}
		out = append(out, line...)
	}
	return out, false
}

func BenchmarkTextReader(b *testing.B) {
	in := bytes.Repeat([]byte("line 042: the quick brown fox jumps over the lazy dog\r\n..stuffed\r\n"), 1<<14)
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		n, err := io.Copy(io.Discard, NewTextReader(bytes.NewReader(in)))
		if err != nil || n == 0 {
			b.Fatal(n, err)
		}
	}
}

// TestTextReaderHeldLimit: past maxHeld the lines beginning with ".." go
// out as they came; a terminator at the end is then an error (it cannot
// be told whether their dots were doubled), while a text that shows the
// server does not stuff, or ends without a terminator, is whole.
func TestTextReaderHeldLimit(t *testing.T) {
	defer func(n int) { maxHeld = n }(maxHeld)
	maxHeld = 10
	for _, c := range []struct {
		in, want string
		err      error
	}{
		{"..a\n..b\n..c\n.\n", "..a\n..b\n..c\n", errUnsureStuffing},
		{"..a\n..b\n..c\n", "..a\n..b\n..c\n", nil},
		{"..a\n..b\n..c\n.d\n.\n", "..a\n..b\n..c\n.d\n", nil},
		{"..a\n.\n", ".a\n", nil}, // within the limit
	} {
		got, err := io.ReadAll(NewTextReader(strings.NewReader(c.in)))
		if string(got) != c.want || err != c.err {
			t.Errorf("%q: %q, %v; want %q, %v", c.in, got, err, c.want, c.err)
		}
	}
}

// TestTextReaderReleases: what is held since a ".." line goes out as soon
// as a line shows the server does not stuff, without waiting for the end.
func TestTextReaderReleases(t *testing.T) {
	pr, pw := io.Pipe()
	r := NewTextReader(pr)
	go pw.Write([]byte("..a\r\n..b\r\n.c\r\n"))
	got := make([]byte, 0, 64)
	for len(got) < len("..a\r\n..b\r\n.c\r\n") {
		b := make([]byte, 64)
		n, err := r.Read(b)
		if err != nil {
			t.Fatalf("Read after %q: %v", got, err)
		}
		got = append(got, b[:n]...)
	}
	if string(got) != "..a\r\n..b\r\n.c\r\n" {
		t.Errorf("got %q", got)
	}
	pw.Close()
}
