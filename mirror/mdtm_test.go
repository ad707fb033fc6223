package mirror

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/spf13/afero"

	"github.com/rfc1738/fetch/fetch/fetchtest"
	"github.com/rfc1738/fetch/internal/testrig/wirecount"
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/proto/ftp"
	"github.com/rfc1738/fetch/uri"
)

// TestMirrorMDTMSameMinute: a server that lists with LIST (times to the
// minute) and has MDTM (seconds). A file changed to other content of the
// same size within the listed minute, after the mirror fetched it, looked
// unchanged: the re-run kept it stale. The first run sends no MDTM and
// records when it fetched each file of a fresh minute (fetched); a re-run
// whose listing shows the size and time recorded asks MDTM, fetches the
// file whose MDTM time is later than that, and not the other (no RETR),
// whose MDTM time it keeps (exact_time) for the third run. A file listed
// days old, whose minute closed long before it was fetched, costs no
// MDTM, in any run.
func TestMirrorMDTMSameMinute(t *testing.T) {
	mem := afero.NewMemMapFs()
	minute := time.Now().Add(-time.Hour).UTC().Truncate(time.Minute)
	put := func(name, data string, at time.Time) {
		afero.WriteFile(mem, "/pub/"+name, []byte(data), 0o644)
		mem.Chtimes("/pub/"+name, at, at)
	}
	put("changed.txt", "old content", minute.Add(15*time.Second))
	put("same.txt", "same content", minute.Add(20*time.Second))
	put("old.txt", "old file", minute.Add(-72*time.Hour))
	srv, err := fetchtest.StartFTP(mem, fetchtest.FTPOptions{DisableMLSD: true})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	drv := ftp.New(ftp.Config{PipelinePassive: true})
	defer drv.CloseIdleConnections()
	tr := &trace{}
	// The first run fetches at second 30 of the listed minute.
	opts := Options{Jobs: 1, Request: proto.Request{Trace: tr, IdleTimeout: 10 * time.Second},
		now: func() time.Time { return minute.Add(30 * time.Second) }}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	start := uri.MustParse("ftp://" + srv.Addr() + "/pub/")

	if s, err := Run(ctx, drivers{"ftp": drv}, start, dir, opts); err != nil || s.New != 3 {
		t.Fatalf("first run: %v, %+v", err, s)
	}
	if n := tr.commands("LIST"); n == 0 {
		t.Fatal("the server was not listed with LIST")
	}
	if n := tr.commands("MDTM"); n != 0 {
		t.Errorf("first run sent %d MDTM, want none", n)
	}
	put("changed.txt", "new content", minute.Add(45*time.Second)) // same size, same minute, after the fetch
	opts.now = nil
	tr.reset()
	s, err := Run(ctx, drivers{"ftp": drv}, start, dir, opts)
	if err != nil || s.Updated != 1 || s.Unchanged != 2 {
		t.Fatalf("re-run: %v, %+v; want changed.txt updated, same.txt unchanged", err, s)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "changed.txt")); string(got) != "new content" {
		t.Errorf("changed.txt = %q, want the new content", got)
	}
	if r, m := tr.commands("RETR"), tr.commands("MDTM"); r != 1 || m != 2 {
		t.Errorf("re-run sent %d RETR and %d MDTM, want 1 (changed.txt) and 2", r, m)
	}

	tr.reset()
	if s, err := Run(ctx, drivers{"ftp": drv}, start, dir, opts); err != nil || s.Unchanged != 3 {
		t.Fatalf("third run: %v, %+v; want both unchanged", err, s)
	}
	if r, m := tr.commands("RETR"), tr.commands("MDTM"); r != 0 || m != 2 {
		t.Errorf("third run sent %d RETR and %d MDTM, want 0 and 2", r, m)
	}
}

