package warc

import (
	"strings"
	"testing"
	"time"
)

// CDX field "b" (the IIPC CDX format) is the capture's date as 14 digits,
// YYYYMMDDhhmmss in UTC (the WARC-Date of ISO 28500 written in digits); a
// query may give fewer, down to the year, for the start of that period.
var timestampTests = []struct {
	in   string
	want time.Time
	ok   bool
}{
	{"20240310120005", time.Date(2024, 3, 10, 12, 0, 5, 0, time.UTC), true},
	{"2024", time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), true},
	{"20240", time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), true},  // month 0x: its first, January
	{"20241", time.Date(2024, 11, 1, 0, 0, 0, 0, time.UTC), true}, // month 1x: its first, November
	{"202403", time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC), true},
	{"2024031012", time.Date(2024, 3, 10, 12, 0, 0, 0, time.UTC), true},
	{"202", time.Time{}, false},             // fewer than 4 digits
	{"202403101200051", time.Time{}, false}, // more than 14
	{"20241310", time.Time{}, false},        // month 13
	{"20240230", time.Time{}, false},        // February 30
	{"2024-03-10", time.Time{}, false},      // digits only
	{"+2024", time.Time{}, false},
	{"", time.Time{}, false},
}

func TestParseTimestamp(t *testing.T) {
	for _, tt := range timestampTests {
		got, err := parseTimestamp(tt.in)
		if (err == nil) != tt.ok || !got.Equal(tt.want) {
			t.Errorf("parseTimestamp(%q) = %v, %v; want %v, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

// FuzzParseTimestamp: parseTimestamp accepts 4 to 14 digits that begin a
// real time, and the time it gives, written in the CDX form, begins with
// those digits (the rest the earliest that fits); it agrees with
// time.Parse on 14 digits.
func FuzzParseTimestamp(f *testing.F) {
	for _, tt := range timestampTests {
		f.Add(tt.in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, err := parseTimestamp(in)
		digits := len(in) >= 4 && len(in) <= 14 && strings.Trim(in, "0123456789") == ""
		if err != nil {
			if digits && len(in) == 14 {
				if _, perr := time.Parse(cdxTimeFormat, in); perr == nil {
					t.Fatalf("parseTimestamp(%q): %v; time.Parse reads it", in, err)
				}
			}
			return
		}
		back := got.Format(cdxTimeFormat)
		if !digits || got.Location() != time.UTC || !strings.HasPrefix(back, in) {
			t.Fatalf("parseTimestamp(%q) = %v, written back %q", in, got, back)
		}
		if ref, err := time.Parse(cdxTimeFormat, in); len(in) == 14 && (err != nil || !ref.Equal(got)) {
			t.Fatalf("parseTimestamp(%q) = %v; time.Parse %v, %v", in, got, ref, err)
		}
	})
}

// FuzzParseSHA1: parseSHA1 reads what appendSHA1 writes, and what it
// accepts, written back by appendSHA1, is its input ("sha1:" and 32
// upper-case base32 letters, RFC 4648 section 6), the prefix in lower case.
func FuzzParseSHA1(f *testing.F) {
	f.Add("sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5", []byte("abc"))
	f.Add("SHA1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5", []byte{})
	f.Add("VGMT4NSHA2AWVOR6EVYXQUGCNSONBW\r\n", []byte{0xff})
	f.Fuzz(func(t *testing.T, in string, raw []byte) {
		if sum, ok := parseSHA1(in); ok {
			want := "sha1:" + in
			if len(in) > 5 && strings.EqualFold(in[:5], "sha1:") {
				want = "sha1:" + in[5:]
			}
			if back := string(appendSHA1(nil, sum)); back != want {
				t.Fatalf("parseSHA1(%q) = %x, written back %q", in, sum, back)
			}
		}
		var sum sha1Sum
		copy(sum[:], raw)
		if got, ok := parseSHA1(string(appendSHA1(nil, sum))); !ok || got != sum {
			t.Fatalf("parseSHA1(appendSHA1(%x)) = %x, %v", sum, got, ok)
		}
	})
}
