package mirror

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch/fetchtest"
	"github.com/rfc1738/fetch/internal/testrig/faultproxy"
	"github.com/rfc1738/fetch/proto/nntp"
	"github.com/rfc1738/fetch/retry"
	"github.com/rfc1738/fetch/uri"
)

// checkNews checks that dir holds the 36 article files of fillNews.
func checkNews(t *testing.T, dir string) {
	t.Helper()
	n := 0
	for g, last := range map[string]int{"a": 18, "b": 18} {
		for i := 1; i <= last; i++ {
			if _, err := os.Stat(filepath.Join(dir, "n", g, fmt.Sprint(i))); err == nil {
				n++
			}
		}
	}
	if n != 36 {
		t.Errorf("%d article files, want 36", n)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "n", "a", "2")); string(got) != article(2, "n.a") {
		t.Errorf("n/a/2 = %q", got)
	}
}

// A news mirror through a connection cut or reset (while it lists the
// groups, reads an overview or reads articles) tries the failed work
// again on a new connection, as the file mirror does: the groups are
// listed again, a chunk goes on from the first article it had not
// stored; the run ends complete, with no failure reported. Before, the
// group failed and the run was partial.
func TestNewsMirrorRetries(t *testing.T) {
	srv := &fetchtest.NNTP{Over: "OVER"}
	fillNews(srv)
	srv.Start(t)
	// The bytes of a whole run on one connection, for where to cut.
	p0, err := faultproxy.Start(faultproxy.Config{Target: srv.Addr})
	if err != nil {
		t.Fatal(err)
	}
	mirrorNews(t, "nntp://"+p0.Addr()+"/n.*", t.TempDir(), newsRunOpts(1))
	total := p0.Stats().Down
	p0.Close()
	for _, kind := range []faultproxy.Kind{faultproxy.Cut, faultproxy.Reset} {
		for _, frac := range []int64{2, 10, 40, 75, 95} { // per cent of the run
			for _, policy := range []string{"policy", "nil"} {
				name := map[faultproxy.Kind]string{faultproxy.Cut: "cut", faultproxy.Reset: "reset"}[kind]
				t.Run(fmt.Sprintf("%s/%d%%/%s", name, frac, policy), func(t *testing.T) {
					p, err := faultproxy.Start(faultproxy.Config{Target: srv.Addr,
						Faults: []faultproxy.Fault{{Kind: kind, Count: 1, After: total * frac / 100}}})
					if err != nil {
						t.Fatal(err)
					}
					defer p.Close()
					opts := newsRunOpts(1)
					if policy == "policy" {
						opts.Retry = quick(3)
					}
					dir := t.TempDir()
					sum := mirrorNews(t, "nntp://"+p.Addr()+"/n.*", dir, opts)
					if sum.New != 36 || sum.Failed != 0 {
						t.Errorf("new %d, failed %d: %+v", sum.New, sum.Failed, sum.Entries)
					}
					if st := p.Stats(); st.Faults != 1 {
						t.Errorf("%d faults injected", st.Faults)
					}
					checkNews(t, dir)
				})
			}
		}
	}
}

