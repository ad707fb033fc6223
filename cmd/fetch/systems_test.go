package main

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/internal/testrig/localserver"
)

// The acceptance tests of issue 15: for every LIST layout (and MLSD) a
// fake server that answers SYST, PWD, CWD, LIST, NLST, SIZE, MDTM, TYPE,
// EPSV and RETR as that system does, serving a small nested tree.

var systemsTime = time.Date(2024, 3, 12, 14, 30, 0, 0, time.UTC)

// blob is n bytes that are not text, each file its own.
func blob(n int, seed byte) []byte {
	b := make([]byte, n)
	x := uint32(seed) + 1
	for i := range b {
		x = x*1664525 + 1013904223
		b[i] = byte(x >> 24)
	}
	return b
}

// unixTree is the tree every system but VMS serves.
func unixTree() localserver.Tree {
	return localserver.Tree{
		Files: map[string][]byte{
			"README.txt":         []byte("read me first\n"),
			"data.bin":           blob(3000, 1),
			"sub/notes.txt":      []byte("notes\r\nwith CRLF\r\n"),
			"sub/deeper/z.bin":   blob(700, 2),
			"sub/deeper/one.txt": []byte("1"),
		},
		Dirs: []string{"empty"},
		Time: systemsTime,
	}
}

// vmsTree has versions: README.TXT;2 and SUB/NOTES.TXT;3 are the highest.
func vmsTree() localserver.Tree {
	return localserver.Tree{
		Files: map[string][]byte{
			"README.TXT;1":       []byte("old readme\n"),
			"README.TXT;2":       []byte("new readme, longer\n"),
			"DATA.BIN;1":         blob(3000, 1),
			"SUB/NOTES.TXT;1":    []byte("first notes\n"),
			"SUB/NOTES.TXT;3":    []byte("third notes\n"),
			"SUB/DEEPER/Z.BIN;4": blob(700, 2),
		},
		Dirs: []string{"EMPTY"},
		Time: systemsTime,
	}
}

func startSystem(t *testing.T, system string, tree localserver.Tree) *localserver.RawFTP {
	t.Helper()
	srv, err := localserver.SystemFTP(system, tree)
	if err != nil {
		t.Fatal(err)
	}
	return startRaw(t, srv)
}

