package mirror

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/textproto"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/proto/ftp"
	"github.com/rfc1738/fetch/retry"
	"github.com/rfc1738/fetch/uri"
)

// quick is a policy with short waits, for tests.
func quick(max int) *retry.Policy {
	return &retry.Policy{Max: max, Base: 10 * time.Millisecond, Cap: 50 * time.Millisecond}
}

// With Options.Retry, a transfer cut again and again is tried up to Max
// more times, each resuming where the last stopped; a transient refusal
// (FTP 450) is retried, a permanent one (not found) and one outside the
// list (FTP 452) are not.
func TestMirrorRetryPolicy(t *testing.T) {
	f := newFakeFTP()
	data := bytes.Repeat([]byte("abcdefgh"), 30000) // 240,000 bytes
	f.file("cut.bin", string(data))
	n := f.nodes["cut.bin"]
	n.cutAt, n.cuts = 70000, 3 // cut at byte 70000 by each of the first three fetches
	f.file("busy.txt", "later")
	f.nodes["busy.txt"].refuse = &ftp.CommandError{Cmd: "RETR busy.txt", Err: &textproto.Error{Code: 450, Msg: "busy"}}
	f.file("gone.txt", "no")
	f.nodes["gone.txt"].refuse = fmt.Errorf("fake: 550: %w", proto.ErrNotFound)
	f.file("full.txt", "no")
	f.nodes["full.txt"].refuse = fmt.Errorf("fake: RETR: %w", &textproto.Error{Code: 452, Msg: "no room"})
	dir := t.TempDir()
	s, err := Run(context.Background(), f, uri.MustParse("ftp://h/"), dir, Options{Jobs: 2, Retry: quick(3)})
	if !errors.Is(err, ErrPartial) || s.Failed != 3 || s.New != 1 {
		t.Fatalf("Run = %v, failed %d new %d; want cut.bin new, the others failed", err, s.Failed, s.New)
	}
	count := map[string]int{}
	for _, p := range f.fetched() {
		count[p]++
	}
	if count["cut.bin"] != 4 || count["busy.txt"] != 4 || count["gone.txt"] != 1 || count["full.txt"] != 1 {
		t.Errorf("fetches %v; want cut.bin and busy.txt 4 (1 + 3 retries), gone.txt and full.txt 1", count)
	}
	if f.offsets["cut.bin"] != 70000 {
		t.Errorf("the last retry asked offset %d, want 70000 (resumed)", f.offsets["cut.bin"])
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "cut.bin")); !bytes.Equal(b, data) {
		t.Errorf("cut.bin differs after the retries")
	}

	// Max 0: nothing is tried again.
	f = newFakeFTP()
	f.file("cut.bin", string(data))
	f.nodes["cut.bin"].cutAt = 70000
	s, err = Run(context.Background(), f, uri.MustParse("ftp://h/"), t.TempDir(), Options{Retry: quick(0)})
	if !errors.Is(err, ErrPartial) || s.Failed != 1 || len(f.fetched()) != 1 {
		t.Errorf("Max 0: Run = %v, failed %d; want one fetch, failed", err, s.Failed)
	}
}

// busyFake refuses, with proto.ErrBusy, every fetch that would make more
// than limit of them run at once, as a server with a connection limit
// refuses the connection.
type busyFake struct {
	*fakeFTP
	limit int

	mu       sync.Mutex
	open     int
	refused  int
	maxOpen  int
	holdTime time.Duration
}

func (b *busyFake) Fetch(ctx context.Context, u *uri.URL, req *proto.Request) (*proto.Response, error) {
	b.mu.Lock()
	if b.open >= b.limit {
		b.refused++
		b.mu.Unlock()
		return nil, fmt.Errorf("fake: greeting: %w: %w", proto.ErrBusy, &textproto.Error{Code: 421, Msg: "Too many connections"})
	}
	b.open++
	b.maxOpen = max(b.maxOpen, b.open)
	b.mu.Unlock()
	defer func() {
		b.mu.Lock()
		b.open--
		b.mu.Unlock()
	}()
	// Hold the "connection" a while, so that transfers overlap.
	time.Sleep(b.holdTime)
	resp, err := b.fakeFTP.Fetch(ctx, u, req)
	if err == nil {
		// Read the body while the connection is counted open.
		var buf bytes.Buffer
		buf.ReadFrom(resp.Body)
		resp.Body.Close()
		resp.Body = nopCloser{bytes.NewReader(buf.Bytes())}
	}
	return resp, err
}