// TestConfirmed: what a run keeps when MDTM says a file did not change.
// While its listed minute is fresh, MDTM's time (to compare the next
// answers with) in place of the time of the transfer; once it is no
// longer fresh, neither: the copy is the last version of that minute, and
// later runs trust the listing.
func TestConfirmed(t *testing.T) {
	fetched := time.Date(2026, 1, 2, 3, 4, 30, 0, time.UTC)
	mdtm := fetched.Add(-10 * time.Second)
	for _, c := range []struct {
		name      string
		rf        remoteFile
		wantExact time.Time
	}{
		{"fresh", remoteFile{rel: "f", coarse: true, askTime: true}, mdtm},
		{"no longer fresh", remoteFile{rel: "f", coarse: true}, time.Time{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := &run{m: &manifest{Files: map[string]Record{}}}
			r.confirmed(c.rf, Record{Size: 1, Fetched: fetched}, mdtm)
			got, ok := r.m.get("f")
			if !ok || !got.ExactTime.Equal(c.wantExact) || !got.Fetched.IsZero() {
				t.Errorf("record %+v (%v), want exact time %v and no fetched time", got, ok, c.wantExact)
			}
		})
	}
}

// TestMirrorMDTMPipelined: a re-run asks MDTM for the files of a
// directory whose listed minute may not have closed when they were
// fetched, all of them in one write on one connection (RFC 959 section
// 4.2: the replies come in the order of the commands), and retrieves only
// the one whose MDTM time is later: five files cost five MDTM commands,
// one burst, one RETR; none asks MDTM again with its retrieval, and the
// manifest keeps each one's MDTM time. A file listed days old is not
// asked.
func TestMirrorMDTMPipelined(t *testing.T) {
	mem := afero.NewMemMapFs()
	minute := time.Now().Add(-time.Hour).UTC().Truncate(time.Minute)
	put := func(name, data string, at time.Time) {
		afero.WriteFile(mem, "/pub/"+name, []byte(data), 0o644)
		mem.Chtimes("/pub/"+name, at, at)
	}
	const n = 5
	for i := range n {
		put(fmt.Sprintf("f%d.txt", i), fmt.Sprintf("content %d", i), minute.Add(10*time.Second))
	}
	put("old.txt", "old file", minute.Add(-72*time.Hour))
	srv, err := fetchtest.StartFTP(mem, fetchtest.FTPOptions{DisableMLSD: true})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	drv := ftp.New(ftp.Config{PipelinePassive: true})
	defer drv.CloseIdleConnections()
	tr, wc := &trace{}, &wirecount.Writes{Verb: "MDTM"}
	opts := Options{Jobs: 2, Request: proto.Request{Trace: tr, IdleTimeout: 10 * time.Second, Dial: wc.Dial},
		now: func() time.Time { return minute.Add(30 * time.Second) }}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	start := uri.MustParse("ftp://" + srv.Addr() + "/pub/")
	if s, err := Run(ctx, drivers{"ftp": drv}, start, dir, opts); err != nil || s.New != n+1 {
		t.Fatalf("first run: %v, %+v", err, s)
	}
	if got := wc.Counts(); len(got) != 0 {
		t.Errorf("first run wrote MDTM commands %v, want none", got)
	}

	put("f2.txt", "content X", minute.Add(45*time.Second)) // same size, same minute, after the fetch
	opts.now = nil
	tr.reset()
	wc.Reset()
	s, err := Run(ctx, drivers{"ftp": drv}, start, dir, opts)
	if err != nil || s.Updated != 1 || s.Unchanged != n {
		t.Fatalf("re-run: %v, %+v; want f2.txt updated, the others unchanged", err, s)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "f2.txt")); string(got) != "content X" {
		t.Errorf("f2.txt = %q, want the new content", got)
	}
	if got := wc.Counts(); !slices.Equal(got, []int{n}) {
		t.Errorf("re-run wrote MDTM commands in writes of %v, want all %d in one", got, n)
	}
	if r, m := tr.commands("RETR"), tr.commands("MDTM"); r != 1 || m != n {
		t.Errorf("re-run sent %d RETR and %d MDTM, want 1 (f2.txt) and %d", r, m, n)
	}
	// The new copy keeps the time the batch's MDTM gave, the others
	// theirs, to compare the next answers with.
	m := readManifest(t, dir)
	for name, want := range map[string]time.Time{"f2.txt": minute.Add(45 * time.Second), "f0.txt": minute.Add(10 * time.Second)} {
		if got := m.Files[name].ExactTime; !got.Equal(want) {
			t.Errorf("%s: exact time %v, want %v (MDTM's)", name, got, want)
		}
	}
}