// startRaw serves srv until the test ends.
func startRaw(t *testing.T, srv *localserver.RawFTP) *localserver.RawFTP {
	t.Helper()
	if err := localserver.StartRawFTP(srv); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

// parsedSystems are the layouts whose parser is in place; SysUnknown is
// none of them.
var parsedSystems = []string{localserver.SysUnix, localserver.SysUnixLongISO, localserver.SysUnixFullISO, localserver.SysDOS, localserver.SysEPLF, localserver.SysNetWare, localserver.SysOS2, localserver.SysOS400, localserver.SysMLSD}

type listedEntry struct {
	Name string `json:"name"`
	Type string `json:"type"`
	Size int64  `json:"size"`
}

type listingDoc struct {
	URL       string        `json:"url"`
	Entries   []listedEntry `json:"entries"`
	Unparsed  []string      `json:"unparsed"`
	Fallback  bool          `json:"nlst_fallback"`
	Truncated string        `json:"truncated"`
}

// fetch --json ftp://HOST/ lists every entry of the top directory, and of
// a subdirectory, with its type, and its size where the layout gives
// bytes; no line is left unparsed.
func TestSystemsListing(t *testing.T) {
	for _, system := range parsedSystems {
		t.Run(system, func(t *testing.T) {
			tree := unixTree()
			srv := startSystem(t, system, tree)
			for dir, want := range map[string]map[string]listedEntry{
				"/": {
					"README.txt": {"README.txt", "file", 14}, "data.bin": {"data.bin", "file", 3000},
					"sub": {"sub", "dir", -1}, "empty": {"empty", "dir", -1},
				},
				"/sub/deeper/": {"z.bin": {"z.bin", "file", 700}, "one.txt": {"one.txt", "file", 1}},
			} {
				checkListing(t, srv, dir, want, true)
			}
		})
	}
}

func checkListing(t *testing.T, srv *localserver.RawFTP, dir string, want map[string]listedEntry, bytesKnown bool) {
	t.Helper()
	u := "ftp://" + srv.Addr() + dir
	r := runArgs(t, nil, "", "get", "--json", u)
	var doc listingDoc
	if r.code != fetch.ExitOK || json.Unmarshal([]byte(r.out), &doc) != nil {
		t.Fatalf("get --json %s = %d\n%s%s", u, r.code, r.out, r.err)
	}
	if doc.Unparsed == nil || len(doc.Unparsed) != 0 || doc.Fallback {
		t.Errorf("%s: unparsed %q, fallback %v; want [] and false", dir, doc.Unparsed, doc.Fallback)
	}
	got := map[string]listedEntry{}
	for _, e := range doc.Entries {
		got[e.Name] = e
	}
	if len(got) != len(want) {
		t.Errorf("%s: entries %+v, want %+v", dir, doc.Entries, want)
	}
	for name, w := range want {
		g, ok := got[name]
		switch {
		case !ok:
			t.Errorf("%s: no entry %q in %+v", dir, name, doc.Entries)
		case g.Type != w.Type:
			t.Errorf("%s: %q is a %s, want a %s", dir, name, g.Type, w.Type)
		case bytesKnown && w.Type == "file" && g.Size != w.Size:
			t.Errorf("%s: %q has size %d, want %d", dir, name, g.Size, w.Size)
		}
	}
}

// fetch mirror of each tree is byte-exact, empty directory included, and
// a second run fetches nothing.
func TestSystemsMirror(t *testing.T) {
	for _, system := range parsedSystems {
		t.Run(system, func(t *testing.T) {
			tree := unixTree()
			srv := startSystem(t, system, tree)
			dir := t.TempDir()
			code, out, stderr := mirrorCLI(t, "mirror", "ftp://"+srv.Addr()+"/", dir)
			if code != fetch.ExitOK || !strings.Contains(out, "new 5, updated 0, unchanged 0, skipped 0, failed 0, deleted 0, unparsed 0;") {
				t.Fatalf("mirror = %d\n%s%s", code, out, stderr)
			}
			sameTree(t, dir, tree.Files, tree.Dirs)
			code, out, stderr = mirrorCLI(t, "mirror", "ftp://"+srv.Addr()+"/", dir)
			if code != fetch.ExitOK || !strings.Contains(out, "new 0, updated 0, unchanged 5,") {
				t.Fatalf("second mirror = %d\n%s%s", code, out, stderr)
			}
		})
	}
}

// sameTree checks that dir holds exactly files (and the directories
// dirs), byte for byte, besides the mirror's own .fetch.
func sameTree(t *testing.T, dir string, files map[string][]byte, dirs []string) {
	t.Helper()
	seen := 0
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Error(err)
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if rel == ".fetch" {
			return filepath.SkipDir
		}
		if d.IsDir() {
			return nil
		}
		want, ok := files[rel]
		if !ok {
			t.Errorf("mirrored %q, which the server does not have", rel)
			return nil
		}
		seen++
		if got, _ := os.ReadFile(p); !bytes.Equal(got, want) {
			t.Errorf("%s: %d bytes differ from the server's %d", rel, len(got), len(want))
		}
		return nil
	})
	if seen != len(files) {
		t.Errorf("mirrored %d files, want %d", seen, len(files))
	}
	for _, d := range dirs {
		if st, err := os.Stat(filepath.Join(dir, d)); err != nil || !st.IsDir() {
			t.Errorf("directory %s was not mirrored: %v", d, err)
		}
	}
}

