package main

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/safety"
)

// "fetch get -Z": the URLs of one command fetched several at a time, after
// curl's -Z/--parallel and --parallel-max. The default of --parallel-max
// is 8, not 50: every FTP transfer holds a login, and small archive servers
// allow an address a handful of sessions. Data for stdout is written in
// the order of the URLs: the first unfinished one streams, the others are
// held (in memory up to spoolMemory in all, then in an unlinked temporary
// file). The exit status follows the rules of several URLs without -Z
// (exitFor). Why these differ from curl: docs/deviations.md.
//
// Per server, the transfers share connections: FTP logins are kept and
// reused by the workers (at most --parallel-max per server and user), each
// pipelining its passive-mode commands (ftp.Driver.PipelinePassive); HTTP
// connections are kept alive; the other schemes simply run at once.

const (
	// defaultParallelMax is --parallel-max when not given (see above).
	defaultParallelMax = 8
	// maxParallelMax bounds --parallel-max, as curl does.
	maxParallelMax = 300
	// spoolMemory bounds the stdout data held in memory, for all URLs
	// together, while earlier URLs are still being fetched; beyond it a
	// URL's data goes to a temporary file.
	spoolMemory = 16 << 20
)

// checkParallel checks -Z, --parallel-max (which acts only with -Z) and
// the flags -Z cannot go with.
func (o *getOptions) checkParallel() error {
	switch {
	case !o.parallel && o.parallelMaxSet:
		return flagErrorf("--parallel-max needs -Z")
	case !o.parallel:
		return nil
	case o.parallelMax < 1 || o.parallelMax > maxParallelMax:
		return flagErrorf("--parallel-max %d: want 1 to %d", o.parallelMax, maxParallelMax)
	case o.interactive:
		return flagErrorf("-Z and --interactive exclude each other: a session needs the terminal alone")
	}
	return nil
}

// runParallel is runGet with -Z: up to --parallel-max URLs at a time.
func runParallel(ctx context.Context, o *getOptions, args []arg, e *env) (err error) {
	red := redactorOf(args)
	w, err := o.warc.open(e, red) // before the bar, which a failure would leave drawn
	if err != nil {
		return err
	}
	po := *o // the workers' options: o with the bar's byte counter
	pe := *e // the workers' env: prompts one at a time, stderr above the bar
	if e.prompt != nil {
		pe.prompt = &lockedPrompter{p: e.prompt}
	}
	bar := o.overallBar(ctx, e)
	if bar != nil {
		po.tally = &bar.bytes
		pe.err = above(bar.p, e.err)
	}
	c := po.client(&pe, red, o.commandDrivers())
	defer c.CloseIdleConnections()
	c.WARC = w
	defer closeWARC(c, e, &err) // after bar.wait: its messages below the bar
	po.warnAllowPorts(&pe)

	out := newOrdered(e.out, len(o.urls))
	codes := make([]int, len(o.urls))
	ran := make([]bool, len(o.urls))
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range min(o.parallelMax, len(o.urls)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				we := pe
				we.out = out.slot(i)
				we.stderrTTY = false // no bar per URL: the overall one counts
				err := getOne(ctx, c, args[i], &po, &we, red)
				out.finish(i)
				if err != nil && ctx.Err() == nil { // an interruption is said once, at the end
					fmt.Fprintf(pe.err, "fetch: %s\n", urlMessage(red, o.urls[i], err))
				}
				codes[i], ran[i] = codeOf(err), true
				bar.done()
			}
		}()
	}
	for i := range o.urls {
		if ctx.Err() != nil {
			break
		}
		select {
		case jobs <- i:
		case <-ctx.Done():
		}
	}
	close(jobs)
	wg.Wait()
	bar.wait(ctx.Err() == nil)

	var got []int
	for i := range o.urls {
		if !ran[i] {
			continue // not started before the cancellation
		}
		if err := out.err(i); err != nil && codes[i] == fetch.ExitOK {
			err = &writeError{err}
			fmt.Fprintf(e.err, "fetch: %s\n", urlMessage(red, o.urls[i], err))
			codes[i] = codeOf(err)
		}
		got = append(got, codes[i])
	}
	return exitFor(got)
}

// urlMessage is the text of err, a failure to fetch raw, for people: it
// names the URL (redacted) when the error itself does not.
func urlMessage(red *redactor, raw string, err error) string {
	msg := red.redact(message(err))
	if name := safety.Redact(raw); !strings.Contains(msg, name) {
		msg = name + ": " + msg
	}
	return msg
}

// lockedPrompter asks one question at a time: two workers that both need
// a password must not share the terminal.
type lockedPrompter struct {
	mu sync.Mutex
	p  proto.Prompter
}

func (l *lockedPrompter) Ask(ctx context.Context, prompt string, echo bool) (string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.p.Ask(ctx, prompt, echo)
}

