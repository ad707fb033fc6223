package rate

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
)

// The rows follow curl(1), --limit-rate: "The given speed is measured in
// bytes/second, unless a suffix is appended. Appending 'k' or 'K' will
// count the number as kilobytes, 'm' or 'M' makes it megabytes, while 'g'
// or 'G' makes it gigabytes. The suffixes (k, M, G, T, P) are 1024 based."
// wget(1),
// --limit-rate, takes "20k" the same way, and "2.5k" with a fraction.
func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		err  error
	}{
		{"0", 0, nil},                // no limit, as with curl and wget
		{"1", 1, nil},                // bytes a second without a suffix
		{"100", 100, nil},            // curl(1): bytes/second unless a suffix
		{"100k", 100 << 10, nil},     // curl(1): 'k' kilobytes, 1024 based
		{"100K", 100 << 10, nil},     // curl(1): or 'K'
		{"1m", 1 << 20, nil},         // curl(1): 'm' megabytes
		{"1M", 1 << 20, nil},         // curl(1): or 'M'
		{"1g", 1 << 30, nil},         // curl(1): 'g' gigabytes
		{"2G", 2 << 30, nil},         // curl(1): or 'G'
		{"3T", 3 << 40, nil},         // curl(1): T, 1024 based
		{"2.5k", 2560, nil},          // wget(1): "2.5k" is a fraction of a kilobyte
		{"0.5", 0, nil},              // a fraction of a byte rounds down
		{"1.0009765625k", 1025, nil}, // exact in binary: 1024 + 1
		{"007k", 7 << 10, nil},       // leading zeros are decimal
		{"9223372036854775807", math.MaxInt64, nil},
		{"9223372036854775808", 0, ErrRange},
		{"8388608T", 0, ErrRange},        // 2^23 TiB = 2^63 bytes, one past int64
		{"8388607T", 8388607 << 40, nil}, // the largest whole number of TiB
		{"99999999999999999999999G", 0, ErrRange},
		{strings.Repeat("9", 400) + "k", 0, ErrRange}, // beyond float64 itself
		{"", 0, ErrSyntax},
		{"k", 0, ErrSyntax},   // a suffix needs a number
		{"-1", 0, ErrSyntax},  // no negative rate
		{"+1", 0, ErrSyntax},  // no sign
		{"1kb", 0, ErrSyntax}, // one suffix letter only
		{"1 k", 0, ErrSyntax}, // no space
		{" 1k", 0, ErrSyntax}, // no space
		{"1.", 0, ErrSyntax},  // a dot needs digits after it
		{".5k", 0, ErrSyntax}, // and before it
		{"1.2.3", 0, ErrSyntax},
		{"1e3", 0, ErrSyntax},      // no exponent
		{"0x10", 0, ErrSyntax},     // decimal only
		{"1P", 1 << 50, nil},       // curl(1): P, 1024 based
		{"8191p", 8191 << 50, nil}, // the largest whole number of PiB
		{"8192P", 0, ErrRange},     // 2^63 bytes
		{"1E", 0, ErrSyntax},       // no exabytes
		{"inf", 0, ErrSyntax},
		{"NaN", 0, ErrSyntax},
		{"1_000", 0, ErrSyntax},
		{"١", 0, ErrSyntax}, // ASCII digits only
	} {
		got, err := Parse(tc.in)
		if tc.err != nil {
			var pe *Error
			if !errors.Is(err, tc.err) || !errors.As(err, &pe) || pe.Value != tc.in {
				t.Errorf("Parse(%q) = %d, %v; want %v naming the value", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("Parse(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
}

func TestFormat(t *testing.T) {
	for _, tc := range []struct {
		in   int64
		want string
	}{{0, "0"}, {100, "100"}, {1024, "1k"}, {1536, "1536"}, {1536 << 10, "1536k"}, {1 << 20, "1M"}, {3 << 30, "3G"}, {5 << 40, "5T"}, {1 << 50, "1P"}, {1025, "1025"}} {
		if got := Format(tc.in); got != tc.want {
			t.Errorf("Format(%d) = %q, want %q", tc.in, got, tc.want)
		}
		if n, err := Parse(Format(tc.in)); err != nil || n != tc.in {
			t.Errorf("Parse(Format(%d)) = %d, %v", tc.in, n, err)
		}
	}
}

// FuzzParse: no panic; an error is a *Error naming the input and wrapping
// ErrSyntax or ErrRange; a value is never negative, is the integer itself
// for plain digits, and survives Format and Parse unchanged.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"0", "100k", "1M", "2.5G", "9223372036854775807", "8388608T", "", "k", "1.", "-3", "1e9"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := Parse(s)
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) || pe.Value != s || !(errors.Is(err, ErrSyntax) || errors.Is(err, ErrRange)) {
				t.Fatalf("Parse(%q): error %v is not a *Error with a sentinel", s, err)
			}
			return
		}
		if n < 0 {
			t.Fatalf("Parse(%q) = %d < 0", s, n)
		}
		if want, perr := strconv.ParseInt(s, 10, 64); perr == nil && s[0] != '+' && s[0] != '-' && want != n {
			t.Fatalf("Parse(%q) = %d, want %d", s, n, want)
		}
		if back, err := Parse(Format(n)); err != nil || back != n {
			t.Fatalf("Parse(Format(%d)) = %d, %v", n, back, err)
		}
	})
}
