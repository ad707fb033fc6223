package rate

import (
	"context"
	"math/rand/v2"
	"strings"
	"sync"
	"time"
)

// Pacer spaces the requests to each host: a request may start Wait after
// the start of the one before it to the same host (with Random, a wait
// drawn between 0.5 and 1.5 times Wait, as wget's --random-wait does),
// whichever goroutine makes it. The first request to a host starts at
// once. A Pacer is safe for concurrent use.
type Pacer struct {
	wait   time.Duration
	random bool
	clock  Clock

	mu   sync.Mutex
	next map[string]time.Time // host → earliest start of its next request
}

// NewPacer returns a pacer of wait (> 0) between requests to one host.
func NewPacer(wait time.Duration, random bool) *Pacer {
	return NewPacerClock(wait, random, realClock{})
}

// NewPacerClock is NewPacer on clock c.
func NewPacerClock(wait time.Duration, random bool, c Clock) *Pacer {
	return &Pacer{wait: wait, random: random, clock: c, next: map[string]time.Time{}}
}

// gap is the wait after a request.
func (p *Pacer) gap() time.Duration {
	if !p.random {
		return p.wait
	}
	return time.Duration((0.5 + rand.Float64()) * float64(p.wait))
}

// Wait returns when a request to host may start, or with ctx.Err() when
// ctx ends first. Host names are compared without regard to case. The
// turn is taken when Wait is called: a caller whose ctx ends while it
// waits leaves its turn unused.
func (p *Pacer) Wait(ctx context.Context, host string) error {
	host = strings.ToLower(host)
	p.mu.Lock()
	now := p.clock.Now()
	at := p.next[host]
	if at.Before(now) {
		at = now
	}
	p.next[host] = at.Add(p.gap())
	p.mu.Unlock()
	return p.clock.Sleep(ctx, at.Sub(now))
}

// Gate bounds the connections to each host: at most N at once. A Gate is
// safe for concurrent use.
type Gate struct {
	n  int
	mu sync.Mutex
	// slots holds one channel per host, with a token per connection in
	// use.
	slots map[string]chan struct{}
}

// NewGate returns a gate of n (> 0) connections per host.
func NewGate(n int) *Gate { return &Gate{n: n, slots: map[string]chan struct{}{}} }

// Acquire takes a connection to host, waiting while n are in use, or
// returns ctx.Err() when ctx ends first. The caller calls the returned
// release (once) when the connection is given up.
func (g *Gate) Acquire(ctx context.Context, host string) (release func(), err error) {
	host = strings.ToLower(host)
	g.mu.Lock()
	ch := g.slots[host]
	if ch == nil {
		ch = make(chan struct{}, g.n)
		g.slots[host] = ch
	}
	g.mu.Unlock()
	select {
	case ch <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	var once sync.Once
	return func() { once.Do(func() { <-ch }) }, nil
}
