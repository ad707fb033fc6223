package mirror

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rfc1738/fetch/internal/testrig/servertest"
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/proto/ftp"
	"github.com/rfc1738/fetch/proto/gopher"
	"github.com/rfc1738/fetch/proto/http"
	"github.com/rfc1738/fetch/uri"
)

// Integration tests against the real servers of scripts/servers.sh (see
// package servertest): they skip when the servers are not configured, and
// fail when CI=true.

// fromIP returns a request template whose connections (control and data)
// leave from ip, so that the vsftpd log shows this test's commands apart.
func fromIP(ip net.IP) proto.Request {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: ip}, Timeout: 5 * time.Second}
	return proto.Request{Dial: d.DialContext, IdleTimeout: 20 * time.Second}
}

// verbs counts the commands of a vsftpd log by verb.
func verbs(cmds []string) map[string]int {
	n := map[string]int{}
	for _, c := range cmds {
		v, _, _ := strings.Cut(c, " ")
		n[strings.ToUpper(v)]++
	}
	return n
}

// retrs returns the names of the files of the RETR commands.
func retrs(cmds []string) []string {
	var out []string
	for _, c := range cmds {
		if arg, ok := strings.CutPrefix(c, "RETR "); ok {
			out = append(out, path.Base(arg)) // a mirror may name a file by its path

		}
	}
	return out
}

// notLocal reports whether a fixture path has a name that cannot be a
// local name (checkLocal: "question?mark.txt", "trail.txt ", "a:b.txt"):
// the mirror reports it failed and writes nothing.
func notLocal(rel string) bool {
	for _, part := range strings.Split(rel, "/") {
		if checkLocal(part) != nil {
			return true
		}
	}
	return false
}

// notLocalFailed counts the entries of s that failed because their name
// cannot be a local name.
func notLocalFailed(s *Summary) int {
	n := 0
	for _, e := range s.Entries {
		if e.Status == StatusFailed && errors.Is(e.err, errNotLocal) {
			n++
		}
	}
	return n
}

// partialForNames reports whether a run's err and summary are those of
// a run whose only failures are names that cannot be local names.
func partialForNames(err error, s *Summary) bool {
	if err == nil {
		return s.Failed == 0
	}
	return errors.Is(err, ErrPartial) && s.Failed == notLocalFailed(s) && s.Unparsed+s.NLSTFallback+s.Truncated == 0
}

// compareTree checks that dst holds exactly what src holds, byte for byte
// (SHA-256 of every file), links as links with the same target, and
// directories (empty ones too), leaving out dst's .fetch and what ignore
// says on either side. It returns the number of files and links compared.
func compareTree(t *testing.T, src, dst string, ignore func(rel string, d fs.DirEntry) bool) int {
	t.Helper()
	n := 0
	filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(src, p)
		if rel == "." {
			return nil
		}
		if err != nil {
			t.Errorf("fixture %s: %v", rel, err)
			return nil
		}
		if ignore(filepath.ToSlash(rel), d) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		local := filepath.Join(dst, rel)
		st, err := os.Lstat(local)
		switch {
		case err != nil:
			t.Errorf("%s: not mirrored (%v)", rel, err)
		case d.Type()&fs.ModeSymlink != 0:
			want, _ := os.Readlink(p)
			if got, err := os.Readlink(local); err != nil || got != want {
				t.Errorf("%s: link to %q, want %q (%v)", rel, got, want, err)
			}
			n++
		case d.IsDir():
			if !st.IsDir() {
				t.Errorf("%s: not a directory", rel)
			}
		default:
			if !st.Mode().IsRegular() {
				t.Errorf("%s: not a regular file (%v)", rel, st.Mode())
			} else if got, want := servertest.SHA256File(t, local), servertest.SHA256File(t, p); got != want {
				t.Errorf("%s: sha256 %s, want %s", rel, got, want)
			}
			n++
		}
		return nil
	})
	filepath.WalkDir(dst, func(p string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(dst, p)
		if err != nil || rel == "." {
			return nil
		}
		if rel == stateDir {
			return fs.SkipDir
		}
		if ignore(filepath.ToSlash(rel), d) {
			return nil
		}
		if _, err := os.Lstat(filepath.Join(src, rel)); err != nil {
			t.Errorf("%s: in the mirror, not on the server", rel)
		}
		return nil
	})
	return n
}