type nopCloser struct{ *bytes.Reader }

func (nopCloser) Close() error { return nil }

// A server that allows two connections: a run with 8 jobs completes every
// file with no failed entry, never has more than two transfers refused in
// a row for long, and says so in one notice.
func TestMirrorBusyServerGoesOnWithFewerConnections(t *testing.T) {
	f := &busyFake{fakeFTP: newFakeFTP(), limit: 2, holdTime: 5 * time.Millisecond}
	for i := range 30 {
		f.file(fmt.Sprintf("d/f%02d.txt", i), fmt.Sprint("file ", i))
	}
	dir := t.TempDir()
	s, err := Run(context.Background(), f, uri.MustParse("ftp://h/"), dir, Options{Jobs: 8, Retry: quick(0)})
	if err != nil || s.New != 30 || s.Failed != 0 {
		t.Fatalf("Run = %v, new %d failed %d; want 30 new, none failed", err, s.New, s.Failed)
	}
	if len(s.Notices) != 1 {
		t.Errorf("notices %q, want one", s.Notices)
	}
	if f.refused == 0 || f.refused > 7 {
		t.Errorf("%d connections refused, want 1 to 7 (one per slot given up)", f.refused)
	}
	for i := range 30 {
		if b, _ := os.ReadFile(filepath.Join(dir, "d", fmt.Sprintf("f%02d.txt", i))); string(b) != fmt.Sprint("file ", i) {
			t.Errorf("f%02d.txt = %q", i, b)
		}
	}
}

// With one connection left, a busy refusal is an ordinary transient
// failure: retried under the policy, then failed.
func TestMirrorBusyWithOneJob(t *testing.T) {
	f := &busyFake{fakeFTP: newFakeFTP(), limit: 0}
	f.file("a.txt", "a")
	s, err := Run(context.Background(), f, uri.MustParse("ftp://h/"), t.TempDir(), Options{Jobs: 1, Retry: quick(2)})
	if err == nil {
		t.Fatalf("Run with a server that refuses everything succeeded: %+v", s)
	}
	if f.refused != 3 || len(s.Notices) != 0 {
		t.Errorf("%d refusals, notices %q; want 3 (listing: 1 + 2 retries), none", f.refused, s.Notices)
	}
}

// retryLog records the retries a policy announces.
type retryLog struct {
	mu    sync.Mutex
	calls []string
}

func (l *retryLog) policy(max int) *retry.Policy {
	p := quick(max)
	p.OnRetry = func(n, max int, wait time.Duration, err error) {
		l.mu.Lock()
		defer l.mu.Unlock()
		if wait <= 0 || err == nil {
			l.calls = append(l.calls, "bad call")
		}
		l.calls = append(l.calls, fmt.Sprintf("%d/%d", n, max))
	}
	return p
}

// Every retry, of the starting listing and of a file, is announced
// through Policy.OnRetry; the final failure says how many attempts it
// took, and stays typed.
func TestMirrorRetryAnnounced(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: &os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED}}
	f := newFakeFTP()
	f.nodes[""].refuse = refused
	var l retryLog
	_, err := Run(context.Background(), f, uri.MustParse("ftp://h/"), t.TempDir(), Options{Retry: l.policy(2)})
	var (
		le *ListError
		ae *retry.AttemptsError
	)
	if !errors.As(err, &le) || !errors.As(err, &ae) || ae.Attempts != 3 || !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("Run = %v; want a ListError after 3 attempts, connection refused", err)
	}
	if want := []string{"1/2", "2/2"}; !slices.Equal(l.calls, want) {
		t.Errorf("retries announced %q, want %q", l.calls, want)
	}

	f = newFakeFTP()
	f.file("busy.txt", "later")
	f.nodes["busy.txt"].refuse = &ftp.CommandError{Cmd: "RETR busy.txt", Err: &textproto.Error{Code: 450, Msg: "busy"}}
	l = retryLog{}
	s, err := Run(context.Background(), f, uri.MustParse("ftp://h/"), t.TempDir(), Options{Retry: l.policy(3)})
	if !errors.Is(err, ErrPartial) || len(s.Entries) != 1 || !strings.HasSuffix(s.Entries[0].Reason, " (4 attempts)") {
		t.Errorf("Run = %v, %+v; want busy.txt failed after 4 attempts", err, s.Entries)
	}
	if want := []string{"1/3", "2/3", "3/3"}; !slices.Equal(l.calls, want) {
		t.Errorf("retries announced %q, want %q", l.calls, want)
	}
}

