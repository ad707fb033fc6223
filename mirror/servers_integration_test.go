package mirror

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rfc1738/fetch/internal/testrig/servertest"
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/proto/ftp"
	"github.com/rfc1738/fetch/proto/http"
	"github.com/rfc1738/fetch/retry"
	"github.com/rfc1738/fetch/uri"
)

// Mirrors from the servers of scripts/servers.sh besides vsftpd and nginx:
// ProFTPD and Pure-FTPd (listing with MLSD, and with LIST), Apache's three
// mod_autoindex styles and lighttpd's mod_dirlisting. Each mirror is
// interrupted in the middle of bin5m.bin, run again (it resumes that file
// from its partial download), compared byte for byte with the fixture,
// and run a third time, which changes nothing.

// errInterrupted is the failure of the transfer that a cutFetcher cuts.
var errInterrupted = errors.New("transfer interrupted by the test")

// cutFetcher passes requests to f; the first transfer of a file named
// name is cut after `after` bytes, and cancel (the run's context) is
// called then, as an interrupted run would stop.
type cutFetcher struct {
	f      Fetcher
	name   string
	after  int64
	cancel context.CancelFunc

	mu  sync.Mutex
	cut bool
}

func (c *cutFetcher) Fetch(ctx context.Context, u *uri.URL, req *proto.Request) (*proto.Response, error) {
	resp, err := c.f.Fetch(ctx, u, req)
	p, _, _ := strings.Cut(u.Path, ";") // an ftp URL's ;type=i
	if err != nil || resp.Body == nil || !strings.HasSuffix(p, "/"+c.name) {
		return resp, err
	}
	c.mu.Lock()
	first := !c.cut
	c.cut = true
	c.mu.Unlock()
	if first {
		resp.Body = &cutBody{ReadCloser: resp.Body, left: c.after, cancel: c.cancel}
	}
	return resp, nil
}

func (c *cutFetcher) wasCut() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cut
}

type cutBody struct {
	io.ReadCloser
	left   int64
	cancel context.CancelFunc
}

func (b *cutBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		b.cancel()
		return 0, errInterrupted
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	return n, err
}

// interruptedMirror runs a mirror of start into dir that is interrupted
// once `have` bytes of bin5m.bin have arrived, then runs it again and
// checks that bin5m.bin was resumed. It returns the second run's summary
// and error.
func interruptedMirror(t *testing.T, f Fetcher, start *uri.URL, dir string, opts Options) (*Summary, error) {
	t.Helper()
	const have = 1<<20 + 4321
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cctx, ccancel := context.WithCancel(ctx)
	cf := &cutFetcher{f: f, name: "bin5m.bin", after: have, cancel: ccancel}
	_, err := Run(cctx, cf, start, dir, opts)
	ccancel()
	if !cf.wasCut() {
		t.Fatalf("first run = %v, and bin5m.bin was never fetched", err)
	}
	if err == nil {
		t.Fatalf("first run ended without an error, though it was interrupted")
	}
	part, perr := os.Stat(filepath.Join(dir, partialDir, "bin5m.bin"))
	if perr != nil || part.Size() != have {
		t.Fatalf("after the interruption (%v): partial bin5m.bin %v, want %d bytes", err, perr, have)
	}
	if _, err := os.Lstat(filepath.Join(dir, "bin5m.bin")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("bin5m.bin is at its final name after the interruption (%v)", err)
	}
	sum, err := Run(ctx, f, start, dir, opts)
	found := false
	for _, e := range sum.Entries {
		if e.Path == "bin5m.bin" {
			found = true
			if e.Bytes != servertest.Bin5MSize-have {
				t.Errorf("bin5m.bin: %d bytes received on the second run, want %d (resumed at %d)", e.Bytes, servertest.Bin5MSize-have, have)
			}
		}
	}
	if !found {
		t.Errorf("second run did not fetch bin5m.bin")
	}
	return sum, err
}

