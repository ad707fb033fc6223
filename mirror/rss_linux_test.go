//go:build linux

package mirror

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/internal/gctune"
	"github.com/rfc1738/fetch/internal/testrig/localserver"
	"github.com/rfc1738/fetch/proto/ftp"
	"github.com/rfc1738/fetch/uri"
)

// rssListing is a LIST answer of n ls -l lines of about 110 bytes.
func rssListing(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "-rw-r--r--   1 ftp      ftp      %8d Jan 01  2024 file-%07d-abcdefghijklmnopqrstuvwxyzabcdefghij.txt\r\n", i, i)
	}
	return b.String()
}

// TestMirrorListingRSS measures, in a child process (this test binary run
// again), the peak resident set of a mirror that lists one FTP directory
// of a large LIST answer, its files all excluded so that the listing
// alone is measured, with the command's collector tuning (gctune). It
// fails when the peak is over rssFactor times the listing (issue: a 60 MB
// listing mirrors under twice its size). The listing is 32 MB by
// default; FETCH_RSS_LISTING_MB sets another size (57 for the 60 MB of
// BENCHMARKS.md).
//
// The driver hands each entry over as its line arrives (proto.Lister) and
// the mirror keeps nothing of a file it excludes, so nothing of the
// listing stays live: the peak is the runtime's own and the garbage that
// gctune lets grow to 64 MB above what is live, whatever the listing's
// size (48 to 53 MB for 32 and 60 MB). A listing held whole, as read and as
// entries, peaks at about 2.6 times its size (60 MB: 156 MB). With the
// race detector, whose shadow memory is several times the heap, the
// bound is raceBase more (32 MB: 130 MB then).
func TestMirrorListingRSS(t *testing.T) {
	if addr := os.Getenv("FETCH_RSS_CHILD"); addr != "" {
		rssChild(t, addr)
		return
	}
	const rssFactor, raceBase = 2, 128 << 20
	mb := 32
	if v := os.Getenv("FETCH_RSS_LISTING_MB"); v != "" {
		mb, _ = strconv.Atoi(v)
	}
	list := rssListing(mb << 20 / 110)
	s := &localserver.RawFTP{Listings: map[string]string{"/": list}}
	if err := localserver.StartRawFTP(s); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestMirrorListingRSS$", "-test.v")
	cmd.Env = append(os.Environ(), "FETCH_RSS_CHILD="+s.Addr(), "GOGC=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`hwm=(\d+)`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("child said no peak:\n%s", out)
	}
	kb, _ := strconv.ParseInt(string(m[1]), 10, 64)
	peak := kb << 10
	t.Logf("LIST of %d bytes: peak RSS %d MB (%.1f times the listing)", len(list), peak>>20, float64(peak)/float64(len(list)))
	limit := rssFactor * int64(len(list))
	if raceDetector {
		limit += raceBase
	}
	if peak > limit {
		t.Errorf("peak RSS %d bytes, over %d (%d times the listing of %d bytes)", peak, limit, rssFactor, len(list))
	}
}

// rssChild mirrors ftp://addr/ with its files excluded and prints the
// process's peak resident set: VmHWM, its own memory's, not getrusage's
// ru_maxrss, which Linux carries over exec from the parent's memory (the
// test's server and its listing) when the child is started with vfork,
// as os/exec does.
func rssChild(t *testing.T, addr string) {
	gctune.Start(os.Getenv)
	d := ftp.New(ftp.Config{PipelinePassive: true})
	defer d.CloseIdleConnections()
	s, err := Run(t.Context(), drivers{"ftp": d}, uri.MustParse("ftp://"+addr+"/"), t.TempDir(), Options{Exclude: []string{"*.txt"}})
	if err != nil || s.Failed != 0 {
		t.Fatalf("Run = %v, %d failed", err, s.Failed)
	}
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^VmHWM:\s+(\d+) kB$`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("no VmHWM in /proc/self/status:\n%s", b)
	}
	fmt.Printf("hwm=%s\n", m[1]) // kilobytes
}
