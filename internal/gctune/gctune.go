// Package gctune gives the garbage collector of the fetch command a fixed
// room above the live heap, where Go's default (GOGC=100) gives room equal
// to the live heap. The command keeps little live while it allocates a
// little for every file, and the default would collect such a heap every
// few megabytes (BENCHMARKS.md, "Garbage collector room").
//
// After every cycle the tuner sets the GOGC percentage to 100*Headroom/live,
// between MinPercent and MaxPercent: the heap grows Headroom above the live
// heap, or half the live heap when that is more (above 128 MB live: a
// mirror of a million files, whose manifest and paths stay live for the
// whole run, peaks then at 1.5 times them rather than twice). Unlike a
// memory limit (GOMEMLIMIT), the collector never runs back to back when
// the live heap grows large.
//
// A GOGC set in the environment is the user's choice: the tuner then does
// nothing. Only the command calls Start; the library (package fetch) never
// tunes the collector of the program that uses it.
package gctune

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// Headroom is how far the heap may grow above the live heap before the next
// collection.
const Headroom = 64 << 20

// MinPercent is the least GOGC percentage the tuner sets: room of half
// the live heap.
const MinPercent = 50

// MaxPercent bounds the GOGC percentage the tuner sets. With Go's minimum
// heap of 4 MB (scaled by GOGC/100), a tiny live heap is first collected
// at about 40 MB.
const MaxPercent = 1000

// Percent returns the GOGC percentage that gives headroom bytes of room
// above a live heap of live bytes, between MinPercent and MaxPercent.
func Percent(live, headroom uint64) int {
	if live == 0 {
		return MaxPercent
	}
	p := headroom * 100 / live
	switch {
	case p < MinPercent:
		return MinPercent
	case p > MaxPercent:
		return MaxPercent
	}
	return int(p)
}

var (
	startOnce sync.Once
	running   bool // Start armed the tuner

	mu      sync.Mutex
	percent int       // the percentage set last
	stopped bool      // tests: no more tuning
	onTune  func(int) // tests: told of every percentage set
)

// Start makes the tuner run now and after every garbage collection, unless
// getenv("GOGC") is set. It reports whether the tuner runs. Only the first
// call acts; later ones report its answer.
func Start(getenv func(string) string) bool {
	startOnce.Do(func() {
		if !enabled(getenv) {
			return
		}
		running = true
		tune()
		arm()
	})
	return running
}

// enabled reports whether the tuner may run: not when the user chose a
// GOGC (even "100" or "off").
func enabled(getenv func(string) string) bool {
	return getenv("GOGC") == ""
}

// sentinel is allocated only to be collected: its cleanup runs after the
// cycle that found it unreachable. It holds a pointer so that it is not
// packed with other small objects by the tiny allocator (whose blocks live
// as long as any object in them).
type sentinel struct{ _ *byte }

// arm schedules one tuning after the next collection; the tuning arms the
// one after it.
func arm() {
	runtime.AddCleanup(new(sentinel), func(struct{}) {
		if tune() {
			arm()
		}
	}, struct{}{})
}

var liveSample = []metrics.Sample{{Name: "/gc/heap/live:bytes"}}

// tune sets the percentage for the live heap measured by the last cycle.
// It reports false once the tuner is stopped.
func tune() bool {
	mu.Lock()
	defer mu.Unlock()
	if stopped {
		return false
	}
	metrics.Read(liveSample)
	var live uint64
	if liveSample[0].Value.Kind() == metrics.KindUint64 {
		live = liveSample[0].Value.Uint64()
	}
	p := Percent(live, Headroom)
	if p != percent {
		debug.SetGCPercent(p)
		percent = p
	}
	if onTune != nil {
		onTune(p)
	}
	return true
}
