package rate

import (
	"context"
	"sync"
	"time"
)

// Clock is the time a Bucket or a Pacer sees. Tests give a fake one.
type Clock interface {
	Now() time.Time
	// Sleep waits for d, or until ctx ends (then it returns ctx.Err()).
	Sleep(ctx context.Context, d time.Duration) error
}

// Sleep waits for d on the system's clock, or until ctx ends (then it
// returns ctx.Err()). It returns at once when d <= 0.
func Sleep(ctx context.Context, d time.Duration) error { return realClock{}.Sleep(ctx, d) }

// realClock is the system's clock.
type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// maxBurst bounds a bucket's burst: the bytes one read may take at once.
const maxBurst = 64 << 10

// Burst is the burst of a bucket of r bytes a second: a sixteenth of a
// second's worth (so that the bytes flow in steps of about 60 ms), at
// least one byte and at most 64 KiB.
func Burst(r int64) int64 { return min(max(r/16, 1), maxBurst) }

// Bucket is a token bucket of Rate bytes a second that holds at most
// Burst() tokens. Take lets a reader that has read n bytes go on once the
// bucket has paid for them: the bucket may go into debt, and the reader
// waits for the debt to be repaid. Several readers may share one Bucket
// (their total is then held to Rate); each waits its turn in the order of
// its Take. A Bucket is safe for concurrent use.
type Bucket struct {
	rate  float64
	burst float64
	clock Clock

	mu     sync.Mutex
	tokens float64
	last   time.Time
}

// NewBucket returns a full bucket of r bytes a second (r > 0) on the
// system's clock.
func NewBucket(r int64) *Bucket { return NewBucketClock(r, realClock{}) }

// NewBucketClock is NewBucket on clock c.
func NewBucketClock(r int64, c Clock) *Bucket {
	b := &Bucket{rate: float64(r), burst: float64(Burst(r)), clock: c}
	b.tokens = b.burst
	b.last = c.Now()
	return b
}

// Chunk is the most a reader should read before calling Take: the burst.
func (b *Bucket) Chunk() int { return int(b.burst) }

// Reserve takes n tokens (bytes already read) and returns how long the
// taker must wait for them: zero while the bucket holds them. The caller
// waits on its own (see Sleep); Take is Reserve and the wait together.
func (b *Bucket) Reserve(n int) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.clock.Now()
	if el := now.Sub(b.last); el > 0 {
		b.tokens = min(b.burst, b.tokens+el.Seconds()*b.rate)
		b.last = now
	}
	b.tokens -= float64(n)
	if b.tokens >= 0 {
		return 0
	}
	return time.Duration(-b.tokens / b.rate * float64(time.Second))
}

// Take pays for n bytes already read: it returns at once while the bucket
// holds the tokens, else after the wait that repays the debt, or with
// ctx.Err() when ctx ends first. It returns how long it waited.
func (b *Bucket) Take(ctx context.Context, n int) (time.Duration, error) {
	if n <= 0 {
		return 0, nil
	}
	d := b.Reserve(n)
	if d <= 0 {
		return 0, nil
	}
	return d, b.clock.Sleep(ctx, d)
}
