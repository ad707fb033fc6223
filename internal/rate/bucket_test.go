package rate

import (
	"context"
	"sync"
	"testing"
	"time"
)

// fakeClock is a Clock whose Sleep moves its time forward at once.
type fakeClock struct {
	mu    sync.Mutex
	now   time.Time
	slept []time.Duration
}

func newFakeClock() *fakeClock { return &fakeClock{now: time.Unix(1_000_000, 0)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if d > 0 {
		c.now = c.now.Add(d)
		c.slept = append(c.slept, d)
	}
	return nil
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func TestBurst(t *testing.T) {
	for _, tc := range []struct{ rate, want int64 }{
		{1, 1}, {16, 1}, {100, 6}, {1600, 100}, {100 << 10, 6400}, {1 << 20, 64 << 10}, {1 << 40, 64 << 10},
	} {
		if got := Burst(tc.rate); got != tc.want {
			t.Errorf("Burst(%d) = %d, want %d", tc.rate, got, tc.want)
		}
	}
}

// Reading n bytes a chunk at a time from a full bucket of r bytes a second
// takes (n - burst) / r seconds: the burst at once, the rest at the rate.
func TestBucketPace(t *testing.T) {
	for _, tc := range []struct {
		rate  int64
		total int
	}{
		{100 << 10, 1 << 20}, {1 << 20, 10 << 20}, {1000, 10_000}, {7, 100},
	} {
		c := newFakeClock()
		b := NewBucketClock(tc.rate, c)
		t0 := c.Now()
		for left := tc.total; left > 0; {
			n := min(left, b.Chunk())
			if _, err := b.Take(t.Context(), n); err != nil {
				t.Fatal(err)
			}
			left -= n
		}
		got := c.Now().Sub(t0)
		want := time.Duration(float64(int64(tc.total)-Burst(tc.rate)) / float64(tc.rate) * float64(time.Second))
		if d := got - want; d < -time.Millisecond || d > time.Millisecond {
			t.Errorf("rate %d, %d bytes: %v, want %v", tc.rate, tc.total, got, want)
		}
		for _, d := range c.slept {
			if max := time.Duration(float64(b.Chunk()) / float64(tc.rate) * float64(time.Second)); d > max+time.Microsecond {
				t.Errorf("rate %d: one wait of %v, more than a burst's worth (%v)", tc.rate, d, max)
			}
		}
	}
}

// Tokens build up while nobody reads, up to the burst and no more.
func TestBucketRefill(t *testing.T) {
	c := newFakeClock()
	b := NewBucketClock(1000, c) // burst 62
	if d := b.Reserve(62); d != 0 {
		t.Fatalf("a full bucket made the first burst wait %v", d)
	}
	if d := b.Reserve(10); d != 10*time.Millisecond {
		t.Fatalf("10 bytes from an empty bucket of 1000/s: wait %v, want 10ms", d)
	}
	c.advance(10 * time.Millisecond) // the debt is repaid
	c.advance(time.Hour)             // an idle hour fills the bucket to its burst only
	if d := b.Reserve(62); d != 0 {
		t.Fatalf("after an idle hour: wait %v for a burst", d)
	}
	if d := b.Reserve(1); d != time.Millisecond {
		t.Fatalf("after an idle hour and a burst: wait %v for one byte, want 1ms", d)
	}
}

// Readers sharing one bucket share its rate: two of them each reading
// 50 KB from a bucket of 10 KB/s take 10 s between them, not 5.
func TestBucketShared(t *testing.T) {
	c := newFakeClock()
	b := NewBucketClock(10_000, c)
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for left := 50_000; left > 0; left -= b.Chunk() {
				b.Take(t.Context(), min(left, b.Chunk()))
			}
		}()
	}
	wg.Wait()
	// The fake clock adds every sleep: what the two readers waited in
	// all is what the bytes beyond the burst cost at the rate.
	var sum time.Duration
	for _, d := range c.slept {
		sum += d
	}
	if want := time.Duration(float64(100_000-Burst(10_000)) / 10_000 * float64(time.Second)); sum < want-time.Millisecond {
		t.Errorf("two readers waited %v in all, want at least %v", sum, want)
	}
}