// A fault on every connection outlasts the policy: the run is partial,
// names what failed, and keeps each group's high water mark below its
// first article not stored, so that the next run fetches the rest.
func TestNewsMirrorRetriesGiveUp(t *testing.T) {
	srv := &fetchtest.NNTP{Over: "OVER"}
	fillNews(srv)
	srv.Start(t)
	p, err := faultproxy.Start(faultproxy.Config{Target: srv.Addr,
		Faults: []faultproxy.Fault{{Kind: faultproxy.Cut, After: 400}}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	dir := t.TempDir()
	opts := newsRunOpts(1)
	opts.Retry = quick(2)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	sum, err := Run(ctx, newsFetcher{&nntp.Driver{}}, uri.MustParse("nntp://"+p.Addr()+"/n.*"), dir, opts)
	if !errors.Is(err, ErrPartial) || sum.Failed == 0 {
		t.Fatalf("Run = %v, failed %d; want ErrPartial", err, sum.Failed)
	}
	if sum.New >= 36 {
		t.Errorf("new %d through a cut on every connection", sum.New)
	}
	if st := p.Stats(); st.Faults < 3 {
		t.Errorf("%d faults: the work was not tried again", st.Faults)
	}
	sum = mirrorNews(t, "nntp://"+srv.Addr+"/n.*", dir, newsRunOpts(1))
	if sum.Failed != 0 {
		t.Errorf("next run: %+v", sum)
	}
	checkNews(t, dir)
}

// A news server that allows fewer connections than Jobs (a limit per
// host, or a provider's per account) refuses the others with a "too many
// connections" reply: those workers give their place up and the others
// mirror everything, as the file mirror does, and the run says so. Before,
// each refused worker failed its group after the retries, and the run was
// partial.
func TestNewsMirrorFewerConnections(t *testing.T) {
	srv := &fetchtest.NNTP{Over: "OVER"}
	fillNews(srv)
	srv.AddGroup("n.c")
	srv.AddGroup("n.d")
	srv.Start(t)
	for _, tc := range []struct{ allowed, jobs int }{{2, 4}, {1, 3}} {
		t.Run(fmt.Sprintf("%d of %d", tc.allowed, tc.jobs), func(t *testing.T) {
			// The delay keeps the first connection busy while the other
			// workers take their groups and ask for theirs: on the bare
			// loopback one worker could do all four groups first.
			p, err := faultproxy.Start(faultproxy.Config{Target: srv.Addr, MaxConns: tc.allowed, Delay: 5 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			opts := newsRunOpts(tc.jobs)
			opts.Retry = quick(3)
			dir := t.TempDir()
			sum := mirrorNews(t, "nntp://"+p.Addr()+"/n.*", dir, opts)
			if sum.New != 36 || sum.Failed != 0 {
				t.Errorf("new %d, failed %d: %+v", sum.New, sum.Failed, sum.Entries)
			}
			checkNews(t, dir)
			// How many workers give their place up depends on how many
			// asked for a connection while the others held theirs: at
			// least one, and never the last.
			var kept int
			if len(sum.Notices) != 1 || !strings.Contains(sum.Notices[0], "the mirror went on with") {
				t.Fatalf("notices %q, want one saying the mirror went on with fewer connections", sum.Notices)
			}
			fmt.Sscanf(sum.Notices[0][strings.Index(sum.Notices[0], "went on with"):], "went on with %d of", &kept)
			if kept < tc.allowed || kept >= tc.jobs {
				t.Errorf("notice %q: went on with %d, want %d to %d", sum.Notices[0], kept, tc.allowed, tc.jobs-1)
			}
			if st := p.Stats(); st.Refused == 0 {
				t.Error("no connection refused: the test tests nothing")
			}
		})
	}
}

// A news mirror whose server refuses every session gives up after the
// policy's attempts and says how many it made.
func TestNewsMirrorStartAttempts(t *testing.T) {
	srv := &fetchtest.NNTP{Over: "OVER"}
	fillNews(srv)
	srv.Start(t)
	p, err := faultproxy.Start(faultproxy.Config{Target: srv.Addr, Faults: []faultproxy.Fault{{Kind: faultproxy.Refuse}}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	opts := newsRunOpts(1)
	var l retryLog
	opts.Retry = l.policy(2)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	_, err = Run(ctx, newsFetcher{&nntp.Driver{}}, uri.MustParse("nntp://"+p.Addr()+"/n.*"), t.TempDir(), opts)
	var ae *retry.AttemptsError
	if !errors.As(err, &ae) || ae.Attempts != 3 || len(l.calls) != 2 {
		t.Errorf("Run = %v, retries announced %q; want 3 attempts, 2 announced", err, l.calls)
	}
}