// A layout no parser knows: not one line is understood, so the names come
// from NLST and each one's type from CWD. Every line is named on stderr,
// the run exits 8, and yet every file is mirrored byte-exact; a second
// run (sizes from SIZE, times from MDTM) fetches nothing again.
func TestSystemsUnknownLayoutMirror(t *testing.T) {
	tree := unixTree()
	srv := startSystem(t, localserver.SysUnknown, tree)
	dir := t.TempDir()
	code, out, stderr := mirrorCLI(t, "mirror", "--json", "ftp://"+srv.Addr()+"/", dir)
	var rep struct {
		New, Failed, Unparsed int
		NLSTFallback          int `json:"nlst_fallback"`
		Warnings              []struct{ Path, URL, Kind, Line, Message string }
	}
	if code != fetch.ExitPartial || json.Unmarshal([]byte(out), &rep) != nil {
		t.Fatalf("mirror = %d, want 8\n%s%s", code, out, stderr)
	}
	// "/", "sub" and "sub/deeper" list lines; "empty" lists none.
	if rep.New != 5 || rep.Failed != 0 || rep.Unparsed != 8 || rep.NLSTFallback != 3 {
		t.Errorf("new %d failed %d unparsed %d nlst_fallback %d, want 5, 0, 8, 3", rep.New, rep.Failed, rep.Unparsed, rep.NLSTFallback)
	}
	sameTree(t, dir, tree.Files, tree.Dirs)
	line := "<<file>> data.bin :: 3000 :: 2024-03-12T14:30:00Z"
	if !strings.Contains(stderr, "fetch: warning: ftp://"+srv.Addr()+"/: listing line fits no known layout: \""+line+"\"\n") {
		t.Errorf("stderr does not name the line %q:\n%s", line, stderr)
	}
	if !strings.Contains(stderr, "fetch: warning: ftp://"+srv.Addr()+"/sub/deeper/: no listing line fits a known layout: names from NLST") {
		t.Errorf("stderr does not name the fallback in sub/deeper:\n%s", stderr)
	}
	kinds := map[string]int{}
	for _, w := range rep.Warnings {
		kinds[w.Kind]++
		if w.Kind == "unparsed" && w.Line == line && w.Path != "" {
			t.Errorf("warning for %q names directory %q, want the top", line, w.Path)
		}
	}
	if kinds["unparsed"] != 8 || kinds["nlst_fallback"] != 3 {
		t.Errorf("warnings by kind %v, want 8 unparsed and 3 nlst_fallback", kinds)
	}
	code, out, stderr = mirrorCLI(t, "mirror", "ftp://"+srv.Addr()+"/", dir)
	if code != fetch.ExitPartial || !strings.Contains(out, "new 0, updated 0, unchanged 5, skipped 0, failed 0, deleted 0, unparsed 8;") {
		t.Errorf("second mirror = %d, want 8 and 5 unchanged\n%s%s", code, out, stderr)
	}
}

// The same layout on a server that refuses NLST: nothing can be learnt,
// nothing is mirrored, and the run says so (exit 8, each line named).
func TestSystemsUnknownLayoutNoNLST(t *testing.T) {
	tree := unixTree()
	srv, err := localserver.SystemFTP(localserver.SysUnknown, tree)
	if err != nil {
		t.Fatal(err)
	}
	srv.NameLists = map[string]string{} // NLST: 550 everywhere
	startRaw(t, srv)
	dir := t.TempDir()
	code, out, stderr := mirrorCLI(t, "mirror", "ftp://"+srv.Addr()+"/", dir)
	if code != fetch.ExitPartial || !strings.Contains(out, "new 0, updated 0, unchanged 0, skipped 0, failed 0, deleted 0, unparsed 4;") {
		t.Fatalf("mirror = %d, want 8 and 4 unparsed\n%s%s", code, out, stderr)
	}
	for _, line := range []string{"<<folder>> sub :: 0 :: 2024-03-12T14:30:00Z", "<<file>> README.txt :: 14 :: 2024-03-12T14:30:00Z"} {
		if !strings.Contains(stderr, "listing line fits no known layout: \""+line+"\"") {
			t.Errorf("stderr does not name %q:\n%s", line, stderr)
		}
	}
	if !strings.Contains(stderr, "fetch: mirror: 4 listing lines fit no known layout") {
		t.Errorf("stderr has no closing line:\n%s", stderr)
	}
}

