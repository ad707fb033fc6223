package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha1"
	"encoding/base32"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch/fetchtest"
	"github.com/rfc1738/fetch/internal/testrig/servertest"
	"github.com/rfc1738/fetch/internal/testrig/warctest"
)

// The acceptance tests of --warc-file against the real servers: every
// record read by warcio and by the tests' own reader, every digest
// recomputed, every mirrored file archived once (a second copy of the same
// bytes as a revisit record), nothing new on a second run, and no password
// anywhere.

// runLong is runArgs with a deadline of 3 minutes instead of 30 s: a
// whole mirror on a machine shared with other tests.
func runLong(t *testing.T, args ...string) result {
	t.Helper()
	e, out, errb := newEnv("", &netlog{})
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	code := execute(ctx, args, e)
	return result{out: out.String(), err: errb.String(), code: code}
}

// checkMirrorOutcome checks the --json report of a WARC mirror: the
// entries that failed are exactly failed (sorted), the exit code is 8 when
// there are some and 0 otherwise, and every transfer was archived.
func checkMirrorOutcome(t *testing.T, r result, failed []string) {
	t.Helper()
	var rep struct {
		Failed  int
		Entries []struct{ Path, Status string }
	}
	if err := json.Unmarshal([]byte(r.out), &rep); err != nil {
		t.Fatalf("mirror = %d, report %v:\n%s%s", r.code, err, r.out, r.err)
	}
	var got []string
	for _, e := range rep.Entries {
		if e.Status == "failed" {
			got = append(got, e.Path)
		}
	}
	sort.Strings(got)
	want := 0
	if len(failed) > 0 {
		want = 8
	}
	if r.code != want || !slices.Equal(got, failed) {
		t.Fatalf("mirror = %d with failed entries %q, want %d with %q:\n%s", r.code, got, want, failed, r.err)
	}
	if strings.Contains(r.err, "not archived") {
		t.Errorf("a transfer was not archived:\n%s", r.err)
	}
}

// warcFiles returns the WARC files of name, sorted (name.warc.gz first).
func warcFiles(t *testing.T, name string) []string {
	t.Helper()
	var files []string
	if _, err := os.Stat(name + ".warc.gz"); err == nil {
		files = append(files, name+".warc.gz")
	}
	more, err := filepath.Glob(name + "-[0-9][0-9][0-9][0-9][0-9].warc.gz")
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(more)
	return append(files, more...)
}

func sha1File(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := sha1.Sum(b)
	return "sha1:" + base32.StdEncoding.EncodeToString(s[:])
}

