package main

import (
	"context"
	"io"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/rfc1738/fetch/fetch"
)

// progress returns the reader to copy resp's body from and the function
// to call when the copy ends. A bar is drawn on stderr only when stderr is
// a terminal, and neither -s nor -v is given.
func (o *getOptions) progress(ctx context.Context, resp *fetch.Response, e *env) (io.Reader, func(ok bool)) {
	if o.silent || o.verbose || !e.stderrTTY {
		return resp.Body, func(bool) {}
	}
	p := mpb.NewWithContext(ctx, mpb.WithOutput(e.err), mpb.WithAutoRefresh(), mpb.WithWidth(40))
	total := max(resp.Size, 0)
	label := urlName(resp.URL)
	if label == "" {
		label = resp.URL.Hostname()
	}
	bar := p.AddBar(total,
		mpb.PrependDecorators(decor.Name(clean(label), decor.WCSyncSpaceR)),
		mpb.AppendDecorators(
			decor.CountersKibiByte("% .1f / % .1f", decor.WCSyncSpace),
			decor.EwmaSpeed(decor.SizeB1024(0), "% .1f", 30, decor.WCSyncSpace)))
	if resp.Offset > 0 {
		bar.SetCurrent(resp.Offset)
	}
	return bar.ProxyReader(resp.Body), func(ok bool) {
		if ok {
			bar.SetTotal(-1, true)
		} else {
			bar.Abort(false)
		}
		p.Wait()
	}
}
