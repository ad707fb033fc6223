package fetch

import (
	"context"
	"io"
	"sync"
	"time"

	"github.com/rfc1738/fetch/internal/rate"
	"github.com/rfc1738/fetch/uri"
)

// polite is the shared state of a Client's politeness limits (LimitRate-
// Total, Wait, MaxHostConns), made at its first fetch.
type polite struct {
	once  sync.Once
	total *rate.Bucket // LimitRateTotal, or nil
	pacer *rate.Pacer  // Wait, or nil
	gate  *rate.Gate   // MaxHostConns, or nil
}

func (c *Client) politeState() *polite {
	p := &c.polite
	p.once.Do(func() {
		if c.LimitRateTotal > 0 {
			p.total = rate.NewBucket(c.LimitRateTotal)
		}
		if c.Wait > 0 {
			p.pacer = rate.NewPacer(c.Wait, c.RandomWait)
		}
		if c.MaxHostConns > 0 {
			p.gate = rate.NewGate(c.MaxHostConns)
		}
	})
	return p
}

// admit waits for u's host to accept one more request from this client:
// a connection under MaxHostConns, then the Wait since the last request's
// start. It returns the function that gives the connection back (to call
// once, when the response's body is closed or the fetch failed).
func (c *Client) admit(ctx context.Context, u *uri.URL) (release func(), err error) {
	p := c.politeState()
	release = func() {}
	host := u.Hostname()
	if p.gate != nil {
		if release, err = p.gate.Acquire(ctx, host); err != nil {
			return nil, err
		}
	}
	if p.pacer != nil {
		if err := p.pacer.Wait(ctx, host); err != nil {
			release()
			return nil, err
		}
	}
	return release, nil
}

// limited reports whether the bodies of c's fetches are held to a rate.
func (c *Client) limited() bool { return c.LimitRate > 0 || c.LimitRateTotal > 0 }

// limitBody holds rc to the client's LimitRate (a bucket of its own) and
// LimitRateTotal (the client's shared bucket). sb is the body's stall
// watchdog, or nil: the time spent waiting here is not counted against
// SpeedLimit.
func (c *Client) limitBody(ctx context.Context, rc io.ReadCloser, sb *speedBody) io.ReadCloser {
	b := &limitBody{rc: rc, ctx: ctx, sb: sb}
	if c.LimitRate > 0 {
		b.buckets = append(b.buckets, rate.NewBucket(c.LimitRate))
	}
	if t := c.politeState().total; t != nil {
		b.buckets = append(b.buckets, t)
	}
	b.chunk = b.buckets[0].Chunk()
	for _, bk := range b.buckets[1:] {
		b.chunk = min(b.chunk, bk.Chunk())
	}
	return b
}

// limitBody reads at most a bucket's burst at a time and, after each read,
// waits until every bucket has paid for the bytes. It has no WriteTo: a
// copy from it goes through Read, a burst at a time.
type limitBody struct {
	rc      io.ReadCloser
	buckets []*rate.Bucket
	chunk   int
	// ctx is the fetch's own context (the caller's, bounded by MaxTime
	// and the stall watchdog), kept for the body's lifetime as an HTTP
	// response body keeps its request's: a wait ends with it.
	ctx context.Context
	sb  *speedBody
}

func (b *limitBody) Read(p []byte) (int, error) {
	if len(p) > b.chunk {
		p = p[:b.chunk]
	}
	n, err := b.rc.Read(p)
	if n <= 0 {
		return n, err
	}
	var d time.Duration
	for _, bk := range b.buckets {
		d = max(d, bk.Reserve(n))
	}
	if d <= 0 {
		return n, err
	}
	if b.sb != nil {
		b.sb.pause.begin(time.Now())
	}
	serr := rate.Sleep(b.ctx, d)
	if b.sb != nil {
		b.sb.pause.end(time.Now())
		serr = b.sb.fail(serr)
	}
	if err == nil {
		err = serr
	}
	return n, err
}

func (b *limitBody) Close() error { return b.rc.Close() }

// pauseMeter adds up the time a body spends waiting for its rate limit,
// which the stall watchdog leaves out of its reckoning.
type pauseMeter struct {
	mu    sync.Mutex
	total time.Duration
	since time.Time // the start of the wait under way; zero if none
}

func (m *pauseMeter) begin(now time.Time) {
	m.mu.Lock()
	m.since = now
	m.mu.Unlock()
}

func (m *pauseMeter) end(now time.Time) {
	m.mu.Lock()
	if !m.since.IsZero() {
		m.total += now.Sub(m.since)
		m.since = time.Time{}
	}
	m.mu.Unlock()
}

// at returns the time spent waiting up to now, the wait under way
// included.
func (m *pauseMeter) at(now time.Time) time.Duration {
	m.mu.Lock()
	defer m.mu.Unlock()
	t := m.total
	if !m.since.IsZero() && now.After(m.since) {
		t += now.Sub(m.since)
	}
	return t
}