// fetch get of a directory in an unknown layout: the listing is printed
// (NLST's names, probed), each line named on stderr, exit 8; with --json
// the lines are under "unparsed" and "nlst_fallback" is true.
func TestSystemsUnknownLayoutGet(t *testing.T) {
	srv := startSystem(t, localserver.SysUnknown, unixTree())
	u := "ftp://" + srv.Addr() + "/sub/"
	r := runArgs(t, nil, "", "get", u)
	if r.code != fetch.ExitPartial || !strings.Contains(r.out, " notes.txt\n") || !strings.Contains(r.out, "d????????? ") {
		t.Fatalf("get %s = %d\n%s%s", u, r.code, r.out, r.err)
	}
	want := "fetch: warning: " + u + ": listing line fits no known layout: \"<<file>> notes.txt :: 18 :: 2024-03-12T14:30:00Z\"\n"
	if !strings.Contains(r.err, want) {
		t.Errorf("stderr %q lacks %q", r.err, want)
	}
	r = runArgs(t, nil, "", "get", "--json", u)
	var doc listingDoc
	if r.code != fetch.ExitPartial || json.Unmarshal([]byte(r.out), &doc) != nil {
		t.Fatalf("get --json %s = %d\n%s%s", u, r.code, r.out, r.err)
	}
	if len(doc.Unparsed) != 2 || !doc.Fallback || len(doc.Entries) != 2 {
		t.Errorf("unparsed %q, fallback %v, entries %+v; want 2 lines, true, deeper and notes.txt", doc.Unparsed, doc.Fallback, doc.Entries)
	}
	for _, e := range doc.Entries {
		if e.Name == "notes.txt" && (e.Type != "file" || e.Size != 18) || e.Name == "deeper" && e.Type != "dir" {
			t.Errorf("entry %+v", e)
		}
	}
}

// One line understood and one not: the good file is mirrored, the run
// exits 8, and stderr quotes the bad line with its control characters
// escaped.
func TestMirrorOneGarbageLine(t *testing.T) {
	srv := &localserver.RawFTP{
		Listings: map[string]string{"/": "-rw-r--r-- 1 ftp ftp 5 Mar 12  2024 good.txt\r\n\x1b[31mgarbage\tline\r\n"},
		Files:    map[string][]byte{"/good.txt": []byte("good\n")},
	}
	startRaw(t, srv)
	dir := t.TempDir()
	code, out, stderr := mirrorCLI(t, "mirror", "ftp://"+srv.Addr()+"/", dir)
	if code != fetch.ExitPartial || !strings.Contains(out, "new 1, updated 0, unchanged 0, skipped 0, failed 0, deleted 0, unparsed 1;") {
		t.Fatalf("mirror = %d, want 8\n%s%s", code, out, stderr)
	}
	want := "fetch: warning: ftp://" + srv.Addr() + `/: listing line fits no known layout: "\x1b[31mgarbage\tline"` + "\n"
	if !strings.Contains(stderr, want) {
		t.Errorf("stderr %q lacks %q", stderr, want)
	}
	if strings.Contains(stderr, "\x1b") {
		t.Errorf("stderr holds a raw escape character")
	}
	sameTree(t, dir, map[string][]byte{"good.txt": []byte("good\n")}, nil)
	for _, c := range srv.Commands() {
		if c == "NLST" {
			t.Errorf("NLST sent: one line was understood, no fallback is due")
		}
	}
}

