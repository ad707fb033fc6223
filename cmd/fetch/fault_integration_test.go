package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/internal/testrig/faultproxy"
	"github.com/rfc1738/fetch/internal/testrig/servertest"
	"github.com/rfc1738/fetch/internal/testrig/warctest"
)

// Issue 17: a mirror from the real servers (vsftpd, nginx) through each
// fault of internal/testrig/faultproxy finishes in the same run, byte-exact, with
// the mirror's default --retry.

// sameFiles checks that every regular file of src is in dst with the same
// bytes, leaving out what skip names (relative, slash-separated); it
// returns the number of files compared.
func sameFiles(t *testing.T, src, dst string, skip func(rel string) bool) int {
	t.Helper()
	n := 0
	filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(src, p)
		rel = filepath.ToSlash(rel)
		if err != nil || rel == "." {
			return nil
		}
		if skip(rel) || strings.HasPrefix(filepath.Base(rel), ".") || slices.Contains(notLocalNames, filepath.Base(rel)) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		want, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		got, err := os.ReadFile(filepath.Join(dst, filepath.FromSlash(rel)))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: %d bytes in the mirror, %d in the fixture (%v)", rel, len(got), len(want), err)
		}
		n++
		return nil
	})
	return n
}

// startProxy starts a fault proxy, closed when the test ends.
func startProxy(t *testing.T, cfg faultproxy.Config) *faultproxy.Proxy {
	t.Helper()
	p, err := faultproxy.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// faultCases are the faults of the proxy, each hitting one connection in
// the middle of the 5 MiB file (or, for the refusal, a new connection).
var faultCases = []struct {
	name  string
	fault faultproxy.Fault
	args  []string
}{
	{"cut", faultproxy.Fault{Kind: faultproxy.Cut, Count: 1, After: 1234567}, nil},
	{"stall", faultproxy.Fault{Kind: faultproxy.Stall, Count: 1, After: 1234567}, []string{"--speed-limit", "1000", "--speed-time", "1"}},
	{"refused", faultproxy.Fault{Kind: faultproxy.Refuse, Conn: 2}, nil},
	{"reset", faultproxy.Fault{Kind: faultproxy.Reset, Count: 1, After: 1234567}, nil},
}

func TestFaultsMirrorVsftpd(t *testing.T) {
	s := servertest.Get(t, servertest.FTP)
	pub := servertest.Fixture(t, "ftp/pub")
	skip := func(rel string) bool {
		return rel == "many" || rel == "noaccess" || rel == "noread.txt" || strings.HasPrefix(rel, "scratch-")
	}
	for _, tc := range faultCases {
		t.Run(tc.name, func(t *testing.T) {
			f := tc.fault
			f.Data = f.Kind != faultproxy.Refuse
			p := startProxy(t, faultproxy.Config{Target: s.Addr, Mode: faultproxy.FTP, Faults: []faultproxy.Fault{f}})
			dir := filepath.Join(t.TempDir(), "m")
			args := append(append([]string{"mirror", "-s", "-j", "4",
				"--exclude", "many", "--exclude", "noaccess", "--exclude", "noread.txt", "--exclude", "scratch-*"}, notLocalExcludes()...), tc.args...)
			r := runArgs(t, nil, "", append(args, "ftp://"+p.Addr()+"/pub/", dir)...)
			if r.code != fetch.ExitOK {
				t.Fatalf("exit %d\n%s%s", r.code, r.out, r.err)
			}
			if n := sameFiles(t, pub, dir, skip); n < 15 {
				t.Errorf("compared %d files", n)
			}
			if st := p.Stats(); st.Faults != 1 {
				t.Errorf("%d faults injected, want 1", st.Faults)
			}
		})
	}
}

func TestFaultsMirrorNginx(t *testing.T) {
	s := servertest.Get(t, servertest.NGINX)
	www := servertest.Fixture(t, "www")
	for _, tc := range faultCases {
		t.Run(tc.name, func(t *testing.T) {
			p := startProxy(t, faultproxy.Config{Target: s.Addr, Mode: faultproxy.HTTP, Faults: []faultproxy.Fault{tc.fault}})
			dir := filepath.Join(t.TempDir(), "m")
			args := append(append([]string{"mirror", "-s", "-j", "4"}, notLocalExcludes()...), tc.args...)
			r := runArgs(t, nil, "", append(args, "http://"+p.Addr()+"/", dir)...)
			if r.code != fetch.ExitOK {
				t.Fatalf("exit %d\n%s%s", r.code, r.out, r.err)
			}
			if n := sameFiles(t, www, dir, func(string) bool { return false }); n < 10 {
				t.Errorf("compared %d files", n)
			}
			if st := p.Stats(); st.Faults != 1 {
				t.Errorf("%d faults injected, want 1", st.Faults)
			}
		})
	}
}

// fetch get --retry 3 through a cut resumes: vsftpd's log shows REST at
// the byte the cut left, and the proxy carried each byte of the file once.
func TestFaultsGetRetryVsftpd(t *testing.T) {
	s := servertest.Get(t, servertest.FTP)
	const cutAt = 2345678
	p := startProxy(t, faultproxy.Config{Target: s.Addr, Mode: faultproxy.FTP,
		Faults: []faultproxy.Fault{{Kind: faultproxy.Cut, Data: true, Count: 1, After: cutAt}}})
	out := filepath.Join(t.TempDir(), "bin5m.bin")
	since := servertest.FTPLogOffset(t)
	r := runArgs(t, nil, "", "get", "-s", "--retry", "3", "-o", out, "ftp://"+p.Addr()+"/pub/bin5m.bin")
	if r.code != fetch.ExitOK {
		t.Fatalf("exit %d\n%s", r.code, r.err)
	}
	if got := sha(t, out); got != servertest.Bin5MSHA256 {
		t.Errorf("sha256 %s, want %s", got, servertest.Bin5MSHA256)
	}
	if cmds := servertest.FTPCommands(t, since); !slices.Contains(cmds, fmt.Sprintf("REST %d", cutAt)) {
		t.Errorf("vsftpd saw no REST %d: %q", cutAt, cmds)
	}
	if st := p.Stats(); st.DataDown != servertest.Bin5MSize || st.Faults != 1 {
		t.Errorf("proxy: %d data bytes, %d faults; want %d (each byte once), 1", st.DataDown, st.Faults, servertest.Bin5MSize)
	}
}

// A WARC mirror through each fault (issue 16 with issue 17): the run ends
// with exit 0 and an archive that holds every file whole. Before, a data
// connection cut short (an FTP file the mirror knew the size of from its
// listing, with no SIZE sent) was recorded as the file, part of it and
// exit 0: a silent loss in the archive; and the retry resumed from the
// partial file, which no record can hold, so that a cut HTTP or FTP file
// was named "not archived" and the run exited 8.
//
// Also from ProFTPD and Pure-FTPd (MLSD), Apache (a fancy index) and
// lighttpd.
func TestFaultsMirrorWARC(t *testing.T) {
	ftpS := servertest.Get(t, servertest.FTP)
	nginx := servertest.Get(t, servertest.NGINX)
	proftpd := servertest.Get(t, servertest.ProFTPD)
	pureftpd := servertest.Get(t, servertest.PureFTPD)
	apache := servertest.Get(t, servertest.Apache)
	lighttpd := servertest.Get(t, servertest.Lighttpd)
	for _, srv := range []struct {
		name string
		cfg  faultproxy.Config
		path string
	}{
		{"vsftpd", faultproxy.Config{Target: ftpS.Addr, Mode: faultproxy.FTP}, "/pub/"},
		{"nginx", faultproxy.Config{Target: nginx.Addr, Mode: faultproxy.HTTP}, "/"},
		{"proftpd", faultproxy.Config{Target: proftpd.Addr, Mode: faultproxy.FTP}, "/pub/"},
		// Pure-FTPd answers a cut data connection with "150 ..." where
		// 226 or 426 is due (TestCutTransferPreliminaryAgain).
		{"pureftpd", faultproxy.Config{Target: pureftpd.Addr, Mode: faultproxy.FTP}, "/pub/"},
		{"apache", faultproxy.Config{Target: apache.Addr, Mode: faultproxy.HTTP}, "/fancy/"},
		{"lighttpd", faultproxy.Config{Target: lighttpd.Addr, Mode: faultproxy.HTTP}, "/"},
	} {
		for _, tc := range faultCases {
			t.Run(srv.name+"/"+tc.name, func(t *testing.T) {
				cfg, f := srv.cfg, tc.fault
				f.Data = cfg.Mode == faultproxy.FTP && f.Kind != faultproxy.Refuse
				cfg.Faults = []faultproxy.Fault{f}
				p := startProxy(t, cfg)
				scheme := map[faultproxy.Mode]string{faultproxy.FTP: "ftp", faultproxy.HTTP: "http"}[cfg.Mode]
				base := scheme + "://" + p.Addr() + srv.path
				work := t.TempDir()
				dir, name := filepath.Join(work, "m"), filepath.Join(work, "w")
				args := append(append([]string{"mirror", "-s", "-j", "4", "--warc-file", name,
					"--exclude", "many", "--exclude", "noaccess", "--exclude", "noread.txt", "--exclude", "scratch-*"}, notLocalExcludes()...), tc.args...)
				r := runArgs(t, nil, "", append(args, base, dir)...)
				if r.code != fetch.ExitOK {
					t.Fatalf("exit %d\n%s%s", r.code, r.out, r.err)
				}
				if st := p.Stats(); st.Faults != 1 {
					t.Errorf("%d faults injected, want 1", st.Faults)
				}
				checkArchived(t, dir, base, warctest.Check(t, warcFiles(t, name)...))
			})
		}
	}
}

// checkArchived checks that every file of the mirror in dir has a
// resource, response or revisit record under base + its path with the
// file's payload digest, and that no resource or response record of a
// file holds other bytes than the file (part of it).
func checkArchived(t *testing.T, dir, base string, recs []warctest.Record) {
	t.Helper()
	byPath := map[string][]warctest.Record{}
	for _, rec := range recs {
		switch rec.Get("WARC-Type") {
		case "resource", "response", "revisit":
			u := rec.Get("WARC-Target-URI")
			if rel, ok := strings.CutPrefix(u, base); ok && rel != "" && !strings.HasSuffix(rel, "/") {
				if dec, err := url.PathUnescape(rel); err == nil {
					rel = dec
				}
				byPath[rel] = append(byPath[rel], rec)
			}
		}
	}
	n := 0
	for digest, paths := range localFiles(t, dir) {
		for _, p := range paths {
			rel, _ := filepath.Rel(dir, p)
			rel = filepath.ToSlash(rel)
			found := false
			for _, rec := range byPath[rel] {
				d := rec.Get("WARC-Payload-Digest")
				found = found || d == digest
				if ty := rec.Get("WARC-Type"); ty != "revisit" && d != digest {
					t.Errorf("%s: a %s record of %d bytes with digest %s, not the file's %s", rel, ty, len(rec.Block), d, digest)
				}
			}
			if !found {
				t.Errorf("%s: no record with its digest %s (%d records)", rel, digest, len(byPath[rel]))
			}
			n++
		}
	}
	if n < 10 {
		t.Errorf("checked %d files", n)
	}
}

// fetch get --retry --warc-file through a cut: the retry asks for the
// whole file again (a resumed transfer would not be archived) and the
// output skips what it has; the archive holds the file whole, exit 0.
func TestFaultsGetRetryWARC(t *testing.T) {
	ftpS := servertest.Get(t, servertest.FTP)
	nginx := servertest.Get(t, servertest.NGINX)
	for _, srv := range []struct {
		name, url string
		cfg       faultproxy.Config
	}{
		{"vsftpd", "ftp://%s/pub/bin5m.bin", faultproxy.Config{Target: ftpS.Addr, Mode: faultproxy.FTP,
			Faults: []faultproxy.Fault{{Kind: faultproxy.Cut, Data: true, Count: 1, After: 2345678}}}},
		{"nginx", "http://%s/bin5m.bin", faultproxy.Config{Target: nginx.Addr, Mode: faultproxy.HTTP,
			Faults: []faultproxy.Fault{{Kind: faultproxy.Cut, Count: 1, After: 2345678}}}},
	} {
		t.Run(srv.name, func(t *testing.T) {
			p := startProxy(t, srv.cfg)
			work := t.TempDir()
			out, name := filepath.Join(work, "bin5m.bin"), filepath.Join(work, "w")
			u := fmt.Sprintf(srv.url, p.Addr())
			r := runArgs(t, nil, "", "get", "-s", "--retry", "3", "--warc-file", name, "-o", out, u)
			if r.code != fetch.ExitOK {
				t.Fatalf("exit %d\n%s", r.code, r.err)
			}
			if got := sha(t, out); got != servertest.Bin5MSHA256 {
				t.Errorf("sha256 %s, want %s", got, servertest.Bin5MSHA256)
			}
			if st := p.Stats(); st.Faults != 1 {
				t.Errorf("%d faults injected, want 1", st.Faults)
			}
			want := sha1File(t, out)
			var got []string
			for _, rec := range warctest.Check(t, warcFiles(t, name)...) {
				if ty := rec.Get("WARC-Type"); ty == "resource" || ty == "response" {
					got = append(got, rec.Get("WARC-Target-URI")+" "+rec.Get("WARC-Payload-Digest"))
				}
			}
			if !slices.Equal(got, []string{u + " " + want}) {
				t.Errorf("records %q, want one of %s with %s", got, u, want)
			}
		})
	}
}

// A WARC news mirror from INN through a connection cut or reset, while it
// reads an overview or articles: the failed work is tried again on a new
// connection (the groups listed again, a chunk from its first article not
// stored), and the run ends with exit 0, every article stored and
// recorded once. Before, the group failed and the run exited 8.
func TestFaultsNewsMirror(t *testing.T) {
	s := servertest.Get(t, servertest.NNTP)
	for _, kind := range []faultproxy.Kind{faultproxy.Cut, faultproxy.Reset} {
		for _, after := range []int64{5000, 30000, 60000} {
			name := map[faultproxy.Kind]string{faultproxy.Cut: "cut", faultproxy.Reset: "reset"}[kind]
			t.Run(fmt.Sprintf("%s/%d", name, after), func(t *testing.T) {
				p := startProxy(t, faultproxy.Config{Target: s.Addr,
					Faults: []faultproxy.Fault{{Kind: kind, Count: 1, After: after}}})
				work := t.TempDir()
				dir, name := filepath.Join(work, "m"), filepath.Join(work, "w")
				r := runArgs(t, nil, "", "mirror", "-s", "--warc-file", name, "nntp://"+p.Addr()+"/archive.*", dir)
				if r.code != fetch.ExitOK {
					t.Fatalf("exit %d\n%s%s", r.code, r.out, r.err)
				}
				if st := p.Stats(); st.Faults != 1 {
					t.Errorf("%d faults injected, want 1", st.Faults)
				}
				recorded := map[string]int{}
				for _, rec := range warctest.Check(t, warcFiles(t, name)...) {
					if rec.Get("WARC-Type") == "resource" {
						recorded[rec.Get("WARC-Payload-Digest")]++
					}
				}
				local := localFiles(t, dir)
				for d, paths := range local {
					if recorded[d] != 1 {
						t.Errorf("%q: %d records", paths, recorded[d])
					}
				}
				if len(local) < 500 || len(recorded) != len(local) {
					t.Errorf("%d distinct articles stored, %d recorded", len(local), len(recorded))
				}
			})
		}
	}
}

// A listing whose data connection is cut in the middle of a line, with
// vsftpd's 226 all the same (it wrote the whole listing): the driver asks
// for it again, and the mirror of many/ holds every file, exit 0. Before,
// the cut line was reported as a line of no known layout (exit 8), or,
// cut after "f0447.", taken for a file of that name, which failed.
func TestFaultsListingCut(t *testing.T) {
	s := servertest.Get(t, servertest.FTP)
	for _, after := range []int64{30000, 30011} { // lines of 67 bytes
		t.Run(fmt.Sprint(after), func(t *testing.T) {
			p := startProxy(t, faultproxy.Config{Target: s.Addr, Mode: faultproxy.FTP,
				Faults: []faultproxy.Fault{{Kind: faultproxy.Cut, Data: true, Conn: 1, After: after}}})
			dir := filepath.Join(t.TempDir(), "m")
			r := runArgs(t, nil, "", "mirror", "-s", "-j", "4", "ftp://"+p.Addr()+"/pub/many/", dir)
			if r.code != fetch.ExitOK {
				t.Fatalf("exit %d\n%s%s", r.code, r.out, r.err)
			}
			if st := p.Stats(); st.Faults != 1 {
				t.Errorf("%d faults injected, want 1", st.Faults)
			}
			many := servertest.Fixture(t, "ftp/pub/many")
			if n := sameFiles(t, many, dir, func(string) bool { return false }); n != 2000 {
				t.Errorf("compared %d files, want 2000", n)
			}
			if extra, _ := os.ReadDir(dir); len(extra) != 2000+1 { // and .fetch
				t.Errorf("%d entries in the mirror, want 2000 and .fetch", len(extra))
			}
		})
	}
}

// A menu of pygopherd (which ends a menu by closing, without the "."
// line) cut in the middle of a line: the driver asks for it again and
// gets all 2,000 items, exit 0, plain and Gopher+ alike. Before, fetch
// printed the 639 items before the cut and exited 0.
func TestFaultsGopherMenuCut(t *testing.T) {
	s := servertest.Get(t, servertest.Gopher)
	for _, sel := range []string{"/1/big", "/1/big%09%09%2B"} {
		t.Run(sel, func(t *testing.T) {
			p := startProxy(t, faultproxy.Config{Target: s.Addr,
				Faults: []faultproxy.Fault{{Kind: faultproxy.Cut, Count: 1, After: 30000}}})
			r := runArgs(t, nil, "", "get", "-s", "gopher://"+p.Addr()+sel)
			if r.code != fetch.ExitOK {
				t.Fatalf("exit %d\n%s", r.code, r.err)
			}
			if n := strings.Count(r.out, "\n"); n != 2000 {
				t.Errorf("%d menu lines, want 2000", n)
			}
			if st := p.Stats(); st.Faults != 1 || st.Conns != 2 {
				t.Errorf("%d faults, %d connections; want 1, 2", st.Faults, st.Conns)
			}
		})
	}
}

// A news mirror with -j 4 from INN behind a proxy that allows two
// connections (a server's limit per host, a provider's per account): the
// refused workers give their place up, the two others mirror every group,
// exit 0, and the run says so. Before, each refused worker's group failed
// after the retries, and the run exited 8.
func TestFaultsNewsBusy(t *testing.T) {
	s := servertest.Get(t, servertest.NNTP)
	p := startProxy(t, faultproxy.Config{Target: s.Addr, MaxConns: 2})
	dir := filepath.Join(t.TempDir(), "m")
	r := runArgs(t, nil, "", "mirror", "-j", "4", "nntp://"+p.Addr()+"/archive.*", dir)
	if r.code != fetch.ExitOK || !strings.Contains(r.err, "the mirror went on with") || strings.Contains(r.err, "with 4 of 4") {
		t.Fatalf("exit %d\n%s", r.code, r.err)
	}
	if st := p.Stats(); st.Refused == 0 {
		t.Error("no connection refused: the test tests nothing")
	}
	if n := len(localFiles(t, dir)); n < 500 {
		t.Errorf("%d distinct articles stored", n)
	}
}
