package fetch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/internal/testrig/localserver"
	"github.com/rfc1738/fetch/mirror"
)

func mlsdFile(name string, size int) string {
	return "type=file;size=" + strconv.Itoa(size) + ";modify=20010203040506; " + name + "\r\n"
}

func mlsdEntry(typ, name string) string {
	return "type=" + typ + ";modify=20010203040506; " + name + "\r\n"
}

func lsLink(name, target string) string {
	return "lrwxrwxrwx    1 0        0    " + strconv.Itoa(len(target)) + " Feb 03  2001 " + name + " -> " + target + "\r\n"
}

// mirrorFTP mirrors srv's top directory into dir with a client that
// records its dials.
func mirrorFTP(t *testing.T, srv *localserver.RawFTP, dir string, dials *dialLog) (*MirrorSummary, error) {
	t.Helper()
	c := &Client{ConnectTimeout: 5 * time.Second, IdleTimeout: 5 * time.Second, Dial: dials.dial}
	defer c.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	sum, err := c.Mirror(ctx, "ftp://"+srv.Addr()+"/", dir, MirrorOptions{Jobs: 2})
	c.CloseIdleConnections()
	if !srv.WaitIdle(10 * time.Second) {
		t.Fatal("the client's connections stay open")
	}
	return sum, err
}

// TestMirrorHostileFTP: an FTP server whose MLSD listing holds names that
// are no names, a name no local system holds, symbolic links (with their
// target, "type=OS.unix=slink:T", or without, "type=OS.unix=symlink", whose
// target LIST -d gives) to "/", "..", an absolute path and a directory
// the run makes, and entries listed under a link's name. Names Unicode
// normalises alike are two names. Each refused entry is named; nothing
// is written outside the target, no link made leads out of it, and the
// control connection carries no hostile name (RawFTP.Commands).
// (TestMirrorHostileFTPServer in package mirror has the LIST forms.)
func TestMirrorHostileFTP(t *testing.T) {
	const skipped, failed = mirror.StatusSkipped, mirror.StatusFailed
	long := strings.Repeat("n", 300)
	entries := []hostileEntry{
		{mlsdFile("a\\b", 1), `"a\\b"`, skipped, `"/" or "\"`},
		{mlsdFile("..", 1), "", "", ""}, // "." and "..", of any type, are no members
		{mlsdFile(".", 1), "", "", ""},
		{mlsdFile("e\x1bc", 1), `"e\x1bc"`, skipped, "control character"},
		{mlsdFile("del\x7f", 1), `"del\x7f"`, skipped, "control character"},
		{mlsdFile(long, 1), strconv.Quote(long), failed, "longer than 255 bytes"},
		// The state directory as HFS+ (ignored code points) and NTFS
		// (8.3 short name) would take these names.
		{mlsdEntry("dir", ".fe\u200ctch"), ".fe\u200ctch", failed, "reserved for the mirror's own state"},
		{mlsdEntry("dir", "FETCH~1"), "FETCH~1", failed, "reserved for the mirror's own state"},
		{mlsdEntry("OS.unix=slink:/", "root"), "root", skipped, "leaves the target"},
		{mlsdEntry("OS.unix=slink:..", "up"), "up", skipped, "leaves the target"},
		{mlsdEntry("OS.unix=slink:/etc/passwd", "pw"), "pw", skipped, "leaves the target"},
		{mlsdEntry("OS.unix=slink:sub/../..", "climb"), "climb", skipped, "leaves the target"},
		{mlsdEntry("OS.unix=symlink", "ask"), "ask", skipped, "leaves the target"},
		{mlsdEntry("OS.unix=slink:sub", "in"), "in", mirror.StatusNew, ""},
		// A listing cannot put an entry below a link: its names hold
		// no "/", and a link is never walked.
		{mlsdFile("root/etc/x", 1), `"root/etc/x"`, skipped, `"/" or "\"`},
		{mlsdFile("caf\u00e9", 3), "caf\u00e9", mirror.StatusNew, ""},
		{mlsdFile("cafe\u0301", 3), "cafe\u0301", mirror.StatusNew, ""},
		{mlsdFile("%2e%2e%2fx", 3), "%2e%2e%2fx", mirror.StatusNew, ""},
	}
	var top strings.Builder
	top.WriteString(mlsdFile("ok.txt", 3) + mlsdEntry("dir", "sub"))
	for _, e := range entries {
		top.WriteString(e.offer)
	}
	srv := &localserver.RawFTP{
		// LIST -d NAME (asked for the link MLSD gave without a
		// target) answers this listing.
		Listings: map[string]string{"/": lsLink("ask", "/"), "/sub": "", "/root": "", "/root/etc": ""},
		MLSD: map[string]string{
			"/":         top.String(),
			"/sub":      mlsdFile("s.txt", 3),
			"/root":     mlsdEntry("dir", "etc"),
			"/root/etc": mlsdFile("x", 3),
		},
		Files: map[string][]byte{
			"/ok.txt": []byte("ok\n"), "/sub/s.txt": []byte("ok\n"), "/root/etc/x": []byte("no\n"),
			"/caf\u00e9": []byte("nfc"), "/cafe\u0301": []byte("nfd"), "/%2e%2e%2fx": []byte("lit"),
		},
	}
	if err := localserver.StartRawFTP(srv); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	d := newHostileDirs(t)
	dials := &dialLog{}
	sum, err := mirrorFTP(t, srv, d.target, dials)
	if !errors.Is(err, ErrMirrorPartial) {
		t.Errorf("Mirror = %v, want ErrMirrorPartial (exit 8)", err)
	}
	checkReport(t, sum, entries, "ok.txt", "sub/s.txt")
	d.contained(t)
	dials.only(t, "127.0.0.1")
	if l, err := os.Readlink(filepath.Join(d.target, "in")); err != nil || l != "sub" {
		t.Errorf("in = %q, %v; want the link to sub", l, err)
	}
	for name, want := range map[string]string{"caf\u00e9": "nfc", "cafe\u0301": "nfd", "%2e%2e%2fx": "lit"} {
		if b, err := os.ReadFile(filepath.Join(d.target, name)); err != nil || string(b) != want {
			t.Errorf("%q = %q, %v; want %q", name, b, err, want)
		}
	}
	for _, c := range srv.Commands() {
		verb, arg, _ := strings.Cut(c, " ")
		if arg = strings.TrimPrefix(arg, "-d "); verb != "CWD" && verb != "RETR" && verb != "SIZE" && verb != "MDTM" && verb != "LIST" && verb != "MLSD" {
			continue
		}
		if strings.ContainsAny(arg, "\\\x1b\x7f") || strings.Contains(arg, "..") || strings.HasPrefix(arg, "root") || strings.HasPrefix(arg, "/root") {
			t.Errorf("sent %q", c)
		}
	}
}

