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
	"syscall"
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
// fails when the peak is over rssFactor times the listing plus
// rssBase. The listing is 32 MB by default; FETCH_RSS_LISTING_MB sets
// another size (57 for the 60 MB of BENCHMARKS.md).
//
// What stays live at the peak is the listing, held once as the strings
// its entries' names share, and its entries (a proto.Entry is 120 bytes,
// about the size of an ls line): twice the listing. Above 64 MB of live
// heap gctune lets the heap grow by at most as much again (by half above
// 128 MB), and below it 64 MB above what is live; so the peak
// may reach about four times the listing, or twice it plus 64 MB, plus
// the runtime's own. The bound allows that, and no more: the copies taken
// out (the bytes as read beside their string, a buffer grown by copying,
// a row per line, an Extra map per entry, the mirror's state for files it
// excludes) put the peak above it, together (32 MB: 205-246 MB before, 112-134
// MB after; 60 MB: 366-458 MB before, 155-207 MB after).
func TestMirrorListingRSS(t *testing.T) {
	if addr := os.Getenv("FETCH_RSS_CHILD"); addr != "" {
		rssChild(t, addr)
		return
	}
	const rssFactor, rssBase = 4, 48 << 20
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
	m := regexp.MustCompile(`maxrss=(\d+)`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("child said no maxrss:\n%s", out)
	}
	kb, _ := strconv.ParseInt(string(m[1]), 10, 64)
	peak := kb << 10
	t.Logf("LIST of %d bytes: peak RSS %d MB (%.1f times the listing)", len(list), peak>>20, float64(peak)/float64(len(list)))
	if limit := rssFactor*int64(len(list)) + rssBase; peak > limit {
		t.Errorf("peak RSS %d bytes, over %d (%d times the listing of %d bytes, plus %d)", peak, limit, rssFactor, len(list), rssBase)
	}
}

// rssChild mirrors ftp://addr/ with its files excluded and prints the
// process's peak resident set.
func rssChild(t *testing.T, addr string) {
	gctune.Start(os.Getenv)
	d := ftp.New(ftp.Config{PipelinePassive: true})
	defer d.CloseIdleConnections()
	s, err := Run(t.Context(), drivers{"ftp": d}, uri.MustParse("ftp://"+addr+"/"), t.TempDir(), Options{Exclude: []string{"*.txt"}})
	if err != nil || s.Failed != 0 {
		t.Fatalf("Run = %v, %d failed", err, s.Failed)
	}
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	fmt.Printf("maxrss=%d\n", ru.Maxrss) // kilobytes on Linux
}
