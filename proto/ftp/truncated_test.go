package ftp

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/proto"
)

// A listing whose completion reply says the server cut it short (RFC 959
// section 4.2 leaves the text of a 226 to the server; Pure-FTPd's
// "Output truncated to N matches", its last line after "226-Options: -l"
// for LIST) is returned with its entries and Listing.Truncated set to
// that reply; any other 226 leaves the key out. For LIST and MLSD, with
// and without pipelining.
func TestListingTruncated(t *testing.T) {
	const (
		list = "-rw-r--r-- 1 0 0 10 Feb 03  2001 f1.txt\r\n-rw-r--r-- 1 0 0 10 Feb 03  2001 f2.txt\r\n"
		mlsd = "type=file;size=10;modify=20010203040506; f1.txt\r\ntype=file;size=10;modify=20010203040506; f2.txt\r\n"
	)
	for _, tc := range []struct {
		name, done, want string
	}{
		{"pure-ftpd LIST", "226-Options: -a -l \r\n226 Output truncated to 2 matches", "226 Output truncated to 2 matches"},
		{"pure-ftpd MLSD", "226 Output truncated to 2 matches", "226 Output truncated to 2 matches"},
		{"other wording", "226 Directory listing TRUNCATED at 2 entries", "226 Directory listing TRUNCATED at 2 entries"},
		{"whole", "226-Options: -a -l \r\n226 2 matches total", ""},
		{"plain", "", ""},
	} {
		for _, mode := range []struct {
			name string
			mlsd bool
			pipe bool
		}{{"LIST", false, false}, {"LIST pipelined", false, true}, {"MLSD", true, false}, {"MLSD pipelined", true, true}} {
			t.Run(tc.name+"/"+mode.name, func(t *testing.T) {
				f := newFake(t)
				f.lists["LIST"] = []byte(list)
				if mode.mlsd {
					f.feat = append(f.feat, "MLST type*;size*;modify*;")
					f.lists["MLSD"] = []byte(mlsd)
				}
				f.listDone = tc.done
				f.start()
				d := New(Config{PipelinePassive: mode.pipe})
				defer d.CloseIdleConnections()
				resp, _, err := get(t, d, f.url("/"), quickReq())
				if err != nil {
					t.Fatal(err)
				}
				if len(resp.Entries) != 2 {
					t.Errorf("%d entries, want 2", len(resp.Entries))
				}
				if got := resp.Listing.Truncated; got != tc.want {
					t.Errorf("Listing.Truncated = %q, want %q", got, tc.want)
				}
				if got := resp.Info["ftp_listing"]; (got == formatMLSD) != mode.mlsd {
					t.Errorf("listed with %v", got)
				}
			})
		}
		// NLST (;type=d) too, without an attempt at the other end.
		t.Run(tc.name+"/NLST", func(t *testing.T) {
			f := newFake(t)
			f.lists["NLST"] = []byte("f1.txt\r\nf2.txt\r\n")
			f.listDone = tc.done
			f.start()
			d := &Driver{}
			defer d.CloseIdleConnections()
			resp, body, err := get(t, d, f.url("/;type=d"), quickReq())
			if err != nil {
				t.Fatal(err)
			}
			if string(body) != "f1.txt\nf2.txt\n" {
				t.Errorf("body %q", body)
			}
			if got := resp.Listing.Truncated; got != tc.want {
				t.Errorf("Listing.Truncated = %q, want %q", got, tc.want)
			}
			f.mu.Lock()
			n := strings.Count(f.wire.String(), "NLST")
			f.mu.Unlock()
			if n != 1 {
				t.Errorf("%d NLST sent, want 1", n)
			}
		})
	}
}