// VMS: files as listed, with their versions, sizes unknown (the listing
// counts blocks, not bytes); directories by their name without ".DIR;1",
// in the top directory and below it.
func TestSystemsListingVMS(t *testing.T) {
	srv := startSystem(t, localserver.SysVMS, vmsTree())
	checkListing(t, srv, "/", map[string]listedEntry{
		"README.TXT;1": {"README.TXT;1", "file", -1}, "README.TXT;2": {"README.TXT;2", "file", -1},
		"DATA.BIN;1": {"DATA.BIN;1", "file", -1}, "SUB": {"SUB", "dir", -1}, "EMPTY": {"EMPTY", "dir", -1},
	}, false)
	checkListing(t, srv, "/SUB/DEEPER/", map[string]listedEntry{"Z.BIN;4": {"Z.BIN;4", "file", -1}}, false)
}

// fetch mirror of a VMS tree: nested, the local names without ";n", the
// highest version kept; a second run fetches nothing. CWD goes segment by
// segment ("CWD SUB", "CWD DEEPER") and back to the login directory with
// the PWD answer, "DISK$USER:[ANONYMOUS]"; every file is retrieved by its
// full name, version included.
func TestSystemsMirrorVMS(t *testing.T) {
	srv := startSystem(t, localserver.SysVMS, vmsTree())
	dir := t.TempDir()
	code, out, stderr := mirrorCLI(t, "mirror", "-j", "2", "ftp://"+srv.Addr()+"/", dir)
	if code != fetch.ExitOK || !strings.Contains(out, "new 4, updated 0, unchanged 0, skipped 0, failed 0, deleted 0, unparsed 0;") {
		t.Fatalf("mirror = %d\n%s%s", code, out, stderr)
	}
	tree := vmsTree()
	want := map[string][]byte{
		"README.TXT": tree.Files["README.TXT;2"], "DATA.BIN": tree.Files["DATA.BIN;1"],
		"SUB/NOTES.TXT": tree.Files["SUB/NOTES.TXT;3"], "SUB/DEEPER/Z.BIN": tree.Files["SUB/DEEPER/Z.BIN;4"],
	}
	sameTree(t, dir, want, tree.Dirs)
	cmds := srv.Commands()
	// Two connections use four directories: at least one comes back to
	// its login directory.
	for _, c := range []string{"PWD", "SYST", "CWD DISK$USER:[ANONYMOUS]", "CWD SUB", "CWD DEEPER", "RETR README.TXT;2", "RETR NOTES.TXT;3", "RETR Z.BIN;4"} {
		if !slicesContains(cmds, c) {
			t.Errorf("no %q among the commands %q", c, cmds)
		}
	}
	if slicesContains(cmds, "RETR README.TXT;1") || slicesContains(cmds, "RETR NOTES.TXT;1") {
		t.Errorf("an older version was retrieved: %q", cmds)
	}
	code, out, stderr = mirrorCLI(t, "mirror", "-j", "1", "ftp://"+srv.Addr()+"/", dir)
	if code != fetch.ExitOK || !strings.Contains(out, "new 0, updated 0, unchanged 4,") {
		t.Fatalf("second mirror = %d\n%s%s", code, out, stderr)
	}
}

// --keep-versions: every version, each under its listed name.
func TestSystemsMirrorVMSKeepVersions(t *testing.T) {
	srv := startSystem(t, localserver.SysVMS, vmsTree())
	dir := t.TempDir()
	code, out, stderr := mirrorCLI(t, "mirror", "--keep-versions", "ftp://"+srv.Addr()+"/", dir)
	if code != fetch.ExitOK || !strings.Contains(out, "new 6, updated 0,") {
		t.Fatalf("mirror = %d\n%s%s", code, out, stderr)
	}
	tree := vmsTree()
	sameTree(t, dir, tree.Files, tree.Dirs)
}