// TestOtherFTPMirror mirrors pub/ from ProFTPD and Pure-FTPd, listing with
// MLSD and with LIST: as TestVsftpdMirrorPub, noread.txt (RETR 550) and
// noaccess (CWD 550) fail and the run ends with ErrPartial.
func TestOtherFTPMirror(t *testing.T) {
	for _, name := range []string{servertest.ProFTPD, servertest.PureFTPD} {
		for _, list := range []string{"MLSD", "LIST"} {
			t.Run(name+"/"+list, func(t *testing.T) {
				s := servertest.Get(t, name)
				pub := servertest.Fixture(t, "ftp/pub")
				ip := servertest.UniqueLoopback(t)
				// As fetch.Client.Mirror sets it up.
				drv := ftp.New(ftp.Config{MaxIdleConnsPerHost: 8, PipelinePassive: true, DisableMLSD: list == "LIST"})
				defer drv.CloseIdleConnections()
				// Retried as the command retries (--retry 3): under the
				// load of the whole suite, Pure-FTPd now and then finds
				// no passive port it can bind ("425 Unable to identify
				// the local data socket: Address already in use") twice
				// in a row, which the one immediate retry of a nil Retry
				// does not outlast. A permanent failure is not retried.
				opts := Options{Jobs: 8, Request: fromIP(ip), Exclude: []string{"scratch-*"},
					Retry: quick(3)}
				start := uri.MustParse("ftp://" + s.Addr + "/pub/")
				dir := t.TempDir()
				ignore := func(rel string, d fs.DirEntry) bool {
					// Names that begin with a dot are mirrored, whether
					// listed by MLSD or by LIST -a. Scratch trees of other
					// tests are not part of the fixture; the refused
					// entries are checked below.
					return strings.HasPrefix(rel, "scratch-") || rel == "noread.txt" || rel == "noaccess" || notLocal(rel)
				}
				// ProFTPD's MLSD gives no link target (type=OS.unix=symlink):
				// the driver asks LIST -d for it, and the link is made
				// again (it was skipped before).

				sum, err := interruptedMirror(t, drivers{"ftp": drv}, start, dir, opts)
				drv.CloseIdleConnections()
				if !errors.Is(err, ErrPartial) {
					t.Fatalf("second run = %v, want ErrPartial (noread.txt, noaccess)", err)
				}
				failed := map[string]string{}
				for _, e := range sum.Entries {
					if e.Status == StatusFailed && !errors.Is(e.err, errNotLocal) {
						failed[e.Path] = e.Reason
					}
				}
				if len(failed) != 2 || failed["noread.txt"] == "" || failed["noaccess"] == "" {
					t.Errorf("failed %q, want noread.txt and noaccess", failed)
				}
				n := compareTree(t, pub, dir, ignore)
				if n < servertest.ManyFiles+17 {
					t.Errorf("compared %d files and links, want at least %d", n, servertest.ManyFiles+17)
				}
				for _, p := range []string{"noread.txt", "noaccess"} {
					if _, err := os.Lstat(filepath.Join(dir, p)); !errors.Is(err, fs.ErrNotExist) {
						t.Errorf("%s: exists in the mirror (%v)", p, err)
					}
				}
				t.Logf("%s with %s: %d files and links; second run %d new, %d unchanged, %d skipped in %v",
					name, list, n, sum.New, sum.Unchanged, sum.Skipped, sum.Duration.Round(time.Millisecond))

				ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
				defer cancel()
				sum, err = Run(ctx, drivers{"ftp": drv}, start, dir, opts)
				drv.CloseIdleConnections()
				if !errors.Is(err, ErrPartial) || sum.Unchanged != n || sum.New+sum.Updated != 0 || sum.Failed-notLocalFailed(sum) != 2 {
					t.Errorf("third run = %v, unchanged %d (want %d) new %d updated %d failed %d", err, sum.Unchanged, n, sum.New, sum.Updated, sum.Failed)
				}
			})
		}
	}
}

// TestOtherHTTPMirror mirrors DIR/www from Apache's three mod_autoindex
// styles and from lighttpd's mod_dirlisting.
func TestOtherHTTPMirror(t *testing.T) {
	for _, tc := range []struct{ name, server, path string }{
		{"apache fancy", servertest.Apache, "/fancy/"},
		{"apache table", servertest.Apache, "/table/"},
		{"apache plain", servertest.Apache, "/plain/"},
		{"lighttpd", servertest.Lighttpd, "/"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := servertest.Get(t, tc.server)
			src := servertest.Fixture(t, "www")
			dir := t.TempDir()
			f := drivers{"http": &http.Driver{}}
			start := uri.MustParse("http://" + s.Addr + tc.path)
			// lighttpd answers 503 to a listing asked for while it
			// builds another one (other tests' mirrors of the same
			// server run meanwhile): retried as the command does.
			opts := Options{Jobs: 4, Retry: &retry.Policy{Max: 5, Base: 100 * time.Millisecond, Cap: time.Second}}
			sum, err := interruptedMirror(t, f, start, dir, opts)
			if !partialForNames(err, sum) || sum.Skipped != 0 {
				t.Fatalf("second run = %v, failed %d skipped %d: %+v", err, sum.Failed, sum.Skipped, sum.Entries)
			}
			ignore := func(rel string, d fs.DirEntry) bool {
				return strings.HasPrefix(filepath.Base(rel), ".") || notLocal(rel)
			}
			n := compareTree(t, src, dir, ignore)
			if n < 10 {
				t.Errorf("compared %d files, want at least 10", n)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			sum, err = Run(ctx, f, start, dir, opts)
			if !partialForNames(err, sum) || sum.Unchanged != n || sum.New+sum.Updated != 0 {
				t.Errorf("third run = %v, unchanged %d (want %d) new %d updated %d", err, sum.Unchanged, n, sum.New, sum.Updated)
			}
			compareTree(t, src, dir, ignore)
		})
	}
}
