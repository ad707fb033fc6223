// Package notify lets a test wait for a condition on state that other
// goroutines change (a fake server's transcript, a count of accepted
// connections) without sleeping: the writer calls Signal.Notify after
// each change, the test calls Signal.Until with the condition and a
// deadline.
package notify

import (
	"sync"
	"time"
)

// Signal wakes the waiters of Until at every Notify. The zero value is
// ready to use; a Signal is safe for concurrent use.
type Signal struct {
	mu sync.Mutex
	ch chan struct{} // closed by the next Notify; nil when nobody waits
}

// Notify wakes every goroutine waiting in Until, so that it looks at its
// condition again.
func (s *Signal) Notify() {
	s.mu.Lock()
	if s.ch != nil {
		close(s.ch)
		s.ch = nil
	}
	s.mu.Unlock()
}

// changed returns a channel that the next Notify closes.
func (s *Signal) changed() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ch == nil {
		s.ch = make(chan struct{})
	}
	return s.ch
}

// Until returns true as soon as cond holds, looking at it at first and
// after each Notify, or false when it still does not hold after timeout.
// The channel is taken before cond is evaluated, so a change made between
// the two is not missed.
func (s *Signal) Until(timeout time.Duration, cond func() bool) bool {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		ch := s.changed()
		if cond() {
			return true
		}
		select {
		case <-ch:
		case <-deadline.C:
			return cond()
		}
	}
}

// Counter is a count that a test can wait on, such as the connections a
// fake server has accepted. The zero value is ready to use.
type Counter struct {
	mu  sync.Mutex
	n   int64
	sig Signal
}

// Add adds one and wakes the waiters of AtLeast.
func (c *Counter) Add() {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
	c.sig.Notify()
}

// Load returns the count.
func (c *Counter) Load() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// AtLeast waits until the count reaches n, for at most timeout, and
// reports whether it has.
func (c *Counter) AtLeast(n int64, timeout time.Duration) bool {
	return c.sig.Until(timeout, func() bool { return c.Load() >= n })
}
