package main

import (
	"cmp"
	"context"
	"io"
	"os"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/proto"
)

// progress returns the writer to copy resp's body into (w itself, or w
// behind a counter that moves the bar) and the function to call when the
// copy ends. A bar is drawn on stderr only when stderr is a terminal, and
// neither -s nor -v is given.
//
// The bar counts on the writer's side, not the reader's: the copy then
// stays free to use the body's WriteTo, whose large reads a counting
// reader would hide (or, wrapping WriteTo itself, count only at the end).
func (o *getOptions) progress(ctx context.Context, w io.Writer, resp *fetch.Response, e *env) (io.Writer, func(ok bool)) {
	if o.tally != nil { // -Z: the run's one bar counts the bytes (parallel.go)
		return tallyWriter{w: w, count: func(n int64) { o.tally.Add(n) }}, func(bool) {}
	}
	if o.silent || o.verbose || !e.stderrTTY {
		return w, func(bool) {}
	}
	p := mpb.NewWithContext(ctx, mpb.WithOutput(e.err), mpb.WithAutoRefresh(), mpb.WithWidth(termCols(e.err)))
	label := cmp.Or(urlName(resp.URL), resp.URL.Hostname())
	start := time.Now()
	bar := p.AddBar(0, mpb.BarWidth(barCols),
		mpb.PrependDecorators(nameDecor(label)),
		mpb.AppendDecorators(
			decor.Any(fileCounters, decor.WCSyncSpace),
			decor.Any(func(s decor.Statistics) string {
				rate := float64(s.Current-resp.Offset) / max(time.Since(start).Seconds(), 1e-3)
				return humanBytes(int64(rate)) + "/s"
			}, decor.WCSyncSpace)))
	bar.SetTotal(max(resp.Size, 0), false)
	if resp.Offset > 0 {
		bar.SetCurrent(resp.Offset)
	}
	// The time since the previous write feeds the bar's moving average
	// of the speed.
	last := time.Now()
	count := func(n int64) {
		now := time.Now()
		bar.EwmaIncrInt64(n, now.Sub(last))
		last = now
	}
	return tallyWriter{w: w, count: count}, func(ok bool) {
		if ok {
			bar.SetTotal(-1, true)
		} else {
			bar.Abort(false)
		}
		p.Wait()
	}
}

// tallyWriter passes what is written through it on to w, and tells count
// how many bytes went.
type tallyWriter struct {
	w     io.Writer
	count func(n int64)
}

// WriterFile, Wrote and FileError pass w's proto.FileWriter on, counting
// the bytes moved into the file directly.
func (c tallyWriter) WriterFile() *os.File {
	if fw, ok := c.w.(proto.FileWriter); ok {
		return fw.WriterFile()
	}
	return nil
}

func (c tallyWriter) Wrote(n int64) {
	c.w.(proto.FileWriter).Wrote(n)
	c.count(n)
}

func (c tallyWriter) FileError(err error) error { return c.w.(proto.FileWriter).FileError(err) }

func (c tallyWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.count(int64(n))
	return n, err
}