// joinEnds: the first names of a listing and its last names from the end
// make the whole listing only when they meet, in opposite orders.
func TestJoinEnds(t *testing.T) {
	all := []string{".", "..", "a", "b", "c", "d", "e"}
	first := func(n int) []string { return all[:n] }
	last := func(n int) []string { return reversed(all[len(all)-n:]) }
	for _, tt := range []struct {
		name     string
		fwd, rev []string
		extra    int
		ok       bool
	}{
		{"meet in one name", first(4), last(4), 3, true},
		{"meet in three", first(5), last(5), 2, true},
		{"not cut at all", all, reversed(all), 0, true},
		{"touch without a common name", first(3), last(4), 0, false},
		{"a gap", first(3), last(3), 0, false},
		{"-r ignored", first(4), first(4), 0, false},
		{"rev out of step after the meeting point", first(4), []string{"e", "d", "b", ".."}, 0, false},
		{"fwd's last name early in rev", first(4), []string{"b", "e", "d", "c"}, 0, false},
		{"empty", nil, last(3), 0, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			extra, ok := joinEnds(tt.fwd, tt.rev)
			if extra != tt.extra || ok != tt.ok {
				t.Errorf("joinEnds(%q, %q) = %d, %v; want %d, %v", tt.fwd, tt.rev, extra, ok, tt.extra, tt.ok)
			}
		})
	}
}

func reversed(s []string) []string {
	r := slices.Clone(s)
	slices.Reverse(r)
	return r
}

// A listing cut at the server's limit, as Pure-FTPd cuts it (sorted by
// name, then the first N; with -r the last N from the end), is made whole
// by LIST -ar when the two ends meet, for a cut LIST -a and a cut MLSD
// (then listed again with LIST -a) alike: every entry, no Listing.Truncated.
// When they do not meet, or the server refuses -r, the cut listing is
// returned with Listing.Truncated.
func TestListingBothEnds(t *testing.T) {
	line := func(name string) string { return "-rw-r--r-- 1 0 0 5 Feb 03  2001 " + name + "\r\n" }
	dots := "drwxr-xr-x 2 0 0 4096 Feb 03  2001 .\r\ndrwxr-xr-x 3 0 0 4096 Feb 03  2001 ..\r\n"
	var names []string
	for i := range 10 {
		names = append(names, fmt.Sprintf("f%02d", i))
	}
	// The directory, sorted: ".", "..", f00..f09 (12 entries).
	fwd := func(n int) string { // the first n entries
		s := dots
		for _, nm := range names[:n-2] {
			s += line(nm)
		}
		return s
	}
	rev := func(n int) string { // the last n entries, from the end
		s := ""
		for i := len(names) - 1; i >= len(names)-n; i-- {
			s += line(names[i])
		}
		return s
	}
	mlsdOf := func(n, from int) string { // n entries, the names from names[from] on
		s := "type=cdir;modify=20010203040506; .\r\ntype=pdir;modify=20010203040506; ..\r\n"
		for _, nm := range names[from : from+n-2] {
			s += "type=file;size=5;modify=20010203040506; " + nm + "\r\n"
		}
		return s
	}
	for _, tc := range []struct {
		name   string
		mlsd   bool
		from   int // the first name of the cut MLSD listing (Pure-FTPd's MLSD is not sorted)
		limit  int
		noRev  bool
		revCut bool // the reverse listing's data is cut mid-line once
		whole  bool
		listed string // the LIST commands sent
	}{
		{"LIST, ends meet", false, 0, 7, false, false, true, "LIST -a|LIST -ar"},
		{"MLSD, ends meet", true, 0, 7, false, false, true, "LIST -a|LIST -ar"},
		{"MLSD in its own order, ends meet", true, 5, 7, false, false, true, "LIST -a|LIST -ar"},
		{"LIST, a gap", false, 0, 5, false, false, false, "LIST -a|LIST -ar"},
		{"-r refused", false, 0, 7, true, false, false, "LIST -a|LIST -ar"},
		{"reverse cut once", false, 0, 7, false, true, true, "LIST -a|LIST -ar|LIST -ar"},
	} {
		for _, mode := range []struct{ pipe, stream bool }{{false, false}, {true, false}, {false, true}, {true, true}} {
			pipe := mode.pipe
			t.Run(fmt.Sprintf("%s/pipelined=%v/stream=%v", tc.name, pipe, mode.stream), func(t *testing.T) {
				f := newFake(t)
				f.replies["SYST"] = "215 UNIX Type: L8"
				f.lists["LIST -a"] = []byte(fwd(tc.limit))
				if tc.mlsd {
					f.feat = append(f.feat, "MLST type*;size*;modify*;")
					f.lists["MLSD"] = []byte(mlsdOf(tc.limit, tc.from))
				}
				switch {
				case tc.noRev:
					f.replies["LIST -ar"] = "501 unknown option"
				case tc.revCut:
					r := rev(tc.limit)
					f.listSeq = map[string][][]byte{"LIST -ar": {[]byte(r[:len(r)-5]), []byte(r)}}
				default:
					f.lists["LIST -ar"] = []byte(rev(tc.limit))
				}
				f.listDone = fmt.Sprintf("226-Options: -a -l \r\n226 Output truncated to %d matches", tc.limit)
				f.start()
				d := New(Config{PipelinePassive: pipe})
				defer d.CloseIdleConnections()
				req := quickReq()
				req.Options.FTP.ListAll = true
				entries, notes, err := listVia(t, d, f.url("/"), req, mode.stream)
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, e := range entries {
					got = append(got, e.Name)
				}
				cut := notes.Truncated
				if mode.stream {
					// The entries the cut listing lacked come after
					// those it gave, which need not be the first.
					slices.Sort(got)
				}
				if tc.whole {
					if !slices.Equal(got, names) || cut != "" {
						t.Errorf("entries %q, truncated %q; want all of %q and no cut", got, cut, names)
					}
					// In LIST's layout, whose times are minutes
					// (the server has MDTM).
					if !notes.CoarseTimes {
						t.Error("CoarseTimes false: the whole listing is not in LIST's layout")
					}
				} else if len(got) != tc.limit-2 || cut != fmt.Sprintf("226 Output truncated to %d matches", tc.limit) {
					t.Errorf("entries %q, truncated %q; want the cut listing, marked", got, cut)
				}
				listed := tc.listed
				if mode.stream && !tc.mlsd {
					// The cut listing, its entries handed over, is
					// asked for again to be checked.
					listed = "LIST -a|" + listed
				}
				if got := listCommands(f); got != listed {
					t.Errorf("LIST commands %q, want %q", got, listed)
				}
			})
		}
	}
}