// scratchTree copies parts of the FTP fixture into a new directory below
// DIR/ftp/pub, served by vsftpd, and removes it when the test ends; pub's
// own time is put back. It returns the name of the directory (below pub)
// and its path on disk. The test must be able to write into the fixture
// (scripts/servers.sh runs as root, and so do the tests that use it).
func scratchTree(t *testing.T, parts ...string) (string, string) {
	t.Helper()
	pub := servertest.Fixture(t, "ftp/pub")
	st, err := os.Stat(pub)
	if err != nil {
		t.Fatal(err)
	}
	var b [6]byte
	rand.Read(b[:])
	name := "scratch-" + hex.EncodeToString(b[:])
	dir := filepath.Join(pub, name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatalf("cannot write into the fixture (run as the user who started the servers): %v", err)
	}
	t.Cleanup(func() {
		os.RemoveAll(dir)
		os.Chtimes(pub, st.ModTime(), st.ModTime())
	})
	for _, part := range parts {
		from, to := filepath.Join(pub, part), filepath.Join(dir, part)
		st, err := os.Stat(from)
		if err != nil {
			t.Fatal(err)
		}
		if st.IsDir() {
			err = os.CopyFS(to, os.DirFS(from))
		} else {
			var b []byte
			if b, err = os.ReadFile(from); err == nil {
				err = os.WriteFile(to, b, 0o644)
			}
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil {
			mode := fs.FileMode(0o644)
			if d.IsDir() {
				mode = 0o755
			}
			os.Chmod(p, mode)
		}
		return nil
	})
	return name, dir
}

