package ftp

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/internal/testrig/servertest"
	"github.com/rfc1738/fetch/internal/testrig/wirecount"
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// The FTP servers of scripts/servers.sh besides vsftpd: ProFTPD and
// Pure-FTPd serve the same anonymous tree (DIR/ftp), and both offer MLSD,
// which vsftpd does not. The tests below run against each of them.
var otherFTPServers = []string{servertest.ProFTPD, servertest.PureFTPD}

// otherFTPClient is a request dialling from an address of its own (the
// ProFTPD command log is told apart by client address).
func otherFTPClient(t *testing.T, name string) (servertest.Server, *proto.Request, string) {
	t.Helper()
	s := servertest.Get(t, name)
	ip := servertest.UniqueLoopback(t)
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: ip}, Timeout: 5 * time.Second}
	req := &proto.Request{Dial: d.DialContext, ConnectTimeout: 5 * time.Second, IdleTimeout: 10 * time.Second}
	return s, req, ip.String()
}

// proftpdCommands returns the commands that the client at ip sent, in
// order, from the ProFTPD command log (FETCH_TEST_PROFTPD_LOG) after
// offset since. Its lines are written by the LogFormat of servers.sh:
//
//	2026-11-25 02:02:43 127.0.0.1 31994 "CWD pub" 250
func proftpdCommands(t *testing.T, s servertest.Server, since int64, ip string) []string {
	t.Helper()
	if s.Log == "" {
		t.Fatal("FETCH_TEST_PROFTPD_LOG is not set")
	}
	f, err := os.Open(s.Log)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Seek(since, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	var cmds []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		head, rest, ok := strings.Cut(sc.Text(), ` "`)
		fields := strings.Fields(head)
		i := strings.LastIndexByte(rest, '"')
		if !ok || len(fields) != 4 || i < 0 || fields[2] != ip {
			continue
		}
		cmds = append(cmds, rest[:i])
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cmds
}

func logSize(t *testing.T, s servertest.Server) int64 {
	t.Helper()
	if s.Name != servertest.ProFTPD {
		return 0
	}
	st, err := os.Stat(s.Log)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

// Retrieval: files byte-exact, with MDTM times, in TYPE I and TYPE A, and
// a resumed transfer (REST).
func TestOtherFTPRetrieve(t *testing.T) {
	for _, name := range otherFTPServers {
		t.Run(name, func(t *testing.T) {
			s, req, ip := otherFTPClient(t, name)
			since := logSize(t, s)
			d := &Driver{}
			defer d.CloseIdleConnections()
			for _, tc := range []struct {
				path, file string
				mtime      time.Time
			}{
				{"/pub/hello.txt", "pub/hello.txt", servertest.LaterTime},
				{"/pub/with%20space.txt", "pub/with space.txt", servertest.FixtureTime},
				{"/pub/empty.txt", "pub/empty.txt", servertest.FixtureTime},
				{"/pub/odd/caf%C3%A9.txt", "pub/odd/café.txt", servertest.FixtureTime},
				{"/pub/lines.txt;type=a", "pub/lines.txt", servertest.FixtureTime},
				{"/%2Fetc/motd", "etc/motd", servertest.FixtureTime},
			} {
				resp, body, err := get(t, d, "ftp://"+s.Addr+tc.path, req)
				if err != nil {
					t.Errorf("%s: %v", tc.path, err)
					continue
				}
				want, err := os.ReadFile(filepath.Join(s.Root, "ftp", tc.file))
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(body, want) {
					t.Errorf("%s: %d bytes %q, want the file's %d bytes", tc.path, len(body), body[:min(len(body), 40)], len(want))
				}
				if !resp.ModTime.Equal(tc.mtime) {
					t.Errorf("%s: ModTime %v, want %v (MDTM)", tc.path, resp.ModTime, tc.mtime)
				}
			}
			resp, body, err := get(t, d, "ftp://"+s.Addr+"/pub/bin5m.bin", req)
			if err != nil {
				t.Fatal(err)
			}
			if h, _, _ := servertest.SHA256(bytes.NewReader(body)); h != servertest.Bin5MSHA256 || resp.Size != servertest.Bin5MSize {
				t.Errorf("bin5m.bin: sha256 %s size %d", h, resp.Size)
			}
			r2 := *req
			r2.Offset = 3<<20 + 17
			resp, tail, err := get(t, d, "ftp://"+s.Addr+"/pub/bin5m.bin", &r2)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Offset != r2.Offset || !bytes.Equal(tail, body[r2.Offset:]) {
				t.Errorf("resume at %d: Offset %d, %d bytes", r2.Offset, resp.Offset, len(tail))
			}
			if name == servertest.ProFTPD {
				cmds := proftpdCommands(t, s, since, ip)
				want := []string{"CWD pub", "TYPE A", "RETR lines.txt", "CWD /etc", "RETR motd", fmt.Sprintf("REST %d", r2.Offset), "RETR bin5m.bin"}
				if !inOrder(cmds, want) || countPrefix(cmds, "USER ") != 1 {
					t.Errorf("proftpd saw %q, want one login and %q in order", cmds, want)
				}
			}
		})
	}
}

// Listings of pub/ with MLSD (the driver's choice: FEAT offers MLST) and
// with LIST (Driver.DisableMLSD), with and without ListAll: every entry of
// the fixture directory is there with its type and size, and nothing
// else; LIST without -a leaves out the names that begin with a dot (.hidden),
// as ls does, and MLSD lists them all.
func TestOtherFTPListings(t *testing.T) {
	for _, name := range otherFTPServers {
		for _, mode := range []struct {
			disable bool
			all     bool
			format  string
			verb    string
		}{{false, true, formatMLSD, "MLSD"}, {true, true, formatLIST, "LIST -a"}, {true, false, formatLIST, "LIST"}} {
			t.Run(name+"/"+mode.verb, func(t *testing.T) {
				s, req, ip := otherFTPClient(t, name)
				since := logSize(t, s)
				d := New(Config{DisableMLSD: mode.disable})
				defer d.CloseIdleConnections()
				resp, trace := listTraced(t, d, req, "ftp://"+s.Addr+"/pub/", mode.all)
				if resp.Info["ftp_listing"] != mode.format {
					t.Errorf("listing format %v, want %s", resp.Info["ftp_listing"], mode.format)
				}
				if u := resp.Listing.Unparsed; len(u) > 0 {
					t.Errorf("lines that fit no layout: %v", u)
				}
				if !strings.Contains(trace, "> "+mode.verb+"\n") {
					t.Errorf("trace has no %s:\n%s", mode.verb, trace)
				}
				checkListing(t, filepath.Join(s.Root, "ftp", "pub"), resp.Entries, mode.format, name, mode.all)
				if d := resp.Listing.DotNames; d != "" {
					t.Errorf("Listing.DotNames = %q", d)
				}
				if name == servertest.ProFTPD {
					if cmds := proftpdCommands(t, s, since, ip); !slices.Contains(cmds, mode.verb) {
						t.Errorf("proftpd saw %q, want %s", cmds, mode.verb)
					}
				}
			})
		}
	}
}

// Pure-FTPd runs with -L 1500:8 (scripts/servers.sh): its listings of
// pub/many (2,000 files and "." and "..") stop at 1,500 entries with "226
// Output truncated to 1500 matches", for MLSD and LIST alike. The driver
// asks for the other end (LIST -r, or -ar) and gives all 2,000 files,
// not marked as cut.
func TestPureFTPdCutListing(t *testing.T) {
	for _, mode := range []struct {
		name    string
		disable bool
		all     bool
		rev     string
	}{{"MLSD", false, true, "> LIST -ar\n"}, {"LIST -a", true, true, "> LIST -ar\n"}, {"LIST", true, false, "> LIST -r\n"}} {
		t.Run(mode.name, func(t *testing.T) {
			s, req, _ := otherFTPClient(t, servertest.PureFTPD)
			d := New(Config{DisableMLSD: mode.disable, PipelinePassive: true})
			defer d.CloseIdleConnections()
			resp, tr := listTraced(t, d, req, "ftp://"+s.Addr+"/pub/many/", mode.all)
			if c := resp.Listing.Truncated; c != "" {
				t.Errorf("Listing.Truncated = %q", c)
			}
			if !strings.Contains(tr, "Output truncated to 1500 matches") || !strings.Contains(tr, mode.rev) {
				t.Errorf("trace lacks the cut or %q:\n%.3000s", mode.rev, tr)
			}
			seen := map[string]bool{}
			for _, e := range resp.Entries {
				if seen[e.Name] || e.Type != proto.EntryFile || e.Size != 10 {
					t.Errorf("entry %+v: twice, or not a file of 10 bytes", e)
				}
				seen[e.Name] = true
			}
			for i := range servertest.ManyFiles {
				if n := fmt.Sprintf("f%04d.txt", i); !seen[n] {
					t.Errorf("%s not listed", n)
				}
			}
			if len(seen) != servertest.ManyFiles {
				t.Errorf("%d entries, want %d", len(seen), servertest.ManyFiles)
			}
		})
	}
}

// listTraced lists url with d and req, ListAll set to all, and returns the
// response and the protocol trace; a failure ends the test, with the
// trace.
func listTraced(t *testing.T, d *Driver, req *proto.Request, url string, all bool) (*proto.Response, string) {
	t.Helper()
	var trace bytes.Buffer
	req.Trace = &trace
	req.Options.FTP.ListAll = all
	resp, _, err := get(t, d, url, req)
	if err != nil {
		t.Fatalf("%v\n%s", err, trace.String())
	}
	return resp, trace.String()
}

// checkListing compares entries with the directory dir on disk. Scratch
// directories that other tests make in pub/ are left out on both sides,
// and so are the names that begin with a dot unless dots is set.
func checkListing(t *testing.T, dir string, entries []proto.Entry, format, server string, dots bool) {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]proto.Entry{}
	for _, e := range entries {
		if strings.HasPrefix(e.Name, "scratch-") {
			continue
		}
		if _, dup := got[e.Name]; dup || e.Name == "." || e.Name == ".." || e.Name == "" {
			t.Errorf("entry %q: duplicate, empty, . or ..", e.Name)
		}
		got[e.Name] = e
	}
	n := 0
	for _, de := range des {
		name := de.Name()
		if strings.HasPrefix(name, "scratch-") || !dots && strings.HasPrefix(name, ".") {
			continue
		}
		n++
		fi, err := os.Lstat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		e, ok := got[name]
		if !ok {
			t.Errorf("%s: not listed", name)
			continue
		}
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			// ProFTPD's MLSD says type=OS.unix=symlink, without the
			// target: the driver asks LIST -d for it (linkTargets).
			target, _ := os.Readlink(filepath.Join(dir, name))
			if e.Type != proto.EntryLink || e.Target != target {
				t.Errorf("%s: %+v, want a link to %q", name, e, target)
			}
		case fi.IsDir():
			if e.Type != proto.EntryDir {
				t.Errorf("%s: %+v, want a directory", name, e)
			}
		default:
			if e.Type != proto.EntryFile || e.Size != fi.Size() {
				t.Errorf("%s: %+v, want a file of %d bytes", name, e, fi.Size())
			}
			// MLSD gives the time to the second, LIST (for a year
			// other than the current one) the day.
			want := fi.ModTime().UTC()
			if format == formatLIST {
				want = want.Truncate(24 * time.Hour)
			}
			if !e.ModTime.Equal(want) {
				t.Errorf("%s: ModTime %v, want %v", name, e.ModTime, want)
			}
		}
	}
	if len(got) != n {
		t.Errorf("%d entries listed, the directory has %d", len(got), n)
	}
}

