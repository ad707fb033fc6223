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
// fails when the peak is over rssFactor times the listing plus
// rssBase. The listing is 32 MB by default; FETCH_RSS_LISTING_MB sets
// another size (57 for the 60 MB of BENCHMARKS.md).
//
// What stays live at the peak is the listing, held once as the strings
// its entries' names share, and its entries (a proto.Entry is 120 bytes,
// about the size of an ls line): twice the listing. Above 64 MB of live
// heap gctune leaves Go's default, a collection when the heap has doubled,
// and below it lets the heap grow 64 MB above what is live; so the peak
// may reach about four times the listing, or twice it plus 64 MB, plus
// the runtime's own. The bound allows that, and no more: the copies taken
// out (the bytes as read beside their string, a buffer grown by copying,
// a row per line, an Extra map per entry, the mirror's state for files it
// excludes) put the peak above it, together (VmHWM of the child: 32 MB,
// 531 MB with them and 94 MB without; 60 MB, 878 MB and 150 MB).
func TestMirrorListingRSS(t *testing.T) {
	if addr := os.Getenv("FETCH_RSS_CHILD"); addr != "" {
		rssChild(t, addr)
		return
	}
	if raceEnabled {
		t.Skip("the race detector's shadow memory is no measure of the mirror's own")
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
// process's peak resident set: VmHWM, the peak of the memory it has had
// since its exec, in kilobytes. getrusage's ru_maxrss would also count the
// parent's resident set at the fork (Linux carries the larger of the two
// across the exec), which grows with the tests the parent ran before.
func rssChild(t *testing.T, addr string) {
	gctune.Start(os.Getenv)
	d := ftp.New(ftp.Config{PipelinePassive: true})
	defer d.CloseIdleConnections()
	s, err := Run(t.Context(), drivers{"ftp": d}, uri.MustParse("ftp://"+addr+"/"), t.TempDir(), Options{Exclude: []string{"*.txt"}})
	if err != nil || s.Failed != 0 {
		t.Fatalf("Run = %v, %d failed", err, s.Failed)
	}
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^VmHWM:\s+(\d+) kB$`).FindSubmatch(status)
	if m == nil {
		t.Fatalf("no VmHWM in /proc/self/status:\n%s", status)
	}
	fmt.Printf("maxrss=%s\n", m[1])
}