func slicesContains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// fetch get of a directory with one line understood and one not: the
// entry is shown, the other line named on stderr, and the exit code is 8;
// with --json the line is under "unparsed" and there is no fallback.
func TestGetOneGarbageLine(t *testing.T) {
	srv := &localserver.RawFTP{
		Listings: map[string]string{"/": "-rw-r--r-- 1 ftp ftp 5 Mar 12  2024 good.txt\r\nwhat\x7fis this\r\n"},
	}
	startRaw(t, srv)
	u := "ftp://" + srv.Addr() + "/"
	r := runArgs(t, nil, "", "get", u)
	if r.code != fetch.ExitPartial || !strings.Contains(r.out, " good.txt\n") {
		t.Fatalf("get %s = %d\n%s%s", u, r.code, r.out, r.err)
	}
	if want := "fetch: warning: " + u + `: listing line fits no known layout: "what\x7fis this"` + "\n"; !strings.Contains(r.err, want) {
		t.Errorf("stderr %q lacks %q", r.err, want)
	}
	r = runArgs(t, nil, "", "get", "--json", u)
	var doc listingDoc
	if r.code != fetch.ExitPartial || json.Unmarshal([]byte(r.out), &doc) != nil {
		t.Fatalf("get --json %s = %d\n%s%s", u, r.code, r.out, r.err)
	}
	if len(doc.Entries) != 1 || doc.Entries[0].Name != "good.txt" || len(doc.Unparsed) != 1 || doc.Unparsed[0] != "what\x7fis this" || doc.Fallback {
		t.Errorf("entries %+v, unparsed %q, fallback %v", doc.Entries, doc.Unparsed, doc.Fallback)
	}
	r = runArgs(t, nil, "", "get", "-s", u)
	if r.code != fetch.ExitPartial || strings.Contains(r.err, "warning") || !strings.Contains(r.err, "1 listing lines fit no known layout") {
		t.Errorf("get -s = %d, stderr %q; want 8, no warning, the closing error", r.code, r.err)
	}
}

// A Unix server that refuses LIST -a (501): each directory is listed again
// with LIST and mirrored whole as listed, exit 0, and the run says once
// that names which begin with a dot could not be asked for; later
// listings send LIST alone.
func TestMirrorDotNamesRefused(t *testing.T) {
	srv := &localserver.RawFTP{
		Listings: map[string]string{
			"/":    "-rw-r--r-- 1 ftp ftp 5 Mar 12  2024 good.txt\r\ndrwxr-xr-x 2 ftp ftp 4096 Mar 12  2024 sub\r\n",
			"/sub": "-rw-r--r-- 1 ftp ftp 6 Mar 12  2024 inner.txt\r\n",
		},
		Files:         map[string][]byte{"/good.txt": []byte("good\n"), "/sub/inner.txt": []byte("inner\n")},
		RefuseOptions: true,
	}
	startRaw(t, srv)
	dir := t.TempDir()
	code, out, stderr := mirrorCLI(t, "mirror", "ftp://"+srv.Addr()+"/", dir)
	if code != fetch.ExitOK || !strings.Contains(out, "new 2, updated 0, unchanged 0, skipped 0, failed 0, deleted 0, unparsed 0;") {
		t.Fatalf("mirror = %d, want 0\n%s%s", code, out, stderr)
	}
	const notice = "fetch: mirror: the server refused LIST -a: names that begin with a dot are not listed; files and directories so named, if the server holds any, are not mirrored\n"
	if n := strings.Count(stderr, notice); n != 1 {
		t.Errorf("stderr has the notice %d times, want once:\n%s", n, stderr)
	}
	sameTree(t, dir, map[string][]byte{"good.txt": []byte("good\n"), "sub/inner.txt": []byte("inner\n")}, []string{"sub"})
	var lists []string
	for _, c := range srv.Commands() {
		if strings.HasPrefix(c, "LIST") {
			lists = append(lists, c)
		}
	}
	if got := strings.Join(lists, "|"); got != "LIST -a|LIST|LIST" {
		t.Errorf("LIST commands %q, want LIST -a, then LIST for each directory", got)
	}
}

