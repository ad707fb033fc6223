package mbox

import (
	"bytes"
	"testing"
)

// The mboxrd rules: a line matching ">*From " gets one more ">" when
// written, and a line matching ">+From " loses one when read (the
// description at https://www.loc.gov/preservation/digital/formats/fdd/fdd000385.shtml
// and RFC 4155 appendix A).
var quoteTests = []struct {
	name, in, want string
}{
	{"plain text is untouched", "a\nb\n", "a\nb\n"},
	{"From at line start", "From me\n", ">From me\n"},
	{"already quoted once", ">From me\n", ">>From me\n"},
	{"quoted many times", ">>>From x\n", ">>>>From x\n"},
	{"From without the space", "Fromage\n", "Fromage\n"},
	{"From inside a line", "x From y\n", "x From y\n"},
	{"> not followed by From", ">> quoted\n", ">> quoted\n"},
	{"lowercase from", "from me\n", "from me\n"},
	{"last line without LF", "a\nFrom b", "a\n>From b"},
	{"CRLF line ends kept", "From a\r\nb\r\n", ">From a\r\nb\r\n"},
	{"empty", "", ""},
	{"space before From", " From x\n", " From x\n"},
}

func TestQuote(t *testing.T) {
	for _, tt := range quoteTests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(Quote([]byte(tt.in))); got != tt.want {
				t.Errorf("Quote(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if got := string(Unquote([]byte(tt.want))); got != tt.in {
				t.Errorf("Unquote(%q) = %q, want %q", tt.want, got, tt.in)
			}
		})
	}
}

// RFC 4155 section 2: the separator is "From ", the sender's address and
// a timestamp in the asctime format of C (time.ANSIC), UTC.
func TestSeparator(t *testing.T) {
	for _, tt := range []struct {
		name string
		h    map[string]string
		want string
	}{
		{"address and date", map[string]string{"From": "Poster <p@x.invalid>", "Date": "Thu, 01 Mar 2001 13:17:00 +0100"}, "From p@x.invalid Thu Mar  1 12:17:00 2001"},
		{"bare address", map[string]string{"From": "p@x.invalid", "Date": "Sat, 03 Feb 2001 04:05:06 +0000"}, "From p@x.invalid Sat Feb  3 04:05:06 2001"},
		{"no From, bad Date", map[string]string{"Date": "yesterday"}, "From MAILER-DAEMON Thu Jan  1 00:00:00 1970"},
		{"From that does not parse", map[string]string{"From": "<<>>"}, "From MAILER-DAEMON Thu Jan  1 00:00:00 1970"},
	} {
		if got := Separator(tt.h); got != tt.want {
			t.Errorf("%s: Separator(%v) = %q, want %q", tt.name, tt.h, got, tt.want)
		}
	}
}

func TestHeader(t *testing.T) {
	msg := "Subject: s\nfrom: A\n <a@x>\nDate: d\nFrom: second\n\nFrom: body\n"
	h := Header([]byte(msg))
	if h["From"] != "A <a@x>" || h["Date"] != "d" || len(h) != 2 {
		t.Errorf("Header = %q", h)
	}
}

func TestAppend(t *testing.T) {
	var b []byte
	b = Append(b, []byte("From: a@x\nDate: Sat, 03 Feb 2001 04:05:06 +0000\n\nFrom here\n"))
	b = Append(b, []byte("From: b@x\n\nno final line end"))
	want := "From a@x Sat Feb  3 04:05:06 2001\nFrom: a@x\nDate: Sat, 03 Feb 2001 04:05:06 +0000\n\n>From here\n\n" +
		"From b@x Thu Jan  1 00:00:00 1970\nFrom: b@x\n\nno final line end\n\n"
	if string(b) != want {
		t.Errorf("Append = %q\nwant %q", b, want)
	}
}

// FuzzQuote: Unquote(Quote(m)) == m for any bytes, and a quoted message
// has no line starting "From " (the separator cannot be forged).
func FuzzQuote(f *testing.F) {
	for _, tt := range quoteTests {
		f.Add([]byte(tt.in))
	}
	f.Add([]byte("\nFrom \n>From \n>>\n"))
	f.Fuzz(func(t *testing.T, msg []byte) {
		q := Quote(msg)
		if got := Unquote(q); !bytes.Equal(got, msg) {
			t.Fatalf("Unquote(Quote(%q)) = %q", msg, got)
		}
		if bytes.HasPrefix(q, []byte("From ")) || bytes.Contains(q, []byte("\nFrom ")) {
			t.Fatalf("Quote(%q) = %q has a From line", msg, q)
		}
	})
}