// TestVsftpdMirrorAcceptance is issue 8's first acceptance test: a tree
// with nested directories, 2,000 small files, a 5 MiB binary, a name with
// a space and an empty file mirrors byte-exact; a second run sends no RETR;
// after one remote file changes, only that file is fetched. Sizes and times
// come from the listing: no SIZE or MDTM is ever sent.
func TestVsftpdMirrorAcceptance(t *testing.T) {
	s := servertest.Get(t, servertest.FTP)
	name, src := scratchTree(t, "tree", "many", "bin5m.bin", "with space.txt", "empty.txt")
	ip := servertest.UniqueLoopback(t)
	// As fetch.Client.Mirror sets it up: pipelined passive mode, one idle
	// connection per worker.
	drv := ftp.New(ftp.Config{MaxIdleConnsPerHost: 8, PipelinePassive: true})
	defer drv.CloseIdleConnections()
	opts := Options{Jobs: 8, Request: fromIP(ip)}
	start := uri.MustParse("ftp://" + s.Addr + "/pub/" + name + "/")
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	since := servertest.FTPLogOffset(t)
	sum, err := Run(ctx, drivers{"ftp": drv}, start, dir, opts)
	drv.CloseIdleConnections()
	files := servertest.ManyFiles + 9 // many/, 6 in tree/, bin5m.bin, with space.txt, empty.txt
	if err != nil || sum.New != files || sum.Failed+sum.Skipped != 0 {
		t.Fatalf("first run = %v, new %d failed %d skipped %d; want %d new", err, sum.New, sum.Failed, sum.Skipped, files)
	}
	if n := compareTree(t, src, dir, func(string, fs.DirEntry) bool { return false }); n != files {
		t.Errorf("compared %d files, want %d", n, files)
	}
	if st, err := os.Stat(filepath.Join(dir, "tree", "empty-dir")); err != nil || !st.IsDir() {
		t.Errorf("the empty directory tree/empty-dir was not mirrored: %v", err)
	}
	cmds := servertest.FTPCommandsFrom(t, since, ip.String())
	v := verbs(cmds)
	if v["RETR"] != files || v["SIZE"]+v["MDTM"] != 0 {
		t.Errorf("first run: %d RETR (want %d), %d SIZE, %d MDTM (want none)", v["RETR"], files, v["SIZE"], v["MDTM"])
	}
	t.Logf("first run: %d files in %v, %d FTP commands (%.2f per file): %v", files, sum.Duration.Round(time.Millisecond),
		len(cmds), float64(len(cmds))/float64(files), v)
	if per := float64(len(cmds)) / float64(files); per > 2.2 {
		t.Errorf("first run: %.2f FTP commands per file, want at most 2.2 (issue 8)", per)
	}

	since = servertest.FTPLogOffset(t)
	sum, err = Run(ctx, drivers{"ftp": drv}, start, dir, opts)
	drv.CloseIdleConnections()
	if err != nil || sum.Unchanged != files || sum.New+sum.Updated != 0 {
		t.Fatalf("second run = %v, %d unchanged, %d new, %d updated", err, sum.Unchanged, sum.New, sum.Updated)
	}
	cmds = servertest.FTPCommandsFrom(t, since, ip.String())
	if r := retrs(cmds); len(r) != 0 {
		t.Errorf("second run sent %d RETR: %q", len(r), r)
	}
	t.Logf("second run: %v, %d FTP commands", sum.Duration.Round(time.Millisecond), len(cmds))

	changed := filepath.Join(src, "tree", "a", "a1.txt")
	content := []byte("changed on the server, longer than before\n")
	if err := os.WriteFile(changed, content, 0o644); err != nil {
		t.Fatal(err)
	}
	later := servertest.FixtureTime.Add(48 * time.Hour)
	os.Chtimes(changed, later, later)
	since = servertest.FTPLogOffset(t)
	sum, err = Run(ctx, drivers{"ftp": drv}, start, dir, opts)
	drv.CloseIdleConnections()
	if err != nil || sum.Updated != 1 || sum.Unchanged != files-1 {
		t.Fatalf("after a change = %v, %d updated, %d unchanged", err, sum.Updated, sum.Unchanged)
	}
	cmds = servertest.FTPCommandsFrom(t, since, ip.String())
	if r := retrs(cmds); !slices.Equal(r, []string{"a1.txt"}) {
		t.Errorf("after one change sent RETR %q, want only a1.txt", r)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "tree", "a", "a1.txt")); !bytes.Equal(got, content) {
		t.Errorf("tree/a/a1.txt = %q", got)
	}
	compareTree(t, src, dir, func(string, fs.DirEntry) bool { return false })
}