// blind/dark (mode 0711) may be entered but not read. vsftpd answers its
// LIST with "226 Transfer done (but failed to open directory).", Pure-FTPd
// with "226-Sorry, we were unable to read [.]": both are failures that
// wrap proto.ErrPermission, not empty directories. Their MLSD, and
// ProFTPD's, is refused with 550. (ProFTPD's LIST says "226 Transfer
// complete" with nothing listed: an empty directory to any client.)
func TestUnreadableDirectory(t *testing.T) {
	for _, tc := range []struct {
		name    string
		server  string
		disable bool // list with LIST: the refusal comes as a 226
	}{
		{"vsftpd/LIST", servertest.FTP, true},
		{"pureftpd/LIST", servertest.PureFTPD, true},
		{"pureftpd/MLSD", servertest.PureFTPD, false},
		{"proftpd/MLSD", servertest.ProFTPD, false},
	} {
		for _, pipe := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/pipelined=%v", tc.name, pipe), func(t *testing.T) {
				s, req, _ := otherFTPClient(t, tc.server)
				d := New(Config{DisableMLSD: tc.disable, PipelinePassive: pipe})
				defer d.CloseIdleConnections()
				req.Options.FTP.ListAll = true
				_, _, err := get(t, d, "ftp://"+s.Addr+"/blind/dark/", req)
				if !errors.Is(err, proto.ErrPermission) && replyCode(err) != StatusFileUnavailable {
					t.Fatalf("Fetch = %v, want a refusal (ErrPermission or 550)", err)
				}
				// A 226 read as a failure carries no reply error of
				// its own (a refusal would be the server's 550).
				if tc.disable && (!errors.Is(err, proto.ErrPermission) || replyCode(err) != 0 || !strings.HasPrefix(failedCmd(err), "LIST")) {
					t.Errorf("Fetch = %v, want the 226 named as a failure to read", err)
				}
				// The next listing on the same Driver works.
				resp, _, err := get(t, d, "ftp://"+s.Addr+"/blind/", req)
				if err != nil || len(resp.Entries) != 2 {
					t.Errorf("listing blind/ = %v, %d entries; want open.txt and dark", err, len(resp.Entries))
				}
			})
		}
	}
}

