package mirror

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rfc1738/fetch/internal/testrig/faultproxy"
	"github.com/rfc1738/fetch/internal/testrig/localserver"
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/proto/ftp"
	"github.com/rfc1738/fetch/uri"
)

// A file's data connection cut short, the server still saying 226 (as
// vsftpd does once it has written what it could), from the FTP server of
// every system the parsers know. Where the listing gives the size, the
// driver checks the transfer against it; where it gives none (VMS lists
// blocks, as does a server whose MLSD has no size fact), the mirror asks
// SIZE. Either way the cut is seen and the file fetched again: never a
// short file stored as the whole one, exit 0, and found unchanged by every
// later run (as a VMS mirror did before).
func TestMirrorCutWithoutListedSize(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789abcdef"), 200<<10/16)
	for _, sys := range localserver.Systems {
		if sys == localserver.SysUnknown {
			continue // names only (NLST): every file is probed with SIZE anyway
		}
		t.Run(sys, func(t *testing.T) {
			name, local := "big.dat", "big.dat"
			if sys == localserver.SysVMS {
				name, local = "BIG.DAT;1", "BIG.DAT"
			}
			srv, err := localserver.SystemFTP(sys, localserver.Tree{Files: map[string][]byte{name: data},
				Time: time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)})
			if err != nil {
				t.Fatal(err)
			}
			if err := localserver.StartRawFTP(srv); err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			// The listing's data connection is the first; the file's
			// the second.
			px, err := faultproxy.Start(faultproxy.Config{Target: srv.Addr(), Mode: faultproxy.FTP,
				Faults: []faultproxy.Fault{{Kind: faultproxy.Cut, Data: true, Conn: 2, After: 50000}}})
			if err != nil {
				t.Fatal(err)
			}
			defer px.Close()
			drv := &ftp.Driver{}
			defer drv.CloseIdleConnections()
			dir := t.TempDir()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			sum, err := Run(ctx, drivers{"ftp": drv}, uri.MustParse("ftp://"+px.Addr()+"/"), dir,
				Options{Jobs: 1, Request: proto.Request{IdleTimeout: 5 * time.Second}})
			if px.Stats().Faults != 1 {
				t.Fatalf("the proxy cut %d data connections, want 1 (commands %q)", px.Stats().Faults, srv.Commands())
			}
			got, rerr := os.ReadFile(filepath.Join(dir, local))
			switch {
			case err == nil && (rerr != nil || !bytes.Equal(got, data)):
				t.Fatalf("Run = %+v, nil with %d of %d bytes stored (%v); commands %q", sum, len(got), len(data), rerr, srv.Commands())
			case err != nil && sum.Failed == 0:
				t.Fatalf("Run = %v with no failed entry", err)
			}
		})
	}
}

// A server that listed ".htaccess" and ".git/" with LIST -a on one run,
// and refuses the option on the next (a new version, another host behind
// the same name): its plain LIST leaves out every name that begins with a
// dot, so whether it still holds them is unknown, and --delete keeps their
// copies (it removed them, exit 0). What the listing does tell is acted
// on: b.txt, gone from the server, is deleted.
func TestMirrorDeleteKeepsUnlistedDotNames(t *testing.T) {
	const (
		aTxt = "-rw-r--r-- 1 ftp ftp 5 Jan 01 2001 a.txt\r\n"
		bTxt = "-rw-r--r-- 1 ftp ftp 2 Jan 01 2001 b.txt\r\n"
		dots = "-rw-r--r-- 1 ftp ftp 5 Jan 01 2001 .htaccess\r\n" +
			"drwxr-xr-x 2 ftp ftp 4096 Jan 01 2001 .git\r\n"
	)
	files := map[string][]byte{"/a.txt": []byte("hello"), "/b.txt": []byte("bb"),
		"/.htaccess": []byte("deny\n"), "/.git/config": []byte("[core]\n")}
	dir := t.TempDir()
	run := func(refuse bool, root string) (*Summary, error) {
		srv := &localserver.RawFTP{Files: files, RefuseOptions: refuse, Listings: map[string]string{
			"/":     root,
			"/.git": "-rw-r--r-- 1 ftp ftp 7 Jan 01 2001 config\r\n",
		}}
		if err := localserver.StartRawFTP(srv); err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		drv := &ftp.Driver{}
		defer drv.CloseIdleConnections()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		return Run(ctx, drivers{"ftp": drv}, uri.MustParse("ftp://"+srv.Addr()+"/"), dir,
			Options{Jobs: 1, Delete: true, Request: proto.Request{IdleTimeout: 5 * time.Second}})
	}
	if sum, err := run(false, dots+aTxt+bTxt); err != nil || sum.New != 4 {
		t.Fatalf("first run = %v, %d new, want 4", err, sum.New)
	}
	sum, err := run(true, aTxt)
	if err != nil || sum.Deleted != 1 || len(sum.Notices) != 1 {
		t.Fatalf("second run = %v, %d deleted (want 1), notices %q", err, sum.Deleted, sum.Notices)
	}
	for rel, want := range map[string]bool{".htaccess": true, ".git/config": true, "a.txt": true, "b.txt": false} {
		_, err := os.Lstat(filepath.Join(dir, rel))
		if got := err == nil; got != want {
			t.Errorf("%s: exists %v, want %v (%v)", rel, got, want, err)
		}
	}
}