// TestVsftpdMirrorPub mirrors the whole of pub/: odd names, the link
// link-to-hello.txt (recreated: it stays inside), the unreadable file
// noread.txt (RETR 550) and directory noaccess (CWD 550). Those two are
// failed entries of the report; the run goes on and ends with ErrPartial
// (exit 8 in the CLI), and a second run sends no RETR but the one for
// noread.txt (a refusal may be lifted, so it is asked again).
func TestVsftpdMirrorPub(t *testing.T) {
	s := servertest.Get(t, servertest.FTP)
	pub := servertest.Fixture(t, "ftp/pub")
	ip := servertest.UniqueLoopback(t)
	// As fetch.Client.Mirror sets it up: pipelined passive mode, one idle
	// connection per worker.
	drv := ftp.New(ftp.Config{MaxIdleConnsPerHost: 8, PipelinePassive: true})
	defer drv.CloseIdleConnections()
	// Scratch trees of the other tests are not part of the fixture.
	opts := Options{Jobs: 8, Request: fromIP(ip), Exclude: []string{"scratch-*"}}
	start := uri.MustParse("ftp://" + s.Addr + "/pub/")
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	ignore := func(rel string, d fs.DirEntry) bool {
		// Names that begin with a dot (welcome/.message, .hidden/) are
		// mirrored too: vsftpd lists them for LIST -a. Scratch trees of
		// other tests are not part of the fixture; the refused entries
		// are checked below.
		return strings.HasPrefix(rel, "scratch-") || rel == "noread.txt" || rel == "noaccess" || notLocal(rel)
	}

	since := servertest.FTPLogOffset(t)
	sum, err := Run(ctx, drivers{"ftp": drv}, start, dir, opts)
	drv.CloseIdleConnections()
	if !errors.Is(err, ErrPartial) {
		t.Fatalf("Run = %v, want ErrPartial (noread.txt, noaccess)", err)
	}
	failed := map[string]string{}
	for _, e := range sum.Entries {
		if e.Status == StatusFailed && !errors.Is(e.err, errNotLocal) {
			failed[e.Path] = e.Reason
		}
	}
	if len(failed) != 2 || failed["noread.txt"] == "" || failed["noaccess"] == "" || sum.Skipped != 0 {
		t.Errorf("failed %q, skipped %d; want noread.txt and noaccess failed, none skipped", failed, sum.Skipped)
	}
	n := compareTree(t, pub, dir, ignore)
	if n != sum.New || n < servertest.ManyFiles+17 {
		t.Errorf("compared %d files and links, the run made %d new", n, sum.New)
	}
	for _, p := range []string{"noread.txt", "noaccess"} {
		if _, err := os.Lstat(filepath.Join(dir, p)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: exists in the mirror (%v)", p, err)
		}
	}
	if l, err := os.Readlink(filepath.Join(dir, "link-to-hello.txt")); err != nil || l != "hello.txt" {
		t.Errorf("link-to-hello.txt = %q, %v", l, err)
	}
	cmds := servertest.FTPCommandsFrom(t, since, ip.String())
	t.Logf("pub/: %d entries in %v, %d FTP commands: %v", n, sum.Duration.Round(time.Millisecond), len(cmds), verbs(cmds))

	since = servertest.FTPLogOffset(t)
	sum, err = Run(ctx, drivers{"ftp": drv}, start, dir, opts)
	drv.CloseIdleConnections()
	if !errors.Is(err, ErrPartial) || sum.Unchanged != n || sum.New+sum.Updated != 0 || sum.Failed-notLocalFailed(sum) != 2 {
		t.Fatalf("second run = %v, unchanged %d new %d updated %d failed %d", err, sum.Unchanged, sum.New, sum.Updated, sum.Failed)
	}
	if r := retrs(servertest.FTPCommandsFrom(t, since, ip.String())); !slices.Equal(r, []string{"noread.txt"}) {
		t.Errorf("second run sent RETR %q, want only the refused noread.txt", r)
	}
}

