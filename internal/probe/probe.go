// Package probe counts the calls of costly steps (parsing a URL, checking
// it with the safety policy, computing its FTP view), so that a test can
// prove that one fetch does each the expected number of times. Counting is
// off unless a test turns it on: a step then costs one atomic load.
package probe

import "sync/atomic"

// Counts holds the number of calls of each step since Start.
type Counts struct {
	Parse   atomic.Int64 // uri.Parse
	Check   atomic.Int64 // safety.Check (and so Policy.Evaluate)
	FTPView atomic.Int64 // uri.URL.FTP
}

var active atomic.Pointer[Counts]

// Start turns counting on and returns the counts; Stop turns it off. The
// calls of every goroutine are counted.
func Start() *Counts {
	c := new(Counts)
	active.Store(c)
	return c
}

// Stop turns counting off.
func Stop() { active.Store(nil) }

// Parse counts a uri.Parse.
func Parse() {
	if c := active.Load(); c != nil {
		c.Parse.Add(1)
	}
}

// Check counts a safety.Check.
func Check() {
	if c := active.Load(); c != nil {
		c.Check.Add(1)
	}
}

// FTPView counts a uri.URL.FTP.
func FTPView() {
	if c := active.Load(); c != nil {
		c.FTPView.Add(1)
	}
}
