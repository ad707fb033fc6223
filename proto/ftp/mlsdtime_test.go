package ftp

import (
	"strings"
	"testing"
	"time"
)

// RFC 3659 section 2.3: time-val = 14DIGIT [ "." 1*DIGIT ], YYYYMMDDHHMMSS
// in UTC; the fraction is of a second, of any precision.
var mlsdTimeTests = []struct {
	in   string
	want time.Time
	ok   bool
}{
	{"20240310120005", time.Date(2024, 3, 10, 12, 0, 5, 0, time.UTC), true},
	{"20240310120005.5", time.Date(2024, 3, 10, 12, 0, 5, 5e8, time.UTC), true},
	{"20240310120005.123", time.Date(2024, 3, 10, 12, 0, 5, 123e6, time.UTC), true},
	{"20240310120005.1234567891", time.Date(2024, 3, 10, 12, 0, 5, 123456789, time.UTC), true}, // beyond nanoseconds: cut
	{"20240310120005.", time.Time{}, false},                                                    // 1*DIGIT after "."
	{"2024031012000", time.Time{}, false},                                                      // 13 digits
	{"202403101200056", time.Time{}, false},                                                    // 15 digits
	{"20241310120005", time.Time{}, false},                                                     // month 13
	{"20240310120060", time.Time{}, false},                                                     // second 60
	{"2024031012000+", time.Time{}, false},                                                     // not a digit
	{"20240310120005.1e3", time.Time{}, false},                                                 // not a digit
	{"", time.Time{}, false},
}

func TestParseMLSDTime(t *testing.T) {
	for _, tt := range mlsdTimeTests {
		got, ok := parseMLSDTime(tt.in)
		if ok != tt.ok || !got.Equal(tt.want) {
			t.Errorf("parseMLSDTime(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// FuzzParseMLSDTime: parseMLSDTime accepts exactly the time-vals of RFC
// 3659 section 2.3 that name a real time; an accepted one is UTC and,
// written back with nine digits of fraction, gives the input's digits
// (the fraction padded with zeros or cut to nanoseconds); with up to nine
// digits of fraction it agrees with time.Parse, which reads a fraction
// after the seconds.
func FuzzParseMLSDTime(f *testing.F) {
	for _, tt := range mlsdTimeTests {
		f.Add(tt.in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, ok := parseMLSDTime(in)
		whole, frac, hasFrac := strings.Cut(in, ".")
		grammar := len(whole) == 14 && isDigits(whole) && (!hasFrac || frac != "" && isDigits(frac))
		_, err := time.ParseInLocation("20060102150405", whole, time.UTC)
		if ok != (grammar && err == nil) {
			t.Fatalf("parseMLSDTime(%q) = %v, %v; time-val %v, time.Parse %v", in, got, ok, grammar, err)
		}
		if !ok {
			return
		}
		want := whole + "." + (frac + "000000000")[:9]
		if back := got.Format("20060102150405.000000000"); got.Location() != time.UTC || back != want {
			t.Fatalf("parseMLSDTime(%q) = %v, written back %q, want %q", in, got, back, want)
		}
		if len(frac) <= 9 {
			ref, err := time.ParseInLocation("20060102150405", in, time.UTC)
			if err != nil || !ref.Equal(got) {
				t.Fatalf("parseMLSDTime(%q) = %v; time.Parse %v, %v", in, got, ref, err)
			}
		}
	})
}
