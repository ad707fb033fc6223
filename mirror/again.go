package mirror

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/retry"
)

// attempt is the retry state of one piece of work (a file, a news task):
// with Options.Retry, the attempts that failed and when the first did;
// without, whether this is the one more attempt.
type attempt struct {
	tries   int
	failed  time.Time
	retried bool
}

// next decides whether work that failed with err is tried again, and
// after how long, counting the failure in a: with the run's policy, a
// transient failure after its backoff; with none, once more, at once, for
// any failure that is not a refusal.
func (r *run) next(ctx context.Context, a *attempt, err error) (time.Duration, bool) {
	if ctx.Err() != nil {
		return 0, false
	}
	p := r.opts.Retry
	if p == nil {
		if a.retried || !retryable(ctx, err) {
			return 0, false
		}
		a.retried = true
		return 0, true
	}
	if !retry.Transient(err) {
		return 0, false
	}
	if a.tries == 0 {
		a.failed = time.Now()
	}
	a.tries++
	d := p.Delay(a.tries, err)
	if !p.Allow(a.tries, a.failed, d) {
		return 0, false
	}
	p.Announce(a.tries, d, err)
	return d, true
}

// attempts is how many times the work of a was tried, the failed try
// that next just counted included: with a policy, its retries and the
// first; without, one or two.
func (a *attempt) attempts() int {
	if a.retried {
		return 2
	}
	return a.tries
}

// pushAfter puts v on q after d (at once when d is 0): meanwhile it waits
// outside the queue, so that the workers go on with the rest.
func pushAfter[T any](ctx context.Context, q *queue[T], v T, d time.Duration) {
	if d == 0 {
		q.push(v)
		return
	}
	go func() {
		retry.Wait(ctx, d)
		q.push(v)
	}()
}

// again decides whether the failed transfer of rf (rep) is tried again,
// and if so puts it back on the queue: at once after a connection refused
// for their number that made the run give up a connection (see shrink),
// else as next says. It reports false when rf's failure is final; rep's
// reason then says how many attempts it took, when more than one.
func (r *run) again(ctx context.Context, rf *remoteFile, rep *EntryReport, files *queue[remoteFile]) bool {
	if ctx.Err() != nil {
		return false
	}
	err := rep.err
	var se *shrunkError
	if errors.As(err, &se) {
		files.push(*rf)
		return true
	}
	d, ok := r.next(ctx, &rf.attempt, err)
	if ok {
		// It stays outstanding, so the run waits for it.
		pushAfter(ctx, files, *rf, d)
	} else if n := rf.attempt.attempts(); n > 1 && rep.Reason != "" {
		rep.Reason += " (" + strconv.Itoa(n) + " attempts)"
	}
	return ok
}

// waitAgain decides whether an operation of the run that failed with err
// is tried again (a counts its attempts), and waits as next says before
// it reports true.
func (r *run) waitAgain(ctx context.Context, a *attempt, err error) bool {
	d, ok := r.next(ctx, a, err)
	return ok && retry.Wait(ctx, d) == nil
}

// listAgain lists d, trying again as the policy says (or once, with no
// policy) when the listing fails (next). A listing whose connection the
// run gave up (shrink) is made again at once, uncounted; bounded: each
// one gave up one of the run's Jobs slots. Without a policy, the one
// more attempt is the last, whatever its failure.
func (r *run) listAgain(ctx context.Context, d dirJob) (*listing, error) {
	var a attempt
	for n := 1; ; n++ {
		l, err := r.list(ctx, d)
		var se *shrunkError
		for errors.As(err, &se) && ctx.Err() == nil && !a.retried {
			l, err = r.list(ctx, d)
		}
		if err == nil || !r.waitAgain(ctx, &a, err) {
			return l, retry.Tried(err, n)
		}
	}
}

// shrunkError is a connection refused for their number (proto.ErrBusy)
// that made the run give up one of its connection slots.
type shrunkError struct{ err error }

func (e *shrunkError) Error() string { return e.err.Error() }
func (e *shrunkError) Unwrap() error { return e.err }

// shrink handles err, the failure of a transfer or listing that still
// holds its connection slot. When the server refused the connection
// because it has too many (proto.ErrBusy) and the run uses more than one
// connection, the slot is kept for good at its release (keepSlot): the
// run goes on with the connections the server allows instead of failing
// entries, and the error comes back as a *shrunkError, to be tried again
// at once. With one connection left, err is returned as it is: an
// ordinary transient failure.
func (r *run) shrink(err error) error {
	if err == nil || !errors.Is(err, proto.ErrBusy) || !r.giveUpSlot() {
		return err
	}
	r.owed.Add(1)
	return &shrunkError{err}
}

// giveUpSlot counts one connection given up for good, the server having
// refused it for their number (proto.ErrBusy); it reports false when that
// would leave the run none.
func (r *run) giveUpSlot() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.jobs-r.held <= 1 {
		return false
	}
	r.held++
	if r.held == 1 {
		close(r.refused)
	}
	return true
}

// keepSlot reports whether a slot being released is to be kept for good
// (shrink), and counts it.
func (r *run) keepSlot() bool {
	for {
		n := r.owed.Load()
		if n <= 0 {
			return false
		}
		if r.owed.CompareAndSwap(n, n-1) {
			return true
		}
	}
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