// FuzzJoinEnds: any two listings give names line by line, and a join that
// succeeds adds only names the forward listing lacks, up to the name where
// the two meet.
func FuzzJoinEnds(f *testing.F) {
	f.Add([]byte("-rw-r--r-- 1 0 0 5 Feb 03  2001 a\r\n-rw-r--r-- 1 0 0 5 Feb 03  2001 b\r\n"),
		[]byte("-rw-r--r-- 1 0 0 5 Feb 03  2001 c\r\n-rw-r--r-- 1 0 0 5 Feb 03  2001 b\r\n"))
	f.Add([]byte("a\nb\n"), []byte("b\na\n"))
	f.Fuzz(func(t *testing.T, fwd, rev []byte) {
		fNames, fLines := listedNames(fwd, "UNIX Type: L8")
		rNames, rLines := listedNames(rev, "")
		if len(fNames) != len(fLines) || len(rNames) != len(rLines) {
			t.Fatalf("names and lines differ in number")
		}
		extra, ok := joinEnds(fNames, rNames)
		if !ok {
			return
		}
		if extra >= len(rNames) || rNames[extra] != fNames[len(fNames)-1] {
			t.Fatalf("joined at %d, not where rev reaches fwd's last name", extra)
		}
		for _, n := range rNames[:extra] {
			if slices.Contains(fNames, n) {
				t.Fatalf("added %q, which fwd has", n)
			}
		}
	})
}

