package mirror

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/rfc1738/fetch/internal/retry"
	"github.com/rfc1738/fetch/proto"
)

// again decides whether the failed transfer of rf is tried again, and if
// so puts it back on the queue: at once after a connection refused for
// their number (proto.ErrBusy, see busy), else after the policy's
// backoff. It reports false when rf's failure is final.
func (r *run) again(ctx context.Context, rf *remoteFile, err error, files *queue[remoteFile]) bool {
	if ctx.Err() != nil {
		return false
	}
	if r.busy(ctx, err) {
		files.push(*rf)
		return true
	}
	p := r.opts.Retry
	if p == nil {
		if rf.retried || !retryable(ctx, err) {
			return false
		}
		// Once more, at the end of the queue.
		rf.retried = true
		files.push(*rf)
		return true
	}
	if !retry.Transient(err) {
		return false
	}
	if rf.tries == 0 {
		rf.failed = time.Now()
	}
	rf.tries++
	d := p.Delay(rf.tries, err)
	if !p.Allow(rf.tries, rf.failed, d) {
		return false
	}
	// The entry waits outside the queue, so that the workers go on with
	// others; it stays outstanding, so the run waits for it.
	pending := *rf
	go func() {
		retry.Wait(ctx, d)
		files.push(pending)
	}()
	return true
}

// listAgain lists d, trying again as the policy says (or once, with no
// policy) when the listing fails.
func (r *run) listAgain(ctx context.Context, d dirJob) (*listing, error) {
	l, err := r.list(ctx, d)
	p := r.opts.Retry
	if p == nil {
		if r.busy(ctx, err) || retryable(ctx, err) {
			l, err = r.list(ctx, d)
		}
		return l, err
	}
	var first time.Time
	for n := 1; err != nil && ctx.Err() == nil; {
		if r.busy(ctx, err) {
			l, err = r.list(ctx, d)
			continue
		}
		if !retry.Transient(err) {
			break
		}
		if n == 1 {
			first = time.Now()
		}
		delay := p.Delay(n, err)
		if !p.Allow(n, first, delay) || retry.Wait(ctx, delay) != nil {
			break
		}
		n++
		l, err = r.list(ctx, d)
	}
	return l, err
}

// busy handles a connection the server refused because it has too many
// (proto.ErrBusy): while the run uses more than one connection, it takes
// one connection slot for good, so that the run goes on with the
// connections the server allows instead of failing entries, and reports
// true (try again at once). With one connection left it reports false:
// the failure is then an ordinary transient one.
func (r *run) busy(ctx context.Context, err error) bool {
	if !errors.Is(err, proto.ErrBusy) {
		return false
	}
	r.mu.Lock()
	ok := r.jobs-r.held > 1
	if ok {
		r.held++
	}
	r.mu.Unlock()
	if ok {
		// The slot comes free as soon as any transfer ends.
		r.acquire(ctx)
	}
	return ok
}

// noteBusy adds the run's one notice about a server that refused
// connections beyond its limit.
func (r *run) noteBusy() {
	r.mu.Lock()
	held := r.held
	r.mu.Unlock()
	if held == 0 {
		return
	}
	r.sum.Notices = append(r.sum.Notices, fmt.Sprintf(
		"the server refused connections beyond its limit (too many connections): the mirror went on with %d of %d", r.jobs-held, r.jobs))
}
