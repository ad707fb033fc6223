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
		return tallyWriter{w: w, n: o.tally}, func(bool) {}
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
	return &barWriter{w: w, bar: bar, last: time.Now()}, func(ok bool) {
		if ok {
			bar.SetTotal(-1, true)
		} else {
			bar.Abort(false)
		}
		p.Wait()
	}
}

// barWriter moves a bar by what is written through it; the time since the
// previous write feeds the bar's moving average of the speed.
type barWriter struct {
	w    io.Writer
	bar  *mpb.Bar
	last time.Time
}

// WriterFile, Wrote and FileError pass w's proto.FileWriter on, counting
// the bytes moved into the file directly.
func (b *barWriter) WriterFile() *os.File {
	if fw, ok := b.w.(proto.FileWriter); ok {
		return fw.WriterFile()
	}
	return nil
}

func (b *barWriter) Wrote(n int64) {
	b.w.(proto.FileWriter).Wrote(n)
	now := time.Now()
	b.bar.EwmaIncrInt64(n, now.Sub(b.last))
	b.last = now
}

func (b *barWriter) FileError(err error) error { return b.w.(proto.FileWriter).FileError(err) }

func (b *barWriter) Write(p []byte) (int, error) {
	n, err := b.w.Write(p)
	now := time.Now()
	b.bar.EwmaIncrBy(n, now.Sub(b.last))
	b.last = now
	return n, err
}
