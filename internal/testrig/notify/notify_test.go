package notify

import (
	"sync/atomic"
	"testing"
	"time"
)

// Until returns once another goroutine makes the condition true and
// notifies, long before the deadline.
func TestUntilWakes(t *testing.T) {
	var s Signal
	var n atomic.Int32
	go func() {
		for range 100 {
			n.Add(1)
			s.Notify()
		}
	}()
	start := time.Now()
	if !s.Until(10*time.Second, func() bool { return n.Load() == 100 }) {
		t.Fatalf("Until = false, n = %d", n.Load())
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("Until took %v", el)
	}
}

// Until gives up at the deadline when the condition never holds, and a
// Notify without a waiter does not block.
func TestUntilTimeout(t *testing.T) {
	var s Signal
	s.Notify()
	if s.Until(20*time.Millisecond, func() bool { return false }) {
		t.Error("Until = true for a condition that never holds")
	}
}

// AtLeast returns once the count reaches n, and false when it stays below
// it.
func TestCounter(t *testing.T) {
	var c Counter
	go func() {
		for range 3 {
			c.Add()
		}
	}()
	if !c.AtLeast(3, 10*time.Second) || c.Load() != 3 {
		t.Fatalf("AtLeast(3) = false or Load = %d", c.Load())
	}
	if c.AtLeast(4, 20*time.Millisecond) {
		t.Error("AtLeast(4) = true with a count of 3")
	}
}