// ModTimes against real servers (vsftpd, ProFTPD, Pure-FTPd): the MDTM
// commands of one call, all in one write, are each answered in order with
// the time of the file they name; a missing file gives zero.
func TestServersModTimes(t *testing.T) {
	for _, name := range append([]string{servertest.FTP}, otherFTPServers...) {
		t.Run(name, func(t *testing.T) {
			s := servertest.Get(t, name)
			w := &wirecount.Writes{Verb: "MDTM"}
			req := &proto.Request{Dial: w.Dial, ConnectTimeout: 5 * time.Second, IdleTimeout: 10 * time.Second}
			d := &Driver{}
			defer d.CloseIdleConnections()
			ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
			defer cancel()
			names := []string{"hello.txt", "no such file", "with space.txt", "empty.txt"}
			got, err := d.ModTimes(ctx, uri.MustParse("ftp://"+s.Addr+"/pub/"), req, names)
			if err != nil {
				t.Fatal(err)
			}
			want := []time.Time{servertest.LaterTime, {}, servertest.FixtureTime, servertest.FixtureTime}
			if !slices.EqualFunc(got, want, time.Time.Equal) {
				t.Errorf("ModTimes(%q) = %v, want %v", names, got, want)
			}
			if ws := w.Counts(); !slices.Equal(ws, []int{len(names)}) {
				t.Errorf("MDTM commands in writes of %v, want all %d in one", ws, len(names))
			}
		})
	}
}