// TestMirrorHostileFTPLinksAcrossRuns: a server that lists a link in one
// run and a directory of the same name in the next (or the reverse)
// cannot make the mirror write through a link it made: the links l ->
// "." and ld -> d become directories of their own, and the files below
// them land there, not in the target's top or in d; a directory that
// becomes a link to "/" is left as it is, the link named as refused.
func TestMirrorHostileFTPLinksAcrossRuns(t *testing.T) {
	first := &localserver.RawFTP{
		Listings: map[string]string{"/": "", "/d": "", "/e": ""},
		MLSD: map[string]string{
			"/": mlsdFile("ok.txt", 3) + mlsdEntry("OS.unix=slink:.", "l") + mlsdEntry("dir", "d") +
				mlsdEntry("OS.unix=slink:d", "ld") + mlsdEntry("dir", "e"),
			"/d": mlsdFile("f", 2),
			"/e": mlsdFile("g", 2),
		},
		Files: map[string][]byte{"/ok.txt": []byte("ok\n"), "/d/f": []byte("f\n"), "/e/g": []byte("g\n")},
	}
	second := &localserver.RawFTP{
		Listings: map[string]string{"/": "", "/d": "", "/l": "", "/ld": "", "/l/.fetch": ""},
		MLSD: map[string]string{
			"/": mlsdFile("ok.txt", 3) + mlsdEntry("dir", "l") + mlsdEntry("dir", "d") +
				mlsdEntry("dir", "ld") + mlsdEntry("OS.unix=slink:/", "e"),
			"/d":        mlsdFile("f", 2),
			"/l":        mlsdFile("ok.txt", 5) + mlsdEntry("dir", ".fetch"),
			"/l/.fetch": mlsdFile("manifest.json", 5),
			"/ld":       mlsdFile("f", 5),
		},
		Files: map[string][]byte{
			"/ok.txt": []byte("ok\n"), "/d/f": []byte("f\n"),
			"/l/ok.txt": []byte("evil\n"), "/l/.fetch/manifest.json": []byte("evil\n"), "/ld/f": []byte("evil\n"),
		},
	}
	d := newHostileDirs(t)
	dials := &dialLog{}
	for _, srv := range []*localserver.RawFTP{first, second} {
		if err := localserver.StartRawFTP(srv); err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
	}
	sum, err := mirrorFTP(t, first, d.target, dials)
	if err != nil || sum.New != 5 {
		t.Fatalf("first run: %v, %d new; want 5 (ok.txt, d/f, e/g, l, ld)", err, sum.New)
	}
	for name, want := range map[string]string{"l": ".", "ld": "d"} {
		if l, err := os.Readlink(filepath.Join(d.target, name)); err != nil || l != want {
			t.Fatalf("first run: %s = %q, %v; want a link to %s", name, l, err, want)
		}
	}
	sum, err = mirrorFTP(t, second, d.target, dials)
	if err != nil {
		t.Errorf("second run: %v", err)
	}
	got := map[string]string{}
	for _, e := range sum.Entries {
		got[e.Path] = string(e.Status) + " " + e.Reason
	}
	for p, want := range map[string]string{
		"l/ok.txt": "new", "l/.fetch/manifest.json": "new", "ld/f": "new", "e": "skipped",
	} {
		if !strings.HasPrefix(got[p], want) {
			t.Errorf("%s: %q, want %s", p, got[p], want)
		}
	}
	d.contained(t)
	dials.only(t, "127.0.0.1")
	for rel, want := range map[string]string{
		"ok.txt": "ok\n", "d/f": "f\n", "e/g": "g\n",
		"l/ok.txt": "evil\n", "ld/f": "evil\n", "l/.fetch/manifest.json": "evil\n",
	} {
		if b, err := os.ReadFile(filepath.Join(d.target, rel)); err != nil || string(b) != want {
			t.Errorf("%s = %q, %v; want %q", rel, b, err, want)
		}
	}
	for _, dir := range []string{"l", "ld", "e"} {
		if st, err := os.Lstat(filepath.Join(d.target, dir)); err != nil || !st.IsDir() {
			t.Errorf("%s is not a directory (%v)", dir, err)
		}
	}
	if b, err := os.ReadFile(filepath.Join(d.target, ".fetch", "manifest.json")); err != nil || strings.Contains(string(b), "evil") {
		t.Errorf("the manifest was overwritten: %v", err)
	}
}