// A first run that fails before it records anything leaves nothing behind:
// no .fetch, and not the target directory when the run created it. A run
// into a target with a manifest keeps it.
func TestFirstRunFailureLeavesNothing(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: &os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED}}
	base := t.TempDir()
	for i, cause := range []error{refused, fmt.Errorf("fake: 530 Login incorrect: %w", proto.ErrLogin)} {
		f := newFakeFTP()
		f.nodes[""].refuse = cause
		made := filepath.Join(base, "new", strconv.Itoa(i))
		if _, err := Run(context.Background(), f, uri.MustParse("ftp://h/"), made, Options{Retry: quick(0)}); err == nil {
			t.Fatal("Run of a refused start succeeded")
		}
		if _, err := os.Stat(made); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%v: the target the run created is left behind (%v)", cause, err)
		}
	}
	// The periodic saver may have written the (empty) manifest meanwhile.
	saved := filepath.Join(base, "saved")
	f := newFakeFTP()
	f.nodes[""].refuse = refused
	sf := &savingFetcher{fakeFTP: f, manifest: filepath.Join(saved, manifestName)}
	if _, err := Run(context.Background(), sf, uri.MustParse("ftp://h/"), saved, Options{Retry: quick(0)}); err == nil || !sf.wrote {
		t.Fatalf("Run of a refused start = %v (manifest written: %v)", err, sf.wrote)
	}
	if _, err := os.Stat(saved); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the manifest saved during a failed first run is left behind (%v)", err)
	}
	have := filepath.Join(base, "have")
	os.Mkdir(have, 0o755)
	Run(context.Background(), f, uri.MustParse("ftp://h/"), have, Options{Retry: quick(0)})
	if ents, err := os.ReadDir(have); err != nil || len(ents) != 0 {
		t.Errorf("the run left %v in a target it did not create (%v)", ents, err)
	}

	f = newFakeFTP()
	f.file("a.txt", "a")
	if _, err := Run(context.Background(), f, uri.MustParse("ftp://h/"), have, Options{}); err != nil {
		t.Fatal(err)
	}
	f.nodes[""].refuse = refused
	if _, err := Run(context.Background(), f, uri.MustParse("ftp://h/"), have, Options{Retry: quick(0)}); err == nil {
		t.Fatal("Run of a refused start succeeded")
	}
	if _, err := os.Stat(filepath.Join(have, manifestName)); err != nil {
		t.Errorf("a failed later run lost the manifest: %v", err)
	}
}

// savingFetcher writes an empty manifest, as the run's periodic saver
// does, before its first fetch.
type savingFetcher struct {
	*fakeFTP
	manifest string
	wrote    bool
}

func (s *savingFetcher) Fetch(ctx context.Context, u *uri.URL, req *proto.Request) (*proto.Response, error) {
	if !s.wrote {
		s.wrote = true
		os.MkdirAll(filepath.Dir(s.manifest), 0o755)
		os.WriteFile(s.manifest, []byte(`{"version": 1, "source": "ftp://h/", "files": {}}`+"\n"), 0o644)
	}
	return s.fakeFTP.Fetch(ctx, u, req)
}

// TestWarmSlotsAfterRefusals: Warm's logins do not wait for the slots the
// run keeps for good. With 3 jobs, two refused connections kept two
// slots (as when a loaded machine starts the warming late): warmSlots
// returns at once, where waiting for a second slot held every slot until
// the context ended and the mirror's files failed.
func TestWarmSlotsAfterRefusals(t *testing.T) {
	r := &run{jobs: 3, slots: make(chan struct{}, 3), refused: make(chan struct{})}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for range 2 {
		if err := r.acquire(ctx); err != nil {
			t.Fatal(err)
		}
		var se *shrunkError
		if err := r.shrink(fmt.Errorf("login: %w", proto.ErrBusy)); !errors.As(err, &se) {
			t.Fatalf("shrink: %v, want a *shrunkError", err)
		}
		r.releaseSlot()
	}
	n := r.warmSlots(ctx, r.jobs-1)
	if ctx.Err() != nil {
		t.Fatalf("warmSlots waited until the context ended (%d slots)", n)
	}
	for range n {
		r.releaseSlot()
	}
	if len(r.slots) != 2 {
		t.Errorf("%d slots in use after the warming, want the 2 kept", len(r.slots))
	}
}