// cutListings serves fakeFTP's tree with its next cuts directory
// listings cut after their first entry (in name order): an FTP listing
// whose data connection was lost between two lines, after which the
// server still says 226, ends as a whole one does.
type cutListings struct {
	*fakeFTP
	cuts atomic.Int32
}

func (c *cutListings) Fetch(ctx context.Context, u *uri.URL, req *proto.Request) (*proto.Response, error) {
	resp, err := c.fakeFTP.Fetch(ctx, u, req)
	if err == nil && resp.Kind == proto.KindDirectory && c.cuts.Add(-1) >= 0 {
		slices.SortFunc(resp.Entries, func(a, b proto.Entry) int { return strings.Compare(a.Name, b.Name) })
		resp.Entries = resp.Entries[:1]
	}
	return resp, err
}

// An FTP listing cut between two lines (nothing in FTP gives a listing's
// length) made a mirror with Delete delete every local file past the cut.
// Before it deletes anything below a directory it lists it again: another
// listing fails the directory (nothing below it deleted, ErrPartial); the
// same one deletes what the server no longer has.
func TestMirrorDeleteBelowCutListing(t *testing.T) {
	for _, tc := range []struct {
		name    string
		cut     bool     // the second run's first listing is cut
		gone    string   // a file removed at the server before the second run
		kept    []string // the local files after it
		deleted int
	}{
		{"cut, then whole", true, "", []string{"a", "b", "c", "d"}, 0},
		{"a file gone", false, "d", []string{"a", "b", "c"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &cutListings{fakeFTP: newFakeFTP()}
			for _, n := range []string{"a", "b", "c", "d"} {
				f.file("pub/"+n, n)
			}
			dir := t.TempDir()
			mustRun(t, f, "ftp://h/pub/", dir, Options{})
			if tc.cut {
				f.cuts.Store(1)
			}
			if tc.gone != "" {
				delete(f.nodes, "pub/"+tc.gone)
			}
			s, err := Run(t.Context(), f, uri.MustParse("ftp://h/pub/"), dir, Options{Delete: true})
			if tc.cut != errors.Is(err, ErrPartial) || s.Deleted != tc.deleted {
				t.Errorf("second run: %d deleted, %v; want %d deleted, partial %v", s.Deleted, err, tc.deleted, tc.cut)
			}
			ents, _ := os.ReadDir(dir)
			var got []string
			for _, e := range ents {
				if e.Name() != stateDir {
					got = append(got, e.Name())
				}
			}
			if !slices.Equal(got, tc.kept) {
				t.Errorf("files after the second run %v, want %v", got, tc.kept)
			}
		})
	}
}

// A manifest that cannot be read (cut by a crash of a file system that
// does not keep renames, edited by hand) is read as none, and the run
// compares each file on disk: nothing is lost, but the run said nothing
// and replaced it. It says so in a notice.
func TestMirrorUnreadableManifest(t *testing.T) {
	f := newFakeFTP()
	f.file("pub/a", "a")
	dir := t.TempDir()
	mustRun(t, f, "ftp://h/pub/", dir, Options{})
	p := filepath.Join(dir, filepath.FromSlash(manifestName))
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(p, b[:len(b)/2], 0o644)
	s := mustRun(t, f, "ftp://h/pub/", dir, Options{})
	if len(s.Notices) != 1 || !strings.Contains(s.Notices[0], "could not be read") {
		t.Errorf("notices %q, want one that says the manifest could not be read", s.Notices)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if m, err := loadManifest(root, true); err != nil || m.len() != 1 {
		t.Fatalf("the manifest after the run: %v", err)
	}
}
