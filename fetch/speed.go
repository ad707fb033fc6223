package fetch

import (
	"context"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/retry"
)

// speedBody cuts a body whose bytes arrive slower than limit bytes a
// second, on average over window (curl's --speed-limit and --speed-time):
// a watchdog cancels the fetch's context, which closes the driver's
// connections, and Read and WriteTo then return the *SpeedError.
type speedBody struct {
	rc      io.ReadCloser
	n       atomic.Int64
	tripped atomic.Pointer[retry.SpeedError]
	pause   pauseMeter // waits for LimitRate, left out of the reckoning
	stop    chan struct{}
	once    sync.Once
	wg      sync.WaitGroup
}

// speedStep bounds how often the watchdog samples the byte count.
func speedStep(window time.Duration) time.Duration {
	return min(max(window/8, 50*time.Millisecond), time.Second)
}

func newSpeedBody(rc io.ReadCloser, limit int64, window time.Duration, cancel context.CancelFunc) *speedBody {
	b := &speedBody{rc: rc, stop: make(chan struct{})}
	b.wg.Add(1)
	go b.watch(limit, window, cancel)
	return b
}

// watch samples the byte count every step and trips when the bytes of the
// last window are fewer than limit*window. The window is of time the body
// did not spend waiting for its rate limit (limitBody): a transfer held to
// a LimitRate below SpeedLimit is judged by the pace of the server in the
// time left, not cut for its own limit.
func (b *speedBody) watch(limit int64, window time.Duration, cancel context.CancelFunc) {
	defer b.wg.Done()
	step := speedStep(window)
	t := time.NewTicker(step)
	defer t.Stop()
	type sample struct {
		at     time.Time
		n      int64
		paused time.Duration
	}
	// Enough samples to reach one window back, bounded.
	ring := make([]sample, 0, int(window/step)+2)
	t0 := time.Now()
	ring = append(ring, sample{t0, 0, b.pause.at(t0)})
	for {
		select {
		case <-b.stop:
			return
		case now := <-t.C:
			cur := sample{now, b.n.Load(), b.pause.at(now)}
			// age is the time since s, its waits for the rate limit
			// left out.
			age := func(s sample) time.Duration { return now.Sub(s.at) - (cur.paused - s.paused) }
			// Drop the samples older than needed: keep the newest one
			// at least window old.
			for len(ring) > 1 && age(ring[1]) >= window {
				ring = ring[1:]
			}
			old := ring[0]
			if el := age(old); el >= window {
				got := cur.n - old.n
				if float64(got) < float64(limit)*el.Seconds() {
					rate := int64(float64(got) / el.Seconds())
					b.tripped.Store(&retry.SpeedError{Limit: limit, Time: window, Rate: rate})
					cancel()
					return
				}
			}
			if len(ring) == cap(ring) {
				ring = append(ring[:0], ring[1:]...)
			}
			ring = append(ring, cur)
		}
	}
}

// fail returns the *SpeedError when the watchdog cut the transfer, else err.
func (b *speedBody) fail(err error) error {
	if se := b.tripped.Load(); se != nil && err != nil {
		return se
	}
	return err
}

func (b *speedBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	b.n.Add(int64(n))
	return n, b.fail(err)
}

// WriteTo keeps the driver's own copy loop (see closeBody.WriteTo),
// counting the bytes on their way to w.
func (b *speedBody) WriteTo(w io.Writer) (int64, error) {
	n, err := copyTo(&countWriter{w: w, n: &b.n}, b.rc)
	return n, b.fail(err)
}

func (b *speedBody) Close() error {
	b.once.Do(func() { close(b.stop) })
	err := b.rc.Close()
	b.wg.Wait()
	return err
}

// countWriter counts what it writes into n, and what a body moves into
// w's file directly when w is a proto.FileWriter (WriterFile is nil
// otherwise). It has no ReadFrom, so that a copy into it cannot bypass
// the count.
type countWriter struct {
	w io.Writer
	n *atomic.Int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n.Add(int64(n))
	return n, err
}

func (c *countWriter) WriterFile() *os.File {
	if fw, ok := c.w.(proto.FileWriter); ok {
		return fw.WriterFile()
	}
	return nil
}

func (c *countWriter) Wrote(n int64) {
	c.w.(proto.FileWriter).Wrote(n)
	c.n.Add(n)
}

func (c *countWriter) FileError(err error) error { return c.w.(proto.FileWriter).FileError(err) }
