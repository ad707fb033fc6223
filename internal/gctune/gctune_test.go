package gctune

import (
	"runtime"
	"runtime/debug"
	"sync"
	"testing"
	"time"
)

func TestPercent(t *testing.T) {
	const mb = 1 << 20
	tests := []struct {
		name     string
		live     uint64
		headroom uint64
		want     int
	}{
		{"nothing measured yet: the cap", 0, 64 * mb, MaxPercent},
		{"a tiny heap: the cap", 1 * mb, 64 * mb, MaxPercent},
		{"at the cap exactly", 64 * mb / 10, 64 * mb, MaxPercent},
		{"8 MB live: 64 MB of room", 8 * mb, 64 * mb, 800},
		{"32 MB live", 32 * mb, 64 * mb, 200},
		{"as large as the headroom: the default", 64 * mb, 64 * mb, 100},
		{"larger: still the headroom", 96 * mb, 64 * mb, 66},
		{"twice the headroom: half the live heap", 128 * mb, 64 * mb, MinPercent},
		{"larger: never below half the live heap", 1 << 30, 64 * mb, MinPercent},
		{"just under the headroom", 63 * mb, 64 * mb, 101},
	}
	for _, tt := range tests {
		if got := Percent(tt.live, tt.headroom); got != tt.want {
			t.Errorf("%s: Percent(%d, %d) = %d, want %d", tt.name, tt.live, tt.headroom, got, tt.want)
		}
	}
}

func TestEnabled(t *testing.T) {
	for _, v := range []string{"100", "off", "50", "junk"} {
		if enabled(func(string) string { return v }) {
			t.Errorf("GOGC=%q: the tuner would override the user's choice", v)
		}
	}
	if !enabled(func(string) string { return "" }) {
		t.Error("no GOGC: the tuner does not run")
	}
}

// TestStart runs the tuner in this test binary: it sets the percentage for
// the live heap at once and again after a collection, and stops when told.
func TestStart(t *testing.T) {
	tuned := make(chan int, 16)
	// A fresh tuner, so that the test can run again in one binary
	// (-count): the last run stopped the one Start made.
	startOnce, running = sync.Once{}, false
	mu.Lock()
	stopped, percent = false, 0
	onTune = func(p int) {
		select {
		case tuned <- p:
		default:
		}
	}
	mu.Unlock()
	defer func() {
		mu.Lock()
		stopped, onTune = true, nil
		mu.Unlock()
		debug.SetGCPercent(100)
	}()

	if !Start(func(string) string { return "" }) {
		t.Fatal("Start did not start the tuner without GOGC")
	}
	if !Start(func(string) string { return "100" }) {
		t.Fatal("a second Start changed the first one's answer")
	}
	var first int
	select {
	case first = <-tuned: // Start tunes at once
	case <-time.After(10 * time.Second):
		t.Fatal("Start did not tune within 10 s")
	}
	if got := current(); got != first {
		t.Fatalf("GOGC is %d after the first tuning to %d", got, first)
	}

	// Keep 136 MB live: more than twice Headroom, so the next tuning
	// must come down to MinPercent.
	live := make([][]byte, 136)
	for i := range live {
		live[i] = make([]byte, 1<<20)
	}
	deadline := time.After(10 * time.Second)
	for {
		runtime.GC()
		select {
		case p := <-tuned:
			if p == MinPercent {
				if got := current(); got != MinPercent {
					t.Fatalf("GOGC is %d after a tuning to %d", got, MinPercent)
				}
				runtime.KeepAlive(live)
				return
			}
		case <-deadline:
			t.Fatalf("no tuning to %d within 10 s of collections with 136 MB live", MinPercent)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// current returns the GOGC percentage in force.
func current() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}
