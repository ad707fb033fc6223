package mirror

import (
	"context"
	"time"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// A Revalidator is a Fetcher that can ask an HTTP server whether many
// files changed at once (http.Driver.Revalidate: conditional GETs
// pipelined on one connection, the responses read in order). same[i]
// reports that files[i] was answered 304 Not Modified to the condition
// since[i]; false leaves files[i] to its own conditional fetch. A re-run
// asks it for the files of each directory whose index page cannot tell
// a change (revalidate); without it, each such file is asked for in turn.
type Revalidator interface {
	Revalidate(ctx context.Context, dir *uri.URL, req *proto.Request, files []*uri.URL, since []time.Time) (same []bool, err error)
}

// revalidate asks, all at once, whether the files of d's listing l that
// would be fetched on condition (condition: an index page gave no size or
// time) changed, from a Fetcher that is a Revalidator. A file answered
// 304 takes the size and time recorded, so that it is found unchanged
// (unchanged) without a request of its own. A dry run asks nothing; a
// failure leaves each file to its own request.
func (r *run) revalidate(ctx context.Context, d dirJob, l *listing) {
	rv, ok := r.f.(Revalidator)
	if !ok || r.opts.DryRun || len(l.files) == 0 {
		return
	}
	var (
		idx   []int
		urls  []*uri.URL
		since []time.Time
		recs  []Record
	)
	for i, rf := range l.files {
		if rf.link != "" || rf.size >= 0 || !rf.mtime.IsZero() || r.opts.excludes(rf.rel, false) {
			continue
		}
		rec, known := r.m.get(rf.rel)
		if !known {
			continue
		}
		t := condition(rf, r.stat(rf.rel), rec)
		if t.IsZero() {
			continue
		}
		idx, urls, since, recs = append(idx, i), append(urls, rf.url()), append(since, t), append(recs, rec)
	}
	if len(urls) == 0 {
		return
	}
	same, _ := rv.Revalidate(ctx, d.url, r.request(proto.Options{}), urls, since)
	for j, i := range idx {
		if j < len(same) && same[j] {
			l.files[i].size, l.files[i].mtime = recs[j].Size, recs[j].ModTime
		}
	}
}