// localFiles maps the SHA-1 (WARC form) of each regular file under dir,
// .fetch excepted, to the files' paths.
func localFiles(t *testing.T, dir string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".fetch" {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() && d.Name() != "gophermap" {
			out[sha1File(t, p)] = append(out[sha1File(t, p)], p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// emptyDigest is the SHA-1 of no bytes: an empty file is archived as a
// record of its own at each address (a revisit of nothing saves nothing).
const emptyDigest = "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ"

func TestWARCMirrorServers(t *testing.T) {
	ftpS := servertest.Get(t, servertest.FTP)
	httpS := servertest.Get(t, servertest.NGINX)
	gopherS := servertest.Get(t, servertest.Gopher)
	nntpS := servertest.Get(t, servertest.NNTP)
	work := t.TempDir()
	name := filepath.Join(work, "a")
	var before []string // the WARC files of the earlier mirrors
	for _, tc := range []struct {
		name, url, server string
		// failed are the entries that fail on purpose (the fixtures'
		// unreadable ones), which make the exit code 8; with none the
		// run exits 0. Nothing else may fail or go unarchived.
		failed []string
	}{
		{"ftp", "ftp://" + ftpS.Addr + "/pub/", "ftp://" + ftpS.Addr + "/", []string{"noaccess", "noread.txt"}},
		// The same files as the FTP tree, at other addresses: each one
		// is a revisit of the FTP capture.
		{"http", "http://" + httpS.Addr + "/", "http://" + httpS.Addr + "/", nil},
		// Without big/, 2,000 items that take pygopherd a minute on a
		// busy machine. Without scratch-*, made and removed by the tests
		// of mirror in the FTP tree while these run. pygopherd is a
		// Gopher+ server: each menu's "$" (the times of its items) is a
		// metadata record.
		{"gopher", "gopher://" + gopherS.Addr + "/1/", "gopher://" + gopherS.Addr + "/", nil},
		// The news mirror (--exclude does not apply): one resource
		// record per article, a crosspost once (its hard link in the
		// other group adds no record, no revisit either).
		{"news", "nntp://" + nntpS.Addr + "/archive.*", "nntp://" + nntpS.Addr + "/archive.", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(work, tc.name)
			r := runLong(t, append(append([]string{"mirror", "--json", "--exclude", "big", "--exclude", "scratch-*"}, notLocalExcludes()...), "--warc-file", name, "--warc-cdx", tc.url, dir)...)
			checkMirrorOutcome(t, r, tc.failed)
			files := warcFiles(t, name)
			recs := warctest.Check(t, files...)
			local := localFiles(t, dir)
			if len(local) == 0 {
				t.Fatal("nothing mirrored")
			}
			// This run's records: the files not in before.
			var mine []warctest.Record
			for _, f := range files[len(before):] {
				mine = append(mine, warctest.Read(t, f)...)
			}
			stored := map[string]int{}   // digest -> resource and response records, every run
			revisits := map[string]int{} // digest -> this run's revisits
			for _, rec := range recs {
				switch rec.Get("WARC-Type") {
				case "resource", "response":
					stored[rec.Get("WARC-Payload-Digest")]++
				}
			}
			for _, rec := range mine {
				if rec.Get("WARC-Type") == "revisit" {
					revisits[rec.Get("WARC-Payload-Digest")]++
				}
				if u := rec.Get("WARC-Target-URI"); rec.Get("WARC-Type") != "warcinfo" && !strings.HasPrefix(u, tc.server) {
					t.Errorf("record of %q in the mirror of %s", u, tc.url)
				}
				if tc.name == "news" && rec.Get("WARC-Type") != "warcinfo" &&
					(rec.Get("WARC-Type") != "resource" || rec.Get("Content-Type") != "message/news" || rec.Get("WARC-IP-Address") != "127.0.0.1") {
					t.Errorf("news mirror: %s record of %s, %q from %q", rec.Get("WARC-Type"), rec.Get("WARC-Target-URI"), rec.Get("Content-Type"), rec.Get("WARC-IP-Address"))
				}
			}
			for d, paths := range local {
				switch {
				case d == emptyDigest:
				case stored[d] != 1:
					t.Errorf("%q: %d resource or response records with its payload, want 1", paths, stored[d])
				}
			}
			if tc.name == "http" && len(revisits) == 0 {
				t.Error("no revisit record: the web tree's files are the FTP tree's")
			}
			if tc.name == "news" {
				// Every record is a stored article (and each
				// stored once, checked above).
				if n := len(mine) - 1; n != len(local) {
					t.Errorf("news mirror: %d records for %d distinct articles", n, len(local))
				}
				crossposts := 0
				for _, paths := range local {
					if len(paths) > 1 {
						crossposts++
					}
				}
				if crossposts == 0 {
					t.Error("news mirror: no crosspost among the articles")
				}
			}
			for d, paths := range local {
				if tc.name == "news" {
					break // crossposts are recorded once, without revisits
				}
				if d != emptyDigest && len(paths) > 1 && revisits[d] < len(paths)-1 {
					t.Errorf("%q: same bytes, %d revisit records, want %d", paths, revisits[d], len(paths)-1)
				}
			}

			firstListing := map[string][]byte{}
			for _, rec := range mine {
				if u := rec.Get("WARC-Target-URI"); strings.HasSuffix(u, "/") && rec.Get("WARC-Type") == "resource" {
					firstListing[u] = rec.Block
				}
			}
			// A second run finds every file unchanged: nothing new.
			r = runLong(t, append(append([]string{"mirror", "--json", "--exclude", "big", "--exclude", "scratch-*"}, notLocalExcludes()...), "--warc-file", name, "--warc-cdx", tc.url, dir)...)
			checkMirrorOutcome(t, r, tc.failed)
			again := warcFiles(t, name)
			for _, f := range again[len(files):] {
				for _, rec := range warctest.Read(t, f) {
					if u := rec.Get("WARC-Target-URI"); strings.HasSuffix(u, "/") && withoutScratch(rec.Block) == withoutScratch(firstListing[u]) {
						// A listing that changed only in scratch-*: the
						// tests of mirror make and remove those in the
						// FTP tree meanwhile.
						continue
					}
					if ty := rec.Get("WARC-Type"); ty == "resource" || ty == "response" || ty == "revisit" {
						t.Errorf("second run: %s record of %s", ty, rec.Get("WARC-Target-URI"))
					}
					if u := rec.Get("WARC-Target-URI"); strings.HasSuffix(u, "%09%09$") {
						// A menu's attributes, unchanged: the
						// index of the first run has them.
						t.Errorf("second run: %s record of %s", rec.Get("WARC-Type"), u)
					}
				}
			}
			before = again
		})
	}
}

func TestWARCGetEveryScheme(t *testing.T) {
	ftpS := servertest.Get(t, servertest.FTP)
	httpS := servertest.Get(t, servertest.NGINX)
	gopherS := servertest.Get(t, servertest.Gopher)
	nntpS := servertest.Get(t, servertest.NNTP)
	work := t.TempDir()
	name := filepath.Join(work, "b")
	out := filepath.Join(work, "out")
	os.Mkdir(out, 0o755)
	urls := []string{
		"ftp://" + ftpS.Addr + "/pub/lines.txt",
		"http://" + httpS.Addr + "/bin5m.bin",
		"gopher://" + gopherS.Addr + "/0/about.txt",
		"nntp://" + nntpS.Addr + "/local.test/2",
	}
	r := runArgs(t, nil, "", "get", "-s", "--warc-file", name, "--warc-cdx", "-O", "--output-dir", out, urls[0], urls[1], urls[2])
	if r.code != 0 {
		t.Fatalf("get = %d:\n%s", r.code, r.err)
	}
	// Listings, menus and attributes shown on stdout.
	for _, u := range []string{"gopher://" + gopherS.Addr + "/1/", "gopher://" + gopherS.Addr + "/0/about.txt%09%09!", urls[3], "ftp://" + ftpS.Addr + "/pub/"} {
		if r := runArgs(t, nil, "", "get", "-s", "--warc-file", name, "--warc-cdx", u); r.code != 0 {
			t.Fatalf("get %s = %d:\n%s", u, r.code, r.err)
		}
	}
	recs := warctest.Check(t, warcFiles(t, name)...)
	byURI := map[string][]warctest.Record{}
	for _, rec := range recs {
		byURI[rec.Get("WARC-Target-URI")] = append(byURI[rec.Get("WARC-Target-URI")], rec)
	}
	kinds := func(u string) string {
		var k []string
		for _, rec := range byURI[u] {
			k = append(k, rec.Get("WARC-Type")+" "+strings.Split(rec.Get("Content-Type"), ";")[0])
		}
		return strings.Join(k, ", ")
	}
	// lines.txt is text by its name: fetched as TYPE A, its line ends
	// converted, and recorded under the URL that says so.
	textURI := urls[0] + ";type=a"
	for _, tc := range []struct{ uri, want string }{
		{textURI, "resource text/plain, metadata text/plain"},
		{urls[1], "request application/http, response application/http"},
		{urls[2], "resource text/plain"},
		{urls[3], "resource message/news"},
		{"gopher://" + gopherS.Addr + "/1/", "resource text/x-gopher-menu"},
		{"gopher://" + gopherS.Addr + "/0/about.txt%09%09!", "metadata text/x-gopher-plus-attributes"},
		{"ftp://" + ftpS.Addr + "/pub/", "resource text/plain, metadata text/plain"},
	} {
		if got := kinds(tc.uri); got != tc.want {
			t.Errorf("%s: records %q, want %q", tc.uri, got, tc.want)
		}
		for _, rec := range byURI[tc.uri] {
			if rec.Get("WARC-IP-Address") != "127.0.0.1" || rec.Get("WARC-Date") == "" {
				t.Errorf("%s: %s record without address or date: %v", tc.uri, rec.Get("WARC-Type"), rec.Header)
			}
		}
	}
	// The bytes archived are the bytes written.
	for _, f := range []struct{ uri, file string }{{textURI, "lines.txt"}, {urls[1], "bin5m.bin"}, {urls[2], "about.txt"}} {
		want, _ := os.ReadFile(filepath.Join(out, f.file))
		for _, rec := range byURI[f.uri] {
			if ty := rec.Get("WARC-Type"); (ty == "resource" || ty == "response") && !bytes.Equal(warctest.Payload(rec), want) {
				t.Errorf("%s: payload of %d bytes differs from the %d bytes written", f.uri, len(warctest.Payload(rec)), len(want))
			}
		}
	}
	if rs := byURI[urls[1]]; len(rs) == 2 && !strings.HasPrefix(string(rs[0].Block), "GET /bin5m.bin HTTP/1.1\r\n") {
		t.Errorf("request record %q", rs[0].Block)
	}
	if rs := byURI[textURI]; len(rs) == 2 && !strings.Contains(string(rs[1].Block), "> RETR lines.txt") {
		t.Errorf("FTP conversation %q", rs[1].Block)
	}

	// With --json, an HTTP file is written out and archived as without:
	// the exchange's bytes kept for the archive once made an "info"
	// document of it instead, and nothing was archived.
	jname := filepath.Join(work, "j")
	hello := "http://" + httpS.Addr + "/hello.txt"
	r = runArgs(t, nil, "", "get", "-s", "--json", "--warc-file", jname, hello)
	if r.code != 0 || r.out != "Hello, world!\n" {
		t.Fatalf("get --json %s = %d, out %q:\n%s", hello, r.code, r.out, r.err)
	}
	var types []string
	for _, rec := range warctest.Check(t, warcFiles(t, jname)...) {
		types = append(types, rec.Get("WARC-Type"))
	}
	if strings.Join(types, " ") != "warcinfo request response" {
		t.Errorf("get --json: records %q", types)
	}
	// An FTP file with --json prints its metadata document (the transfer
	// type) instead of the body; the archive asked for holds the file all
	// the same (it was dropped, the body closed unread).
	fname := filepath.Join(work, "f")
	r = runArgs(t, nil, "", "get", "-s", "--json", "--warc-file", fname, urls[0])
	if r.code != 0 || !strings.Contains(r.out, `"ftp_type"`) {
		t.Fatalf("get --json %s = %d, out %q:\n%s", urls[0], r.code, r.out, r.err)
	}
	types = nil
	for _, rec := range warctest.Check(t, warcFiles(t, fname)...) {
		types = append(types, rec.Get("WARC-Type")+" "+rec.Get("WARC-Target-URI"))
	}
	if want := []string{"warcinfo ", "resource " + textURI, "metadata " + textURI}; !slices.Equal(types, want) {
		t.Errorf("get --json of an FTP file: records %q, want %q", types, want)
	}
}

// TestWARCNoPassword: a login with a password, by get and by mirror (an
// FTP tree, and newsgroups with AUTHINFO): the password is nowhere in the WARC files (decompressed), their indexes or
// the manifest.
func TestWARCNoPassword(t *testing.T) {
	s := servertest.Get(t, servertest.FTP)
	if s.User == "" || s.Pass == "" {
		t.Fatal("the FTP server has no password account in the environment")
	}
	work := t.TempDir()
	name := filepath.Join(work, "p")
	base := "ftp://" + s.User + ":" + s.Pass + "@" + s.Addr + "/"
	r := runArgs(t, nil, "", "get", "-s", "--warc-file", name, "--warc-cdx", base)
	if r.code != 0 {
		t.Fatalf("get = %d:\n%s", r.code, r.err)
	}
	r = runArgs(t, nil, "", "mirror", "-s", "--warc-file", name, "--warc-cdx", base, filepath.Join(work, "m"))
	if r.code != 0 {
		t.Fatalf("mirror = %d:\n%s", r.code, r.err)
	}
	// A news mirror logging in with AUTHINFO (the in-process server,
	// INN's reader needs no login), with the same password.
	news := &fetchtest.NNTP{Over: "OVER", User: "reader", Pass: s.Pass}
	news.Post("From: a@x\nMessage-ID: <p1@x>\n\nbody\n", []string{"p.g"}, []int64{1})
	news.Start(t)
	newsPort := news.Addr[strings.LastIndexByte(news.Addr, ':')+1:]
	r = runArgs(t, nil, "", "mirror", "-s", "--allow-port", newsPort, "--warc-file", name, "--warc-cdx",
		"nntp://reader:"+s.Pass+"@"+news.Addr+"/p.g", filepath.Join(work, "n"))
	if r.code != 0 {
		t.Fatalf("news mirror = %d:\n%s", r.code, r.err)
	}
	if news.Count("AUTHINFO PASS") == 0 {
		t.Error("the news mirror did not log in")
	}
	recs := warctest.Check(t, warcFiles(t, name)...)
	if len(recs) < 4 {
		t.Fatalf("%d records", len(recs))
	}
	articles := 0
	for _, rec := range recs {
		if rec.Get("WARC-Target-URI") == "nntp://"+news.Addr+"/p.g/1" && rec.Get("Content-Type") == "message/news" {
			articles++
		}
	}
	if articles != 1 {
		t.Errorf("%d records of the news mirror's article, want 1", articles)
	}
	pass := []byte(s.Pass)
	n := 0
	err := filepath.WalkDir(work, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.HasSuffix(p, ".gz") {
			z, err := gzip.NewReader(bytes.NewReader(b))
			if err != nil {
				return err
			}
			if b, err = io.ReadAll(z); err != nil {
				return err
			}
		}
		n++
		if bytes.Contains(b, pass) {
			t.Errorf("%s holds the password", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 4 { // WARC files, index, manifest, a file
		t.Errorf("only %d files looked at", n)
	}
	if !strings.Contains(string(warctest.Read(t, name+".warc.gz")[0].Block), "ftp://"+s.User+":xxxxx@") {
		t.Error("the warcinfo record does not show the command line's URL redacted")
	}
}

// TestWARCMaxSize: --warc-max-size rotates the files of a mirror; each
// starts with its warcinfo record, and together they hold every file.
func TestWARCMaxSize(t *testing.T) {
	s := servertest.Get(t, servertest.FTP)
	work := t.TempDir()
	name := filepath.Join(work, "r")
	dir := filepath.Join(work, "m")
	r := runLong(t, "mirror", "-s", "--warc-file", name, "--warc-max-size", "256K", "--warc-cdx", "ftp://"+s.Addr+"/pub/many/", dir)
	if r.code != 0 {
		t.Fatalf("mirror = %d:\n%s", r.code, r.err)
	}
	files := warcFiles(t, name)
	if len(files) < 3 || files[0] != name+"-00001.warc.gz" {
		t.Fatalf("files %q", files)
	}
	for _, f := range files {
		st, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		// A file is closed once it reaches the size: by at most one
		// capture (a resource and a metadata record of a small file).
		if st.Size() > 256<<10+8<<10 {
			t.Errorf("%s: %d bytes", f, st.Size())
		}
		recs := warctest.Read(t, f)
		if recs[0].Get("WARC-Type") != "warcinfo" || recs[0].Get("WARC-Filename") != filepath.Base(f) {
			t.Errorf("%s starts with %v", f, recs[0].Header)
		}
		for _, rec := range recs[1:] {
			if rec.Get("WARC-Warcinfo-ID") != recs[0].Get("WARC-Record-ID") {
				t.Errorf("%s: record at %d refers to warcinfo %s", f, rec.Offset, rec.Get("WARC-Warcinfo-ID"))
				break
			}
		}
	}
	stored := map[string]bool{}
	for _, rec := range warctest.Check(t, files...) {
		if rec.Get("WARC-Type") == "resource" {
			stored[rec.Get("WARC-Payload-Digest")] = true
		}
	}
	for d, paths := range localFiles(t, dir) {
		if !stored[d] {
			t.Errorf("%q: no resource record", paths)
		}
	}
}

// withoutScratch is a listing without its lines that name scratch-*
// directories (see TestWARCMirrorServers), nor its "." and ".." lines:
// making and removing a scratch directory changes pub's time, which the
// listings of pub and of its children show there.
func withoutScratch(listing []byte) string {
	var keep []string
	for _, l := range strings.Split(string(listing), "\n") {
		f := strings.Fields(l)
		if strings.Contains(l, "scratch-") || len(f) > 0 && (f[len(f)-1] == "." || f[len(f)-1] == "..") {
			continue
		}
		keep = append(keep, l)
	}
	return strings.Join(keep, "\n")
}

// fetch get -C with --warc-file asks for the whole file, so that the
// archive holds it (a resumed transfer could not be archived), and says
// so: the output is the same as without (FILE.part written again; stdout
// from the byte asked for). Before, the file was resumed and recorded
// nowhere, with exit 0.
func TestWARCContinue(t *testing.T) {
	s := servertest.Get(t, servertest.NGINX)
	want, err := os.ReadFile(filepath.Join(servertest.Fixture(t, "www"), "lines.txt"))
	if err != nil {
		t.Fatal(err)
	}
	u := "http://" + s.Addr + "/lines.txt"
	whole := sha1.Sum(want)
	digest := "sha1:" + base32.StdEncoding.EncodeToString(whole[:])
	archived := func(t *testing.T, name string) {
		t.Helper()
		var got []string
		for _, rec := range warctest.Check(t, warcFiles(t, name)...) {
			if rec.Get("WARC-Type") == "response" {
				got = append(got, rec.Get("WARC-Payload-Digest"))
			}
		}
		if !slices.Equal(got, []string{digest}) {
			t.Errorf("response records with payload digests %q, want one with %s", got, digest)
		}
	}
	t.Run("file", func(t *testing.T) {
		dir := t.TempDir()
		out := filepath.Join(dir, "lines.txt")
		os.WriteFile(out+".part", want[:1000], 0o644)
		r := runArgs(t, nil, "", "get", "-C", "-", "--warc-file", filepath.Join(dir, "w"), "-o", out, u)
		if r.code != 0 || !strings.Contains(r.err, "-C with --warc-file: fetching the whole file") {
			t.Fatalf("exit %d\n%s", r.code, r.err)
		}
		if got, _ := os.ReadFile(out); !bytes.Equal(got, want) {
			t.Errorf("output of %d bytes, want the %d of the file", len(got), len(want))
		}
		if _, err := os.Stat(out + ".part"); err == nil {
			t.Error("the .part file is left")
		}
		archived(t, filepath.Join(dir, "w"))
	})
	t.Run("stdout", func(t *testing.T) {
		dir := t.TempDir()
		r := runArgs(t, nil, "", "get", "-s", "-C", "1000", "--warc-file", filepath.Join(dir, "w"), u)
		if r.code != 0 || r.err != "" {
			t.Fatalf("exit %d\n%s", r.code, r.err)
		}
		if r.out != string(want[1000:]) {
			t.Errorf("stdout of %d bytes, want the %d from byte 1000", len(r.out), len(want)-1000)
		}
		archived(t, filepath.Join(dir, "w"))
	})
}