// ordered writes the stdout data of several URLs in the order of the URLs:
// the first URL not yet finished (the head) writes through, the others
// into their spool, which is written out when they become the head.
// It is safe for concurrent use.
type ordered struct {
	w      io.Writer
	memMax int64 // spoolMemory; tests lower it

	mu    sync.Mutex
	head  int
	mem   int64 // bytes held in memory by all spools
	slots []orderedSlot
}

type orderedSlot struct {
	done bool
	buf  bytes.Buffer
	file *os.File // the spool once memory is spent; unlinked
	err  error    // the first failure to write this URL's data to w
}

func newOrdered(w io.Writer, n int) *ordered {
	return &ordered{w: w, memMax: spoolMemory, slots: make([]orderedSlot, n)}
}

// slot returns the writer of URL i.
func (o *ordered) slot(i int) io.Writer { return slotWriter{o: o, i: i} }

type slotWriter struct {
	o *ordered
	i int
}

func (s slotWriter) Write(p []byte) (int, error) {
	o := s.o
	o.mu.Lock()
	defer o.mu.Unlock()
	sl := &o.slots[s.i]
	if s.i == o.head {
		if _, err := o.w.Write(p); err != nil {
			sl.err = cmp.Or(sl.err, err)
			return 0, err
		}
		return len(p), nil
	}
	if sl.file == nil && o.mem+int64(len(p)) > o.memMax {
		if err := o.spill(sl); err != nil {
			return 0, err
		}
	}
	if sl.file != nil {
		return sl.file.Write(p)
	}
	o.mem += int64(len(p))
	return sl.buf.Write(p)
}

// spill moves sl's data from memory to a temporary file, which is unlinked
// at once (it disappears with the process, even after a crash).
func (o *ordered) spill(sl *orderedSlot) error {
	f, err := os.CreateTemp("", "fetch-stdout-*")
	if err != nil {
		return err
	}
	os.Remove(f.Name())
	if _, err := f.Write(sl.buf.Bytes()); err != nil {
		f.Close()
		return err
	}
	o.mem -= int64(sl.buf.Len())
	sl.buf = bytes.Buffer{}
	sl.file = f
	return nil
}

// finish marks URL i done (fetched or failed); when it was the head, the
// held data of the next URLs is written out, up to the next one that is
// still running, which becomes the head.
func (o *ordered) finish(i int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.slots[i].done = true
	for o.head < len(o.slots) && o.slots[o.head].done {
		o.head++
		if o.head < len(o.slots) {
			o.flush(&o.slots[o.head])
		}
	}
}

// flush writes sl's held data to w and frees it.
func (o *ordered) flush(sl *orderedSlot) {
	var err error
	if sl.file != nil {
		if _, err = sl.file.Seek(0, io.SeekStart); err == nil {
			_, err = io.Copy(o.w, sl.file)
		}
		sl.file.Close()
		sl.file = nil
	} else if sl.buf.Len() > 0 {
		o.mem -= int64(sl.buf.Len())
		_, err = o.w.Write(sl.buf.Bytes())
		sl.buf = bytes.Buffer{}
	}
	sl.err = cmp.Or(sl.err, err)
}

// err is the first failure to write URL i's data to w.
func (o *ordered) err(i int) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.slots[i].err
}

// parallelBar is the one progress bar of a -Z run: URLs done out of all,
// bytes received and the mean speed. Its methods do nothing on nil.
type parallelBar struct {
	p     *mpb.Progress
	bar   *mpb.Bar
	bytes atomic.Int64
}

// overallBar returns the bar of a -Z run, or nil when none is drawn: as
// for one URL, only on a terminal and without -s or -v.
func (o *getOptions) overallBar(ctx context.Context, e *env) *parallelBar {
	if o.silent || o.verbose || !e.stderrTTY {
		return nil
	}
	b := &parallelBar{}
	b.p = mpb.NewWithContext(ctx, mpb.WithOutput(e.err), mpb.WithAutoRefresh(), mpb.WithWidth(40))
	start := time.Now()
	b.bar = b.p.AddBar(int64(len(o.urls)),
		mpb.PrependDecorators(
			decor.Name("URLs", decor.WCSyncSpaceR),
			decor.CountersNoUnit("%d / %d", decor.WCSyncSpace)),
		mpb.AppendDecorators(
			decor.Any(func(decor.Statistics) string {
				n := b.bytes.Load()
				rate := float64(n) / max(time.Since(start).Seconds(), 1e-3)
				return humanBytes(n) + "  " + humanBytes(int64(rate)) + "/s"
			}, decor.WCSyncSpace)))
	return b
}

// done counts one URL as finished.
func (b *parallelBar) done() {
	if b != nil {
		b.bar.Increment()
	}
}

// wait ends the bar (complete, or aborted after a cancellation) and waits
// for its last drawing.
func (b *parallelBar) wait(complete bool) {
	if b == nil {
		return
	}
	if complete {
		b.bar.SetTotal(-1, true)
	} else {
		b.bar.Abort(false)
	}
	b.p.Wait()
}