// A refused login, with FEAT, TYPE I and PWD sent after PASS in the same
// write: the server's refusal is the error (proto.ErrLogin, the reply to
// PASS), whatever it does with what follows, and the next login on a new
// connection works. Pure-FTPd (-e, anonymous only) takes any user for
// anonymous, and vsftpd's refusal is TestVsftpdPasswordLogin's: ProFTPD.
func TestOtherFTPLoginRefused(t *testing.T) {
	for _, name := range []string{servertest.ProFTPD} {
		t.Run(name, func(t *testing.T) {
			s, req, _ := otherFTPClient(t, name)
			d := &Driver{}
			defer d.CloseIdleConnections()
			_, _, err := get(t, d, "ftp://nosuchuser:wrong-s3cret@"+s.Addr+"/pub/hello.txt", req)
			var ce *CommandError
			if !errors.Is(err, proto.ErrLogin) || !errors.As(err, &ce) || ce.Cmd != "PASS ****" || replyCode(err) != StatusNotLoggedIn {
				t.Fatalf("got %v, want the 530 of PASS as proto.ErrLogin", err)
			}
			if strings.Contains(err.Error(), "s3cret") {
				t.Errorf("the error shows the password: %v", err)
			}
			if _, _, err := get(t, d, "ftp://"+s.Addr+"/pub/hello.txt", req); err != nil {
				t.Errorf("anonymous after the refused login: %v", err)
			}
		})
	}
}
