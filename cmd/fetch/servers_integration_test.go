package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/internal/testrig/servertest"
	"github.com/rfc1738/fetch/proto"
)

// The servers of scripts/servers.sh besides vsftpd and nginx, through the
// fetch command: ProFTPD and Pure-FTPd (DIR/ftp), Apache with its three
// mod_autoindex styles and lighttpd (DIR/www).
var otherServers = []struct {
	name   string
	server string
	base   string // URL path of the fixture root, "/" ending
	ftp    bool
}{
	{"proftpd", servertest.ProFTPD, "/pub/", true},
	{"pureftpd", servertest.PureFTPD, "/pub/", true},
	{"apache fancy", servertest.Apache, "/fancy/", false},
	{"apache table", servertest.Apache, "/table/", false},
	{"apache plain", servertest.Apache, "/plain/", false},
	{"lighttpd", servertest.Lighttpd, "/", false},
}

// A 5 MiB file and a name with a space, byte-exact; then -C - goes on from
// a partial file (REST over ftp, a Range request over http).
func TestIntegrationOtherServersGet(t *testing.T) {
	for _, tc := range otherServers {
		t.Run(tc.name, func(t *testing.T) {
			s := servertest.Get(t, tc.server)
			scheme, tree := "http", filepath.Join(s.Root, "www")
			if tc.ftp {
				scheme, tree = "ftp", filepath.Join(s.Root, "ftp", "pub")
			}
			base := scheme + "://" + s.Addr + tc.base
			dir := t.TempDir()
			r := runArgs(t, nil, "", "get", "-O", "--output-dir", dir, base+"bin5m.bin", base+"with%20space.txt")
			if r.code != 0 {
				t.Fatalf("get = %d (%s)", r.code, r.err)
			}
			if got := sha(t, filepath.Join(dir, "bin5m.bin")); got != servertest.Bin5MSHA256 {
				t.Errorf("bin5m.bin: sha256 %s, want %s", got, servertest.Bin5MSHA256)
			}
			if got, want := sha(t, filepath.Join(dir, "with space.txt")), sha(t, filepath.Join(tree, "with space.txt")); got != want {
				t.Errorf("with space.txt: sha256 %s, want %s", got, want)
			}
			assertOnly(t, dir, "bin5m.bin", "with space.txt")

			// -C -: the first part of the file is there already.
			dir = t.TempDir()
			out := filepath.Join(dir, "bin5m.bin")
			whole, err := os.ReadFile(filepath.Join(tree, "bin5m.bin"))
			if err != nil {
				t.Fatal(err)
			}
			const have = 2<<20 + 123
			if err := os.WriteFile(out+partSuffix, whole[:have], 0o644); err != nil {
				t.Fatal(err)
			}
			r = runArgs(t, nil, "", "get", "-v", "-C", "-", "-o", out, base+"bin5m.bin")
			want := "> REST " + strconv.Itoa(have) + "\n"
			if !tc.ftp {
				want = "> Range: bytes=" + strconv.Itoa(have) + "-"
			}
			if r.code != 0 || !strings.Contains(r.err, want) {
				t.Fatalf("resume = %d, want %q in the trace:\n%s", r.code, want, r.err)
			}
			if got := sha(t, out); got != servertest.Bin5MSHA256 {
				t.Errorf("resumed bin5m.bin: sha256 %s, want %s", got, servertest.Bin5MSHA256)
			}
			assertOnly(t, dir, "bin5m.bin")
		})
	}
}

