package mirror

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch/fetchtest"
	"github.com/rfc1738/fetch/internal/testrig/faultproxy"
	"github.com/rfc1738/fetch/proto/nntp"
	"github.com/rfc1738/fetch/uri"
)

// BenchmarkNewsSparse mirrors, from a server without an overview and
// through a proxy that adds a delay each way (10 and 50 ms round trips),
// a group whose numbers run to 500 and which holds five articles: with
// LISTGROUP, with STATs of every number 64 in flight, and one STAT at a
// time (as before NewsNumberer; at 10 ms only, 500 round trips). Each run
// mirrors into a new directory.
//
//	go test -run='^$' -bench=NewsSparse -benchtime=3x ./mirror
func BenchmarkNewsSparse(b *testing.B) {
	for _, tc := range []struct {
		name      string
		listGroup string
		oneByOne  bool
		delay     time.Duration
	}{
		{"10ms/listgroup", "range", false, 5 * time.Millisecond},
		{"10ms/stat-pipelined", "", false, 5 * time.Millisecond},
		{"10ms/stat-one-by-one", "", true, 5 * time.Millisecond},
		{"50ms/listgroup", "range", false, 25 * time.Millisecond},
		{"50ms/stat-pipelined", "", false, 25 * time.Millisecond},
	} {
		b.Run(tc.name, func(b *testing.B) {
			srv := &fetchtest.NNTP{ListGroup: tc.listGroup}
			for i, n := range []int64{1, 7, 200, 350, 500} {
				srv.Post(article(i, "old.g"), []string{"old.g"}, []int64{n})
			}
			srv.Start(b)
			px, err := faultproxy.Start(faultproxy.Config{Target: srv.Addr, Delay: tc.delay})
			if err != nil {
				b.Fatal(err)
			}
			defer px.Close()
			var f Fetcher = newsFetcher{&nntp.Driver{}}
			if tc.oneByOne {
				f = oneByOne{newsFetcher{&nntp.Driver{}}}
			}
			u := uri.MustParse("nntp://" + px.Addr() + "/old.*")
			for i := 0; b.Loop(); i++ {
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				sum, err := Run(ctx, f, u, b.TempDir()+fmt.Sprint(i), newsRunOpts(1))
				cancel()
				if err != nil || sum.New != 5 {
					b.Fatalf("%+v, %v", sum, err)
				}
			}
		})
	}
}
