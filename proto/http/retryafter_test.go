package http

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

var retryAfterNow = time.Date(2015, 10, 21, 7, 28, 0, 0, time.UTC)

var retryAfterTests = []struct {
	in   string
	want time.Duration
}{
	{"120", 2 * time.Minute}, // RFC 9110 section 10.2.3: delay-seconds
	{"0", 0},                 // delay-seconds may be zero
	{" 5 ", 5 * time.Second}, // field values are trimmed (RFC 9110 section 5.5)
	{"Wed, 21 Oct 2015 07:28:30 GMT", 30 * time.Second}, // RFC 9110 section 10.2.3: HTTP-date, IMF-fixdate form
	{"Wednesday, 21-Oct-15 07:29:00 GMT", time.Minute},  // RFC 9110 section 5.6.7: obsolete RFC 850 form
	{"Wed Oct 21 07:28:10 2015", 10 * time.Second},      // RFC 9110 section 5.6.7: asctime form
	{"Wed, 21 Oct 2015 07:00:00 GMT", 0},                // a date past: no wait
	{"-5", 0},                                           // not delay-seconds (1*DIGIT)
	{"1.5", 0},                                          // not delay-seconds
	{"soon", 0},                                         // neither form
	{"", 0},                                             // absent
	{"99999999999999999999", maxRetryAfter},             // delay-seconds is 1*DIGIT, unbounded: more than an int64 is longer than the bound
	{"999999999", maxRetryAfter},                        // bounded
}

func TestRetryAfter(t *testing.T) {
	for _, tt := range retryAfterTests {
		if got := retryAfter(tt.in, retryAfterNow); got != tt.want {
			t.Errorf("retryAfter(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func FuzzRetryAfter(f *testing.F) {
	for _, tt := range retryAfterTests {
		f.Add(tt.in)
	}
	f.Fuzz(func(t *testing.T, v string) {
		d := retryAfter(v, retryAfterNow)
		if d < 0 || d > maxRetryAfter {
			t.Errorf("retryAfter(%q) = %v, outside [0, %v]", v, d, maxRetryAfter)
		}
		// delay-seconds (1*DIGIT) waits that many seconds, up to the
		// bound: more digits never wait less.
		if s := strings.TrimSpace(v); s != "" && strings.Trim(s, "0123456789") == "" {
			want := maxRetryAfter // 7 digits or more: over 86400 seconds
			if digits := strings.TrimLeft(s, "0"); len(digits) < 7 {
				n, _ := strconv.Atoi(digits) // "" is 0
				want = min(time.Duration(n)*time.Second, maxRetryAfter)
			}
			if d != want {
				t.Errorf("retryAfter(%q) = %v, want %v", v, d, want)
			}
		}
	})
}