// Directory listings: an ftp listing as JSON (MLSD on both servers), with
// each entry's type, size and time; an http index page is the page itself,
// with a link to every entry.
func TestIntegrationOtherServersListing(t *testing.T) {
	for _, tc := range otherServers {
		t.Run(tc.name, func(t *testing.T) {
			s := servertest.Get(t, tc.server)
			if !tc.ftp {
				r := runArgs(t, nil, "", "get", "http://"+s.Addr+tc.base+"dir/")
				for _, link := range []string{`href="a.txt"`, `href="sub/"`, `href="empty/"`} {
					if r.code != 0 || !strings.Contains(r.out, link) {
						t.Errorf("get %sdir/ = %d, no %s:\n%s", tc.base, r.code, link, r.out)
					}
				}
				return
			}
			r := runArgs(t, nil, "", "get", "-v", "--json", "ftp://"+s.Addr+"/pub/tree/")
			var doc document
			if err := json.Unmarshal([]byte(r.out), &doc); r.code != 0 || err != nil {
				t.Fatalf("get --json = %d, %v:\n%s%s", r.code, err, r.out, r.err)
			}
			got := map[string]proto.Entry{}
			for _, e := range doc.Entries {
				got[e.Name] = e
			}
			if doc.Kind != "directory" || len(got) != 3 || !strings.Contains(r.err, "> MLSD\n") {
				t.Errorf("kind %q, %d entries; want a directory of 3 read with MLSD:\n%s", doc.Kind, len(got), r.err)
			}
			if e := got["top.txt"]; e.Type != proto.EntryFile || e.Size != 16 || !e.ModTime.Equal(servertest.FixtureTime) {
				t.Errorf("top.txt = %+v, want a file of 16 bytes, time %v", e, servertest.FixtureTime)
			}
			for _, d := range []string{"a", "empty-dir"} {
				if e := got[d]; e.Type != proto.EntryDir || e.URL != "ftp://"+s.Addr+"/pub/tree/"+d+"/" {
					t.Errorf("%s = %+v, want a directory", d, e)
				}
			}
		})
	}
}