// A listing of a directory the server could not read, answered with 226
// and no entry (vsftpd's "Transfer done (but failed to open directory).",
// Pure-FTPd's "226-Sorry, we were unable to read [.]"), is a failure that
// wraps proto.ErrPermission, not an empty directory; an empty directory
// with a plain 226 is one. So is a listing whose data is ls's own error
// about the directory and nothing else, with a plain 226: the BSD ftpd
// (ftpd-ssl 0.17) runs /bin/ls and sends what it writes to stderr too,
// inetutils-ftpd 2.4 has an ls of its own; both were reported as a line
// that fits no known layout (exit 8, and the NLST fallback tried). Such a
// line among entries is still an unread line.
func TestListingUnreadable(t *testing.T) {
	const bsdLine = "/bin/ls: cannot open directory '.': Permission denied\r\n"
	for _, tc := range []struct {
		name, data, done string
		fail             bool
	}{
		{"vsftpd", "", "226 Transfer done (but failed to open directory).", true},
		{"pure-ftpd", "", "226-Sorry, we were unable to read [.]\r\n226-Options: -l \r\n226 0 matches total", true},
		{"BSD ftpd", bsdLine, "226 Transfer complete.", true},
		{"BSD ftpd, older ls", "ls: .: Permission denied\n", "226 Transfer complete.", true},
		{"inetutils-ftpd", ".: Permission denied\r\n", "226 Transfer complete.", true},
		{"empty directory", "", "226 Transfer complete", false},
		{"empty, pure-ftpd", "", "226-Options: -l \r\n226 0 matches total", false},
		{"other text", "", "226-Unable to read the message file.\r\n226 Transfer complete", false},
		{"error among entries", "-rw-r--r-- 1 0 0 5 Feb  3  2001 a\r\n" + bsdLine, "226 Transfer complete.", false},
	} {
		for _, pipe := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/pipelined=%v", tc.name, pipe), func(t *testing.T) {
				f := newFake(t)
				f.lists["LIST"] = []byte(tc.data)
				f.listDone = tc.done
				f.start()
				d := New(Config{PipelinePassive: pipe})
				defer d.CloseIdleConnections()
				resp, _, err := get(t, d, f.url("/dark/"), quickReq())
				switch {
				case tc.fail && (!errors.Is(err, proto.ErrPermission) || !strings.Contains(fmt.Sprint(err), "could not read the directory")):
					t.Errorf("Fetch = %v, want a failure wrapping ErrPermission", err)
				case !tc.fail && (err != nil || len(resp.Entries) != strings.Count(tc.data, "-rw")):
					t.Errorf("Fetch = %v, want the directory listed", err)
				}
			})
		}
	}
}

// An MLSD listing gives a symbolic link without its target (RFC 3659 has
// no fact for it; ProFTPD: type=OS.unix=symlink): "LIST -d NAME" is asked
// for it on a Unix server, and the target it lists is the entry's. A link
// with a target, a name that would read as an option or a glob, and a
// server that is not Unix are not asked.
func TestLinkTargets(t *testing.T) {
	const mlsd = "type=OS.unix=symlink;modify=20010203040506; ln\r\n" +
		"type=OS.unix=slink:/t;modify=20010203040506; known\r\n" +
		"type=OS.unix=symlink;modify=20010203040506; -dash\r\n" +
		"type=OS.unix=symlink;modify=20010203040506; gl*b\r\n" +
		"type=file;size=3;modify=20010203040506; f\r\n"
	for _, tc := range []struct {
		name, syst, ln, lists string
	}{
		{"unix", "215 UNIX Type: L8", "target", "LIST -d ln"},
		{"not unix", "215 Windows_NT", "", ""},
	} {
		for _, pipe := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/pipelined=%v", tc.name, pipe), func(t *testing.T) {
				f := newFake(t)
				f.replies["SYST"] = tc.syst
				f.feat = append(f.feat, "MLST type*;size*;modify*;")
				f.lists["MLSD"] = []byte(mlsd)
				f.lists["LIST -d ln"] = []byte("lrwxrwxrwx 1 0 0 6 Feb 03  2001 ln -> target\r\n")
				f.start()
				d := New(Config{PipelinePassive: pipe})
				defer d.CloseIdleConnections()
				resp, _, err := get(t, d, f.url("/"), quickReq())
				if err != nil {
					t.Fatal(err)
				}
				targets := map[string]string{}
				for _, e := range resp.Entries {
					targets[e.Name] = e.Target
				}
				if want := map[string]string{"ln": tc.ln, "known": "/t", "-dash": "", "gl*b": "", "f": ""}; !maps.Equal(targets, want) {
					t.Errorf("targets %q, want %q", targets, want)
				}
				if got := listCommands(f); got != tc.lists {
					t.Errorf("LIST commands %q, want %q", got, tc.lists)
				}
			})
		}
	}
}