// A wait ends with its context.
func TestBucketCancel(t *testing.T) {
	b := NewBucket(1) // a byte a second: the second byte waits a second
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	b.Reserve(1)
	if _, err := b.Take(ctx, 1000); err != context.Canceled {
		t.Fatalf("Take with a cancelled context = %v, want context.Canceled", err)
	}
}

func TestPacer(t *testing.T) {
	c := newFakeClock()
	p := NewPacerClock(time.Second, false, c)
	var starts []time.Time
	for range 4 {
		if err := p.Wait(t.Context(), "Example.ORG"); err != nil {
			t.Fatal(err)
		}
		starts = append(starts, c.Now())
		c.advance(100 * time.Millisecond) // the request itself
	}
	for i := 1; i < len(starts); i++ {
		if gap := starts[i].Sub(starts[i-1]); gap != time.Second {
			t.Errorf("gap %d = %v, want 1s between starts", i, gap)
		}
	}
	// Another host has its own turn, and the case of a name does not
	// make another host.
	before := c.Now()
	p.Wait(t.Context(), "other.example")
	if c.Now() != before {
		t.Errorf("the first request to another host waited %v", c.Now().Sub(before))
	}
	p.Wait(t.Context(), "example.org")
	if c.Now() == before {
		t.Errorf("example.org and Example.ORG are one host, but no wait")
	}
	// A request long after the last one starts at once.
	c.advance(time.Minute)
	before = c.Now()
	p.Wait(t.Context(), "example.org")
	if c.Now() != before {
		t.Errorf("a request a minute after the last waited %v", c.Now().Sub(before))
	}
}

// wget(1), --random-wait: "vary between 0.5 and 1.5 * wait seconds".
func TestPacerRandom(t *testing.T) {
	c := newFakeClock()
	p := NewPacerClock(time.Second, true, c)
	var lo, hi time.Duration = time.Hour, 0
	for range 200 {
		p.Wait(t.Context(), "h")
	}
	for _, d := range c.slept {
		if d < 500*time.Millisecond || d > 1500*time.Millisecond {
			t.Fatalf("random wait %v outside [0.5s, 1.5s]", d)
		}
		lo, hi = min(lo, d), max(hi, d)
	}
	if len(c.slept) != 199 || hi-lo < 200*time.Millisecond {
		t.Errorf("%d waits between %v and %v: not spread", len(c.slept), lo, hi)
	}
}

func TestPacerCancel(t *testing.T) {
	p := NewPacer(time.Hour, false)
	if err := p.Wait(t.Context(), "h"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel()
	if err := p.Wait(ctx, "h"); err != context.DeadlineExceeded {
		t.Fatalf("Wait for an hour with a 20ms context = %v", err)
	}
}

func TestGate(t *testing.T) {
	g := NewGate(2)
	ctx := t.Context()
	r1, err1 := g.Acquire(ctx, "h")
	r2, err2 := g.Acquire(ctx, "H")
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if r, err := g.Acquire(ctx, "other"); err != nil {
		t.Fatalf("another host: %v", err)
	} else {
		r()
	}
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if _, err := g.Acquire(short, "h"); err != context.DeadlineExceeded {
		t.Fatalf("a third connection to h = %v, want it to wait until the deadline", err)
	}
	r1()
	r1() // a second call gives nothing back twice
	r3, err := g.Acquire(ctx, "h")
	if err != nil {
		t.Fatal(err)
	}
	short2, cancel2 := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel2()
	if _, err := g.Acquire(short2, "h"); err != context.DeadlineExceeded {
		t.Fatalf("after a double release, a third connection = %v, want a wait", err)
	}
	r2()
	r3()
}