// TestPygopherdMirrorHole mirrors the whole gopher hole: the root menu,
// nested menus, the 2,000-item menu /big, text and binary files. pygopherd
// marks every item Gopher+ and sends no "." terminator, so the mirror asks
// for the "+" view (a length header first): text.txt, whose lone "." line
// ends a non-Gopher+ read, comes back whole. Menus are kept as gophermap
// files; items of other servers, links, telnet and search items are
// skipped.
func TestPygopherdMirrorHole(t *testing.T) {
	s := servertest.Get(t, servertest.Gopher)
	src := servertest.Fixture(t, "gopher")
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	sum, err := Run(ctx, drivers{"gopher": &gopher.Driver{}}, uri.MustParse("gopher://"+s.Addr+"/1"), dir, Options{Jobs: 8})
	if err != nil || sum.Failed != 0 {
		t.Fatalf("Run = %v, failed %d", err, sum.Failed)
	}
	t.Logf("gopher hole: %d new in %v", sum.New, sum.Duration.Round(time.Millisecond))
	ignore := func(rel string, d fs.DirEntry) bool {
		base := filepath.Base(rel)
		// Not served as documents: dot files, abstracts (shown as info
		// lines), the search script (a type 7 item). The menus are kept as
		// gophermap files (checked below); the fixture's map/gophermap is
		// the source of the /map menu.
		return strings.HasPrefix(base, ".") || strings.HasSuffix(base, ".abstract") || rel == "search" || base == menuName
	}
	n := compareTree(t, src, dir, ignore)
	if n < servertest.ManyFiles+30 || n != sum.New {
		t.Errorf("compared %d files; the run made %d new", n, sum.New)
	}
	byPath := map[string]EntryReport{}
	for _, e := range sum.Entries {
		byPath[e.Path] = e
	}
	if e := byPath["text.txt"]; !strings.HasSuffix(e.URL, "%09%09+") {
		t.Errorf("text.txt fetched as %s, want the Gopher+ view", e.URL)
	}
	for _, m := range []string{"", "dir", "dir/sub", "dir/sub/deeper", "dir/empty", "big", "words", "map"} {
		b, err := os.ReadFile(filepath.Join(dir, m, menuName))
		if err != nil {
			t.Errorf("menu of %q not kept: %v", m, err)
			continue
		}
		if m == "big" {
			if got := bytes.Count(b, []byte("\n0")) + boolInt(bytes.HasPrefix(b, []byte("0"))); got != servertest.ManyFiles {
				t.Errorf("big/gophermap has %d type 0 items, want %d", got, servertest.ManyFiles)
			}
		}
	}
	var skipped []string
	for _, e := range sum.Entries {
		if e.Status == StatusSkipped {
			skipped = append(skipped, e.Path)
		}
	}
	slices.Sort(skipped)
	want := []string{`"A menu on another server"`, `"A telnet item"`, `"A web link"`, "search"}
	if !slices.Equal(skipped, want) {
		t.Errorf("skipped %q, want %q", skipped, want)
	}

	// A second run learns each file's time from one Gopher+ "$" request
	// per menu and fetches no document; a file changed or removed on the
	// local side is fetched again, and only that one.
	cf := &countingFetcher{f: drivers{"gopher": &gopher.Driver{}}}
	sum2, err := Run(ctx, cf, uri.MustParse("gopher://"+s.Addr+"/1"), dir, Options{Jobs: 8})
	if err != nil || sum2.Unchanged != n || sum2.New+sum2.Updated+sum2.Failed != 0 {
		t.Fatalf("second run = %v: unchanged %d of %d, new %d, updated %d, failed %d", err, sum2.Unchanged, n, sum2.New, sum2.Updated, sum2.Failed)
	}
	if docs := cf.documents(); len(docs) != 0 {
		t.Errorf("second run fetched %d documents, want none: %q", len(docs), docs[:min(5, len(docs))])
	}
	if err := os.Remove(filepath.Join(dir, "about.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "dir", "sub", "deeper", "three.txt"), []byte("changed here\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cf.reset()
	sum3, err := Run(ctx, cf, uri.MustParse("gopher://"+s.Addr+"/1"), dir, Options{Jobs: 8})
	if err != nil || sum3.New != 1 || sum3.Updated != 1 || sum3.Unchanged != n-2 {
		t.Errorf("third run = %v: new %d, updated %d, unchanged %d; want 1, 1, %d", err, sum3.New, sum3.Updated, sum3.Unchanged, n-2)
	}
	docs := cf.documents()
	slices.Sort(docs)
	if want := []string{"/about.txt", "/dir/sub/deeper/three.txt"}; !slices.Equal(docs, want) {
		t.Errorf("third run fetched %q, want %q", docs, want)
	}
	compareTree(t, src, dir, ignore)

	// --delete: pygopherd's menus end at the close, so a menu above a
	// file to delete is read again first; the same bytes twice, and the
	// files go.
	for _, rel := range []string{"stale.txt", "dir/sub/stale.txt"} {
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(rel)), []byte("not on the server\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sum4, err := Run(ctx, drivers{"gopher": &gopher.Driver{}}, uri.MustParse("gopher://"+s.Addr+"/1"), dir, Options{Jobs: 8, Delete: true})
	if err != nil || sum4.Deleted != 2 || sum4.Failed != 0 {
		t.Errorf("run with --delete = %v: deleted %d, failed %d; want 2 deleted", err, sum4.Deleted, sum4.Failed)
	}
	compareTree(t, src, dir, ignore)
}

// countingFetcher records the gopher selectors of the documents fetched
// through it (menus and attribute requests left out).
type countingFetcher struct {
	f    Fetcher
	mu   sync.Mutex
	docs []string
}

func (c *countingFetcher) Fetch(ctx context.Context, u *uri.URL, req *proto.Request) (*proto.Response, error) {
	if v, err := u.Gopher(); err == nil && v.Type != "1" {
		c.mu.Lock()
		c.docs = append(c.docs, v.Selector)
		c.mu.Unlock()
	}
	return c.f.Fetch(ctx, u, req)
}

func (c *countingFetcher) documents() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.docs)
}

func (c *countingFetcher) reset() {
	c.mu.Lock()
	c.docs = nil
	c.mu.Unlock()
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestNginxMirrorAutoindex mirrors nginx's autoindex pages: the top level
// and dir/ with its nested and empty directories, byte-exact; a second run
// writes nothing new.
func TestNginxMirrorAutoindex(t *testing.T) {
	s := servertest.Get(t, servertest.NGINX)
	src := servertest.Fixture(t, "www")
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	drv := &http.Driver{}
	f := drivers{"http": drv}
	start := uri.MustParse("http://" + s.Addr + "/")
	// A partial download of bin5m.bin left by an interrupted run, recorded
	// with nginx's Content-Length and Last-Modified: it is resumed with a
	// Range request, so only the rest crosses the wire.
	const have = 1 << 20
	whole, err := os.ReadFile(filepath.Join(src, "bin5m.bin"))
	if err != nil {
		t.Fatal(err)
	}
	for p, b := range map[string][]byte{
		partialDir + "/bin5m.bin": whole[:have],
		partMeta + "/bin5m.bin":   []byte(`{"size":5242880,"remote_time":"2001-02-03T04:05:06Z"}`),
	} {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, p), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sum, err := Run(ctx, f, start, dir, Options{Jobs: 4})
	if !partialForNames(err, sum) || sum.Skipped != 0 {
		t.Fatalf("Run = %v, failed %d skipped %d", err, sum.Failed, sum.Skipped)
	}
	for _, e := range sum.Entries {
		if e.Path == "bin5m.bin" && e.Bytes != servertest.Bin5MSize-have {
			t.Errorf("bin5m.bin: %d bytes received, want %d (resumed at %d)", e.Bytes, servertest.Bin5MSize-have, have)
		}
	}
	n := compareTree(t, src, dir, func(rel string, d fs.DirEntry) bool {
		return strings.HasPrefix(filepath.Base(rel), ".") || notLocal(rel) // autoindex hides dot files
	})
	if n != sum.New || n < 10 {
		t.Errorf("compared %d files, the run made %d new", n, sum.New)
	}
	checkNames(t, dir)
	tr := &trace{}
	sum, err = Run(ctx, f, start, dir, Options{Jobs: 4, Request: proto.Request{Trace: tr}})
	if !partialForNames(err, sum) || sum.Unchanged != n || sum.New+sum.Updated != 0 {
		t.Errorf("second run = %v, unchanged %d new %d updated %d", err, sum.Unchanged, sum.New, sum.Updated)
	}
	// Each file is asked for with If-Modified-Since (nginx compares it
	// with Last-Modified exactly): 304, no body.
	if got := tr.replies("304"); got != n {
		t.Errorf("second run: %d replies 304 Not Modified, want %d (one per file)", got, n)
	}
	compareTree(t, src, dir, func(rel string, d fs.DirEntry) bool {
		return strings.HasPrefix(filepath.Base(rel), ".") || notLocal(rel)
	})
}

// fixtureNames are the files of www/names (scripts/fixtures.sh): names that
// index pages escape.
var fixtureNames = []string{"a&b.txt", "café.txt", "x?y.txt", "100%.txt", "with space.txt", "a:b.txt", "hash#sign.txt"}

// checkNames fails unless the mirror in dir holds every file of www/names
// under its real name, with its own content.
func checkNames(t *testing.T, dir string) {
	t.Helper()
	for _, name := range fixtureNames {
		if notLocal(name) {
			if _, err := os.Lstat(filepath.Join(dir, "names", name)); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("names/%s: written, though no local name (%v)", name, err)
			}
			continue
		}
		got, err := os.ReadFile(filepath.Join(dir, "names", name))
		if want := "the file named " + name + "\n"; err != nil || string(got) != want {
			t.Errorf("names/%s = %q, %v; want %q", name, got, err, want)
		}
	}
}

// TestPythonHTTPServerMirror mirrors the www fixture served by Python's
// http.server (its directory listings: a <ul> of links escaped with
// urllib.parse.quote), byte-exact and with the escaped names under their
// real names; a second run is answered 304 for every file.
func TestPythonHTTPServerMirror(t *testing.T) {
	src := servertest.Fixture(t, "www")
	addr := startPythonHTTP(t, src)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	f := drivers{"http": &http.Driver{}}
	start := uri.MustParse("http://" + addr + "/")
	dir := t.TempDir()
	sum, err := Run(ctx, f, start, dir, Options{Jobs: 4})
	if !partialForNames(err, sum) || sum.Skipped != 0 {
		t.Fatalf("Run = %v, failed %d skipped %d: %+v", err, sum.Failed, sum.Skipped, sum.Entries)
	}
	// http.server links a name that is not UTF-8 by the UTF-8 of its
	// PEP 383 escape: caf\xe9.txt as caf%ED%B3%A9.txt, which it serves.
	// The mirror names the file as the page links it; the bytes are the
	// file's.
	const latin1, linked = "names/caf\xe9.txt", "names/caf\xed\xb3\xa9.txt"
	if b, err := os.ReadFile(filepath.Join(dir, linked)); err != nil || string(b) != "a Latin-1 name\n" {
		t.Errorf("%q: %q, %v", linked, b, err)
	}
	os.Remove(filepath.Join(dir, linked))
	n := 1 + compareTree(t, src, dir, func(rel string, _ fs.DirEntry) bool { return rel == latin1 || notLocal(rel) })
	if n != sum.New || n < 10 {
		t.Errorf("compared %d files, the run made %d new", n, sum.New)
	}
	checkNames(t, dir)
	tr := &trace{}
	sum, err = Run(ctx, f, start, dir, Options{Jobs: 4, Request: proto.Request{Trace: tr}})
	// The file removed above is fetched again.
	if !partialForNames(err, sum) || sum.Unchanged != n-1 || sum.New != 1 || sum.Updated != 0 {
		t.Errorf("second run = %v, unchanged %d new %d updated %d", err, sum.Unchanged, sum.New, sum.Updated)
	}
	if got := tr.replies("304"); got != n-1 {
		t.Errorf("second run: %d replies 304 Not Modified, want %d (one per file but one)", got, n-1)
	}
}

// startPythonHTTP serves dir with "python3 -m http.server" on a free port
// of 127.0.0.1 and returns its address; the server is stopped when the test
// ends. python3 is a server of the test suite: missing, it fails the test
// in CI and skips it elsewhere.
func startPythonHTTP(t *testing.T, dir string) string {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		if servertest.InCI() {
			t.Fatalf("python3: %v (CI=true: real servers are required)", err)
		}
		t.Skipf("python3: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	// -u: the "Serving HTTP on ... port N" line is written at once.
	cmd := exec.CommandContext(ctx, py, "-u", "-m", "http.server", "--bind", "127.0.0.1", "--directory", dir, "0")
	out, err := cmd.StdoutPipe()
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	cmd.Stderr = io.Discard // one access log line per request
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	port := make(chan string, 1)
	read := make(chan struct{})
	t.Cleanup(func() {
		cancel() // kills python3: its stdout ends, and so does the reader
		<-read
		cmd.Wait()
	})
	go func() {
		defer close(read)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			// "Serving HTTP on 127.0.0.1 port 40123 (http://127.0.0.1:40123/) ..."
			if _, rest, ok := strings.Cut(sc.Text(), " port "); ok {
				if p, _, ok := strings.Cut(rest, " "); ok {
					port <- p
					break
				}
			}
		}
		io.Copy(io.Discard, out)
	}()
	select {
	case p := <-port:
		if _, err := strconv.ParseUint(p, 10, 16); err != nil {
			t.Fatalf("python3 -m http.server: port %q", p)
		}
		return "127.0.0.1:" + p
	case <-time.After(20 * time.Second):
		t.Fatal("python3 -m http.server did not say its port within 20 s")
	}
	return ""
}
