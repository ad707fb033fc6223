package mirror

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/afero"

	"github.com/rfc1738/fetch/fetch/fetchtest"
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/proto/ftp"
	"github.com/rfc1738/fetch/uri"
)

// TestFTPDirectoryAffinity mirrors a tree of 8 directories of 12 files
// with 4 workers, and with 1, and counts the commands: a listing moves
// with one CWD to the full path and files go by their paths, so there is
// one CWD per listing (a shared FIFO and the walk from "/" sent three
// CWDs for most files); no connection returns to "/"; and no EPSV is
// thrown away but, with several workers, one a connection at most at the
// end, and with one worker none: its last file sends none ahead.
func TestFTPDirectoryAffinity(t *testing.T) {
	for _, jobs := range []int{4, 1} {
		t.Run(fmt.Sprint(jobs), func(t *testing.T) { mirrorAffinity(t, jobs) })
	}
}

func mirrorAffinity(t *testing.T, jobs int) {
	const dirs, files = 8, 12
	mem := afero.NewMemMapFs()
	want := map[string][]byte{}
	for d := range dirs {
		for f := range files {
			p := fmt.Sprintf("d%02d/f%02d.bin", d, f)
			want[p] = bytes.Repeat([]byte{byte(d), byte(f)}, 100+f)
			afero.WriteFile(mem, "/pub/tree/"+p, want[p], 0o644)
		}
	}
	srv, err := fetchtest.StartFTP(mem, fetchtest.FTPOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	drv := ftp.New(ftp.Config{PipelinePassive: true, MaxConnsPerHost: jobs, MaxIdleConnsPerHost: jobs})
	defer drv.CloseIdleConnections()
	tr := &trace{}
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	dir := t.TempDir()
	start := uri.MustParse("ftp://" + srv.Addr() + "/pub/tree/")
	s, err := Run(ctx, drivers{"ftp": drv}, start, dir, Options{Jobs: jobs, Request: proto.Request{Trace: tr, IdleTimeout: 10 * time.Second}})
	if err != nil || s.New != len(want) {
		t.Fatalf("%v, %+v", err, s)
	}
	for p, b := range want {
		if got, err := os.ReadFile(filepath.Join(dir, p)); err != nil || !bytes.Equal(got, b) {
			t.Errorf("%s differs from the source (%v)", p, err)
		}
	}
	tr.mu.Lock()
	text := tr.buf.String()
	tr.mu.Unlock()
	logins, cwds := tr.commands("USER"), tr.commands("CWD")
	transfers := tr.commands("RETR") + tr.commands("MLSD") + tr.commands("LIST")
	// A move is one CWD to the full path: never the segments one by one
	// (pub, tree), which the walk from the login directory sends.
	for _, seg := range []string{"pub", "tree"} {
		if strings.Contains(text, "> CWD "+seg+"\n") {
			t.Errorf("a connection sent CWD %s: a walk segment by segment", seg)
		}
	}
	// One CWD a listing at most, and one a connection dialled for a file
	// while the others were busy (its directory's, sent with PASS): files
	// go by their absolute paths, with no CWD, where a CWD for each worker
	// entering a directory sent 17 to 73, and the walk from "/" with a
	// shared FIFO 120 to 144.
	if cwds > dirs+1+logins {
		t.Errorf("%d CWDs for %d listings and %d transfers (%d connections)", cwds, dirs+1, transfers, logins)
	}
	if strings.Contains(text, "> CWD /\n") {
		t.Errorf("a connection went back to /")
	}
	if epsv := tr.commands("EPSV"); epsv > transfers+logins || jobs == 1 && epsv != transfers {
		t.Errorf("%d EPSV for %d transfers on %d connections", epsv, transfers, logins)
	}
}

// A worker takes the items of its group while there are any, a second
// worker the oldest group no worker is in, and a worker whose group is
// done the oldest free one, else the one with the most items left.
func TestGroupQueueAffinity(t *testing.T) {
	q := newGroupedQueue(func(s string) string { return s[:1] }, 0)
	for _, s := range []string{"a1", "b1", "a2", "c1", "b2", "a3", "c2", "c3", "c4"} {
		q.push(s)
	}
	var w1, w2 *group[string]
	var got []string
	pop := func(at **group[string]) {
		v, ok := q.popAt(at, true)
		if !ok {
			t.Fatal("queue empty")
		}
		got = append(got, v)
	}
	pop(&w1) // a1: the oldest group
	pop(&w2) // b1: the oldest group no worker is in
	pop(&w1) // a2
	pop(&w1) // a3
	pop(&w1) // c1: a is done, c is free
	pop(&w2) // b2
	pop(&w2) // c2: b is done, no group is free: the one with most left
	pop(&w1)
	pop(&w1)
	if want := "a1 b1 a2 a3 c1 b2 c2 c3 c4"; strings.Join(got, " ") != want {
		t.Errorf("popped %s, want %s", strings.Join(got, " "), want)
	}
	q.close()
	if _, ok := q.popAt(&w1, true); ok {
		t.Error("pop after close and empty: ok")
	}
}

// A re-run of an unchanged tree logs in no more often than it has
// directories to list, up to the jobs: each connection lists directory
// after directory, and none is opened for nothing (no transfer is due).
func TestFTPRerunLogins(t *testing.T) {
	const jobs = 4
	for _, subdirs := range []int{0, 2, 12} {
		t.Run(fmt.Sprint(subdirs), func(t *testing.T) {
			mem := afero.NewMemMapFs()
			afero.WriteFile(mem, "/pub/tree/top.bin", []byte("top"), 0o644)
			for d := range subdirs {
				for f := range 3 {
					afero.WriteFile(mem, fmt.Sprintf("/pub/tree/d%02d/f%d.bin", d, f), []byte{byte(d), byte(f)}, 0o644)
				}
			}
			srv, err := fetchtest.StartFTP(mem, fetchtest.FTPOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			dir := t.TempDir()
			start := uri.MustParse("ftp://" + srv.Addr() + "/pub/tree/")
			tr := &trace{}
			for run := range 2 {
				drv := ftp.New(ftp.Config{PipelinePassive: true, MaxConnsPerHost: jobs, MaxIdleConnsPerHost: jobs})
				tr.reset()
				ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
				s, err := Run(ctx, drivers{"ftp": drv}, start, dir, Options{Jobs: jobs, Request: proto.Request{Trace: tr, IdleTimeout: 10 * time.Second}})
				cancel()
				drv.CloseIdleConnections()
				if err != nil || s.New+s.Unchanged != 1+3*subdirs {
					t.Fatalf("run %d: %v, %+v", run, err, s)
				}
			}
			listings := 1 + subdirs
			if logins := tr.commands("USER"); logins > min(listings, jobs) {
				t.Errorf("re-run: %d logins for %d listings with %d jobs, want at most %d", logins, listings, jobs, min(listings, jobs))
			}
			if got := tr.commands("LIST") + tr.commands("MLSD"); got != listings {
				t.Errorf("re-run: %d listings, want %d", got, listings)
			}
		})
	}
}
