package mirror

import (
	"testing"
	"time"
)

// TestSaveWait: the saver waits its interval after a quick save, and ten
// times the save's time after a long one (a large manifest), so that
// saving is a bounded share of the run.
func TestSaveWait(t *testing.T) {
	for _, c := range []struct{ every, took, want time.Duration }{
		{2 * time.Second, 50 * time.Millisecond, 2 * time.Second},
		{2 * time.Second, 200 * time.Millisecond, 2 * time.Second},
		{2 * time.Second, 500 * time.Millisecond, 5 * time.Second},
		{2 * time.Second, 12 * time.Second, 120 * time.Second},
		{time.Millisecond, time.Millisecond, 10 * time.Millisecond},
	} {
		if got := saveWait(c.every, c.took); got != c.want {
			t.Errorf("saveWait(%v, %v) = %v, want %v", c.every, c.took, got, c.want)
		}
	}
}
