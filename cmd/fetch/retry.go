package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/proto/ftp"
	"github.com/rfc1738/fetch/retry"
)

// deliver fetches ck for getOne and delivers the response to d: the data
// streams into the output, listings, menus and advice are rendered
// (render), and a listing is checked (checkListing). Under --retry, a
// transient failure (fetch.Transient) is tried again after the policy's
// backoff, asking for the resource from the byte the output holds (FTP
// REST, HTTP Range). A server that cannot resume sends from the start,
// and the bytes the output already has are skipped: the result is
// byte-exact either way. Listings and other rendered responses are
// retried only when nothing was written yet. With --warc-file, a
// transfer is asked for whole again, its first bytes skipped: a resumed
// transfer would not be archived (fetch.Client records whole transfers
// only).
func deliver(ctx context.Context, c *fetch.Client, ck *fetch.Checked, req *proto.Request, d *dest, o *getOptions, e *env, red *redactor) error {
	pol := o.retryPolicy(e.err, red)
	start := time.Now()
	rr := &retryRun{whole: c.WARC != nil} // getOne asked for byte 0 already
	for n := 1; ; n++ {
		err := rr.attempt(ctx, c, ck, req, d, o, e, red)
		if err == nil {
			return o.checkListing(e, red, rr.resp)
		}
		delay := pol.Delay(n, err)
		if unretryable(ctx, err) || !pol.Allow(n, start, delay) {
			rr.abort()
			if fe := (*finalError)(nil); errors.As(err, &fe) {
				return retry.Tried(fe.err, n)
			}
			return retry.Tried(err, n)
		}
		pol.Announce(n, delay, err)
		if err := retry.Wait(ctx, delay); err != nil {
			rr.abort()
			return err
		}
	}
}

// retryRun is deliver's output and how much of the resource it holds.
type retryRun struct {
	s     sink            // nil before the first response, and once committed
	pos   int64           // the byte of the resource the output holds up to
	whole bool            // ask for the resource whole and skip what the output has
	resp  *fetch.Response // the last response
}

// attempt fetches u once, from the byte the output holds unless whole,
// and copies the response into the output, opening it on the first
// response (openFirst).
func (rr *retryRun) attempt(ctx context.Context, c *fetch.Client, ck *fetch.Checked, req *proto.Request, d *dest, o *getOptions, e *env, red *redactor) error {
	if rr.s != nil && !rr.whole {
		req.Offset = rr.pos
	}
	resp, err := c.FetchChecked(ctx, ck, req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	rr.resp = resp
	if rr.s == nil {
		if rr.s, err = openFirst(resp, d, o, e, red); err != nil || rr.s == nil {
			return err
		}
		rr.pos = resp.Offset
		// Converted text (TYPE A) has no offsets to resume at: a retry
		// asks for it whole, in the same type, and skips what the
		// output has.
		typ, _ := ftp.TypeOf(&resp.Response)
		rr.whole = rr.whole || typ == "A"
	}
	if resp.Offset > rr.pos {
		return &finalError{fmt.Errorf("%s: the server resumed at byte %d, not %d", resp.URL.Redacted(), resp.Offset, rr.pos)}
	}
	w := io.Writer(rr.s) // itself when nothing is skipped: a proto.FileWriter stays one
	if skip := rr.pos - resp.Offset; skip > 0 {
		w = &skipWriter{w: rr.s, skip: skip}
	}
	n, err := copyBody(ctx, w, resp, o, e)
	rr.pos = max(rr.pos, resp.Offset+n)
	if err != nil {
		return err
	}
	return commit(&rr.s, resp, o)
}

// abort drops the output, if one was opened.
func (rr *retryRun) abort() {
	if rr.s != nil {
		rr.s.abort()
	}
}

// commit ends the output *s and forgets it: a sink whose commit fails
// has removed or kept its file itself, and is not aborted again.
func commit(s *sink, resp *fetch.Response, o *getOptions) error {
	done := *s
	*s = nil
	return done.commit(resp, o.remoteTime)
}

// unretryable reports whether deliver's failure err is one that no
// retry can mend: a *finalError, a failure to write the output, the
// end of ctx, or a failure that is not transient.
func unretryable(ctx context.Context, err error) bool {
	var (
		fe *finalError
		we *writeError
	)
	return errors.As(err, &fe) || errors.As(err, &we) || ctx.Err() != nil || !fetch.Transient(err)
}

// openFirst opens the output for deliver's first response. A response
// that is rendered rather than copied (a listing, a menu, --json) is
// written and committed at once, and the sink returned is nil; a failure
// to write it is a *finalError, as is a failure to open the output.
func openFirst(resp *fetch.Response, d *dest, o *getOptions, e *env, red *redactor) (sink, error) {
	o.warnResponse(e, red, resp)
	s, err := d.open(resp, e)
	if err != nil {
		return nil, &finalError{err}
	}
	if resp.Kind == proto.KindData && (!o.json || len(resp.Info) == 0) {
		return s, nil
	}
	if err := render(s, resp, o); err != nil {
		s.abort()
		return nil, &finalError{err}
	}
	return nil, commit(&s, resp, o)
}

// finalError marks a failure of deliver that no retry can mend (the
// output cannot be opened, a listing half written).
type finalError struct{ err error }

func (e *finalError) Error() string { return e.err.Error() }
func (e *finalError) Unwrap() error { return e.err }

// skipWriter passes on what it is given after its first skip bytes.
type skipWriter struct {
	w    io.Writer
	skip int64
}

func (s *skipWriter) Write(p []byte) (int, error) {
	n := len(p)
	if s.skip > 0 {
		k := min(int64(n), s.skip)
		s.skip -= k
		p = p[k:]
	}
	if len(p) > 0 {
		if _, err := s.w.Write(p); err != nil {
			return 0, err
		}
	}
	return n, nil
}