// A server that cuts a listing at its limit and says so in its 226
// (Pure-FTPd: "226 Output truncated to N matches"): fetch get prints the
// entries it had and exits 8 with the reply named (--json: "truncated");
// fetch mirror copies what was listed, warns, exits 8, and --delete
// removes nothing below that directory.
func TestListingTruncatedCLI(t *testing.T) {
	const done = "226-Options: -a -l \r\n226 Output truncated to 2 matches"
	srv := &localserver.RawFTP{
		Listings: map[string]string{
			"/":    "drwxr-xr-x 2 ftp ftp 4096 Mar 12  2024 big\r\n",
			"/big": "-rw-r--r-- 1 ftp ftp 2 Mar 12  2024 a.txt\r\n-rw-r--r-- 1 ftp ftp 2 Mar 12  2024 b.txt\r\n",
		},
		Files:    map[string][]byte{"/big/a.txt": []byte("a\n"), "/big/b.txt": []byte("b\n")},
		ListDone: map[string]string{"/big": done},
	}
	startRaw(t, srv)
	u := "ftp://" + srv.Addr() + "/big/"
	const why = "the server cut the listing short (226 Output truncated to 2 matches): entries past its limit are missing"
	r := runArgs(t, nil, "", "get", u)
	if r.code != fetch.ExitPartial || !strings.Contains(r.out, " a.txt\n") || !strings.Contains(r.out, " b.txt\n") || !strings.Contains(r.err, "fetch: "+u+": "+why) {
		t.Fatalf("get %s = %d\n%s%s", u, r.code, r.out, r.err)
	}
	r = runArgs(t, nil, "", "get", "--json", u)
	var doc listingDoc
	if r.code != fetch.ExitPartial || json.Unmarshal([]byte(r.out), &doc) != nil {
		t.Fatalf("get --json %s = %d\n%s%s", u, r.code, r.out, r.err)
	}
	if doc.Truncated != "226 Output truncated to 2 matches" || len(doc.Entries) != 2 {
		t.Errorf("truncated %q, %d entries", doc.Truncated, len(doc.Entries))
	}

	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "big"), 0o755); err != nil {
		t.Fatal(err)
	}
	// A file of the directory past the server's limit, mirrored before.
	if err := os.WriteFile(filepath.Join(dir, "big", "z.txt"), []byte("z\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := mirrorCLI(t, "mirror", "--delete", "ftp://"+srv.Addr()+"/", dir)
	if code != fetch.ExitPartial || !strings.Contains(out, "new 2, updated 0, unchanged 0, skipped 0, failed 0, deleted 0,") {
		t.Fatalf("mirror = %d, want 8\n%s%s", code, out, stderr)
	}
	for _, want := range []string{
		"fetch: warning: " + u + `: the server cut the listing short ("226 Output truncated to 2 matches"): entries past its limit are not mirrored` + "\n",
		"fetch: mirror: the server cut 1 listings short at its limit: entries past it are missing\n",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr %q lacks %q", stderr, want)
		}
	}
	sameTree(t, dir, map[string][]byte{"big/a.txt": []byte("a\n"), "big/b.txt": []byte("b\n"), "big/z.txt": []byte("z\n")}, []string{"big"})
}

// ;type=d is NLST (RFC 1738 section 3.2.2), and its names are printed one
// per line, as DESIGN.md says, not in the ls -l form of a listing whose
// types, sizes and times are unknown; a control character in a name is
// shown as "?", as in listings.
func TestGetNameList(t *testing.T) {
	srv := &localserver.RawFTP{
		Listings:  map[string]string{"/pub": "-rw-r--r-- 1 ftp ftp 5 Mar 12  2024 a.txt\r\n"},
		NameLists: map[string]string{"/pub": "a.txt\r\nsub\r\nbad\x1bname\r\n"},
	}
	startRaw(t, srv)
	r := runArgs(t, nil, "", "get", "ftp://"+srv.Addr()+"/pub/;type=d")
	if r.code != fetch.ExitOK || r.out != "a.txt\nsub\nbad?name\n" {
		t.Errorf("get ;type=d = %d, %q; want the names one per line", r.code, r.out)
	}
}