// A directory the server cannot read (blind/dark, mode 0711) is a failed
// entry, exit 8, and --delete keeps the local copies of its files: vsftpd
// lists it with "226 Transfer done (but failed to open directory)." and no
// entry, which the mirror used to take for an empty directory, deleting
// dark/unseen.txt with exit 0. Pure-FTPd and ProFTPD refuse its MLSD.
func TestMirrorUnreadableDirectoryKept(t *testing.T) {
	for _, tc := range []struct{ name, server string }{
		{"vsftpd", servertest.FTP}, {"pureftpd", servertest.PureFTPD}, {"proftpd", servertest.ProFTPD},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := servertest.Get(t, tc.server)
			dir := t.TempDir()
			kept := filepath.Join(dir, "dark", "unseen.txt")
			if err := os.MkdirAll(filepath.Dir(kept), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(kept, []byte("a copy from before\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			r := runArgs(t, nil, "", "mirror", "--delete", "ftp://"+s.Addr+"/blind/", dir)
			if r.code != fetch.ExitPartial || !strings.Contains(r.out, "failed    dark: cannot list the directory") ||
				!strings.Contains(r.out, "new 1, updated 0, unchanged 0, skipped 0, failed 1, deleted 0,") {
				t.Fatalf("mirror = %d, want 8 with dark failed\n%s%s", r.code, r.out, r.err)
			}
			if b, err := os.ReadFile(kept); err != nil || string(b) != "a copy from before\n" {
				t.Errorf("dark/unseen.txt: %q, %v; want it kept", b, err)
			}
			if b, err := os.ReadFile(filepath.Join(dir, "open.txt")); err != nil || string(b) != "in a directory that may be read\n" {
				t.Errorf("open.txt: %q, %v", b, err)
			}
		})
	}
}

// Gophernicus (DIR/gophernicus), the other gopher server of Debian: it lists
// directories itself, with a "1.." item back up, sends text with CRLF line
// ends and no "." line (a "." line inside a text is data), and binaries as
// they are. fetch get gives each document as sent; fetch mirror copies the
// hole (the link back up to the start named as skipped, not followed), and
// a second run finds every document unchanged.
func TestGophernicus(t *testing.T) {
	s := servertest.Get(t, servertest.Gophernicus)
	src := filepath.Join(s.Root, "gophernicus")
	crlf := func(rel string) string {
		b, err := os.ReadFile(filepath.Join(src, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		return strings.ReplaceAll(string(b), "\n", "\r\n")
	}
	base := "gopher://" + s.Addr
	for _, tc := range []struct{ url, want string }{
		{base + "/0/hello.txt", crlf("hello.txt")},
		{base + "/0/dots.txt", crlf("dots.txt")},
		// Its lines that begin with ".." are the file's: no "." line ends
		// it (they lost a dot).
		{base + "/0/ellipsis.txt", crlf("ellipsis.txt")},
		{base + "/0/dir/sub/inner.txt", crlf("dir/sub/inner.txt")},
	} {
		if r := runArgs(t, nil, "", "get", tc.url); r.code != fetch.ExitOK || r.out != tc.want {
			t.Errorf("get %s = %d, %q; want %q\n%s", tc.url, r.code, r.out, tc.want, r.err)
		}
	}
	dir := t.TempDir()
	if r := runArgs(t, nil, "", "get", "-o", filepath.Join(dir, "r.bin"), base+"/9/rand.bin"); r.code != fetch.ExitOK {
		t.Fatalf("get rand.bin = %d\n%s", r.code, r.err)
	}
	if got, want := sha(t, filepath.Join(dir, "r.bin")), sha(t, filepath.Join(src, "rand.bin")); got != want {
		t.Errorf("rand.bin: sha256 %s, want %s", got, want)
	}

	// A selector it cannot serve is answered with a line of text, which is
	// the error it says, not a document.
	if r := runArgs(t, nil, "", "get", base+"/0/links/gone.txt"); r.code == fetch.ExitOK || !strings.Contains(r.err, "File or directory not found") {
		t.Errorf("get gone.txt = %d, %q; want the server's error\n%s", r.code, r.out, r.err)
	}
	lm := filepath.Join(t.TempDir(), "links")
	r := runArgs(t, nil, "", "mirror", base+"/1/links/", lm)
	if r.code != fetch.ExitPartial || !strings.Contains(r.out, "failed    gone.txt") || !strings.Contains(r.out, "new 1,") {
		t.Errorf("mirror of links/ = %d, want 8 with gone.txt failed\n%s%s", r.code, r.out, r.err)
	}
	if _, err := os.Stat(filepath.Join(lm, "gone.txt")); err == nil {
		t.Error("gone.txt was stored")
	}

	m := filepath.Join(t.TempDir(), "m")
	r = runArgs(t, nil, "", "mirror", "--exclude", "links", base+"/1/", m)
	if r.code != fetch.ExitOK || !strings.Contains(r.out, "new 6, updated 0, unchanged 0, skipped 1, failed 0,") {
		t.Fatalf("mirror = %d, want 0 with 6 new and the link back up skipped\n%s%s", r.code, r.out, r.err)
	}
	for _, rel := range []string{"hello.txt", "dots.txt", "ellipsis.txt", "dir/a.txt", "dir/sub/inner.txt"} {
		if b, err := os.ReadFile(filepath.Join(m, filepath.FromSlash(rel))); err != nil || string(b) != crlf(rel) {
			t.Errorf("%s: %q, %v; want %q", rel, b, err, crlf(rel))
		}
	}
	if got, want := sha(t, filepath.Join(m, "rand.bin")), sha(t, filepath.Join(src, "rand.bin")); got != want {
		t.Errorf("mirrored rand.bin: sha256 %s, want %s", got, want)
	}
	for _, menu := range []string{"gophermap", "dir/gophermap", "dir/sub/gophermap"} {
		if _, err := os.Stat(filepath.Join(m, filepath.FromSlash(menu))); err != nil {
			t.Errorf("menu %s not kept: %v", menu, err)
		}
	}
	r = runArgs(t, nil, "", "mirror", "--exclude", "links", base+"/1/", m)
	if r.code != fetch.ExitOK || !strings.Contains(r.out, "new 0, updated 0, unchanged 6,") {
		t.Errorf("second mirror = %d, want every document unchanged\n%s%s", r.code, r.out, r.err)
	}
	// Its menus end with a "." line: --delete removes what they do not
	// list.
	if err := os.WriteFile(filepath.Join(m, "dir", "stale.txt"), []byte("gone\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runArgs(t, nil, "", "mirror", "--delete", "--exclude", "links", base+"/1/", m)
	if r.code != fetch.ExitOK || !strings.Contains(r.out, "unchanged 6, skipped 1, failed 0, deleted 1,") {
		t.Errorf("mirror --delete = %d, want dir/stale.txt deleted\n%s%s", r.code, r.out, r.err)
	}
}

// TestGetNameListServers: fetch get ftp://HOST/pub/tree/;type=d prints the
// names of the directory one per line, from each FTP server of the set;
// Pure-FTPd's NLST names "." and ".." too, which are no entries.
func TestGetNameListServers(t *testing.T) {
	for _, tc := range []struct{ name, server string }{
		{"vsftpd", servertest.FTP}, {"pureftpd", servertest.PureFTPD}, {"proftpd", servertest.ProFTPD},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := servertest.Get(t, tc.server)
			r := runArgs(t, nil, "", "get", "ftp://"+s.Addr+"/pub/tree/;type=d")
			names := strings.Fields(r.out)
			slices.Sort(names)
			if r.code != fetch.ExitOK || strings.Join(names, " ") != "a empty-dir top.txt" {
				t.Errorf("get ;type=d = %d, %q; want a, empty-dir and top.txt\n%s", r.code, r.out, r.err)
			}
		})
	}
}
