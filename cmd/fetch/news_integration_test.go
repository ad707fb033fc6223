package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net"
	"net/textproto"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/internal/testrig/servertest"
)

// Issue 18 acceptance, on the real INN of scripts/servers.sh: the three
// archive groups (crossposts, dot-stuffed and long lines) mirrored fresh
// are complete and byte-exact to what ARTICLE returns; a second run sends
// no ARTICLE (the wire log of a socat -v relay); articles added between runs arrive on
// the third; the mbox and maildir exports read back with Python's mailbox
// module with the same count and bodies.

var archiveGroups = []string{"archive.alpha", "archive.beta", "archive.gamma"}

// innArticles reads every article of group from nnrpd directly (not
// through the code under test): number -> the article dot-unstuffed with
// LF line ends (textproto's DotBytes), as the mirror keeps it.
func innArticles(t *testing.T, addr, group string) map[int64][]byte {
	t.Helper()
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(60 * time.Second))
	c := textproto.NewConn(nc)
	if _, _, err := c.ReadCodeLine(2); err != nil {
		t.Fatal(err)
	}
	if err := c.PrintfLine("GROUP %s", group); err != nil {
		t.Fatal(err)
	}
	_, msg, err := c.ReadCodeLine(211)
	if err != nil {
		t.Fatalf("GROUP %s: %v", group, err)
	}
	f := strings.Fields(msg)
	low, _ := strconv.ParseInt(f[1], 10, 64)
	high, _ := strconv.ParseInt(f[2], 10, 64)
	out := map[int64][]byte{}
	// All the commands at once (pipelined, RFC 3977 section 3.5): one
	// round trip per article would wait on delayed acknowledgements.
	go func() {
		for n := low; n <= high && n > 0; n++ {
			if c.PrintfLine("ARTICLE %d", n) != nil {
				return
			}
		}
	}()
	for n := low; n <= high && n > 0; n++ {
		code, _, err := c.ReadCodeLine(0)
		if err != nil {
			t.Fatal(err)
		}
		if code == 423 {
			continue
		}
		if code != 220 {
			t.Fatalf("ARTICLE %d of %s: %d", n, group, code)
		}
		b, err := c.ReadDotBytes()
		if err != nil {
			t.Fatal(err)
		}
		out[n] = b
	}
	c.PrintfLine("QUIT")
	return out
}

// checkMirrorExact compares the mirror in dir with the server, article by
// article, and checks that nothing else stands in the groups' directories.
// It returns the number of articles.
func checkMirrorExact(t *testing.T, addr, dir string) int {
	t.Helper()
	total := 0
	for _, g := range archiveGroups {
		want := innArticles(t, addr, g)
		gdir := filepath.Join(dir, strings.ReplaceAll(g, ".", "/"))
		ents, err := os.ReadDir(gdir)
		if err != nil {
			t.Fatal(err)
		}
		if len(ents) != len(want) {
			t.Errorf("%s: %d files, server has %d articles", g, len(ents), len(want))
		}
		for n, art := range want {
			got, err := os.ReadFile(filepath.Join(gdir, strconv.FormatInt(n, 10)))
			if err != nil {
				t.Errorf("%s/%d: %v", g, n, err)
				continue
			}
			if !bytes.Equal(got, art) {
				t.Errorf("%s/%d differs from ARTICLE %d:\ngot  %q\nwant %q", g, n, n, got, art)
			}
		}
		total += len(want)
	}
	return total
}

func TestIntegrationNewsMirror(t *testing.T) {
	s := servertest.Get(t, servertest.NNTP)
	// A relay of this test's own: the shared one's log also holds the
	// commands of other packages' tests running at the same time.
	relay := servertest.StartRelay(t, s.Addr)
	dir := t.TempDir()
	url := "nntp://" + relay.Addr + "/archive.*"

	// Fresh mirror.
	t0 := time.Now()
	r := runArgs(t, nil, "", "mirror", "-s", "-j", "3", "--json", url, dir)
	if r.code != 0 {
		t.Fatalf("first run = %d: %s", r.code, r.err)
	}
	var sum struct {
		New, Unchanged, Failed int
		Entries                []struct{ Path, Reason string }
	}
	if err := json.Unmarshal([]byte(r.out), &sum); err != nil {
		t.Fatal(err)
	}
	t.Logf("fresh mirror in %v", time.Since(t0))
	total := checkMirrorExact(t, s.Addr, dir)
	t.Logf("compared in %v", time.Since(t0))
	if sum.New != total || sum.Failed != 0 {
		t.Errorf("first run: new %d failed %d, want new %d", sum.New, sum.Failed, total)
	}

	// Crossposts: one file, linked under each group, both in the manifest.
	var man struct {
		Files      map[string]struct{ URL string }
		Groups     map[string]struct{ High, Low int64 }
		MessageIDs map[string]string `json:"message_ids"`
	}
	b, err := os.ReadFile(filepath.Join(dir, ".fetch", "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &man); err != nil {
		t.Fatal(err)
	}
	if len(man.MessageIDs) < 800 || len(man.Files) != total {
		t.Errorf("manifest: %d message-ids, %d files; want >= 800 ids and %d files", len(man.MessageIDs), len(man.Files), total)
	}
	xref := regexp.MustCompile(`(?m)^Xref: \S+ (\S+):(\d+) (\S+):(\d+)$`)
	crossposts := 0
	for _, g := range archiveGroups {
		gdir := filepath.Join(dir, strings.ReplaceAll(g, ".", "/"))
		ents, _ := os.ReadDir(gdir)
		for _, e := range ents {
			p := filepath.Join(gdir, e.Name())
			art, _ := os.ReadFile(p)
			m := xref.FindSubmatch(art)
			if m == nil || string(m[1]) != g || string(m[2]) != e.Name() {
				continue
			}
			other := filepath.Join(dir, strings.ReplaceAll(string(m[3]), ".", "/"), string(m[4]))
			a, err1 := os.Stat(p)
			o, err2 := os.Stat(other)
			if err1 != nil || err2 != nil || !os.SameFile(a, o) {
				t.Errorf("crosspost %s and %s are not one linked file (%v, %v)", p, other, err1, err2)
			}
			crossposts++
		}
	}
	if crossposts < 80 {
		t.Errorf("%d crossposts found, want at least 80", crossposts)
	}
	for _, g := range archiveGroups {
		if man.Groups[g].High < 290 {
			t.Errorf("manifest group %s = %+v", g, man.Groups[g])
		}
	}

	// Second run: nothing new, and no ARTICLE on the wire. One connection
	// (-j 1): socat -v interleaves the logs of concurrent connections
	// byte by byte.
	off := relay.Size()
	r = runArgs(t, nil, "", "mirror", "-s", "-j", "1", url, dir)
	if r.code != 0 || !strings.HasPrefix(r.out, "new 0, updated 0") {
		t.Fatalf("second run = %d %q %s", r.code, r.out, r.err)
	}
	// Wait for the last GROUP and the QUIT to show in the log.
	wire := relay.Until(t, off, 10*time.Second, func(wire string) bool {
		return strings.Count(wire, "GROUP archive.") >= len(archiveGroups) && strings.Contains(wire, "QUIT")
	})
	for _, g := range archiveGroups {
		if !strings.Contains(wire, "GROUP "+g+`\r`) {
			t.Errorf("the wire log of the second run lacks GROUP %s", g)
		}
	}
	if strings.Contains(wire, "ARTICLE") {
		t.Errorf("the second run sent ARTICLE:\n%s", wire)
	}

	// Third run, after articles were added: they arrive, byte-exact.
	first, last := servertest.AddNewsArticles(t, "archive.gamma", 3)
	mboxFile := filepath.Join(t.TempDir(), "news.mbox")
	maildir := filepath.Join(t.TempDir(), "Maildir")
	r = runArgs(t, nil, "", "mirror", "-s", "-j", "2", "--mbox", mboxFile, "--maildir", maildir, url, dir)
	if r.code != 0 || !strings.HasPrefix(r.out, "new 3, updated 0") {
		t.Fatalf("third run = %d %q %s", r.code, r.out, r.err)
	}
	for n := first; n <= last; n++ {
		if _, err := os.Stat(filepath.Join(dir, "archive", "gamma", strconv.FormatInt(n, 10))); err != nil {
			t.Errorf("added article %d: %v", n, err)
		}
	}
	total = checkMirrorExact(t, s.Addr, dir)

	// The exports: one message per distinct article, in the mirror's order.
	want := distinctArticles(t, dir)
	if len(want) != total-crossposts {
		t.Errorf("%d distinct articles, want %d - %d crossposts", len(want), total, crossposts)
	}
	t.Logf("third run and comparison done at %v", time.Since(t0))
	checkPython(t, "mbox", mboxFile, want, true)
	checkPython(t, "maildir", maildir, want, false)
}

// distinctArticles returns the SHA-256 of each distinct article file of the
// mirror, ordered by group directory and number.
func distinctArticles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	seen := map[string]bool{}
	for _, g := range archiveGroups {
		gdir := filepath.Join(dir, strings.ReplaceAll(g, ".", "/"))
		ents, _ := os.ReadDir(gdir)
		var nums []int
		for _, e := range ents {
			n, _ := strconv.Atoi(e.Name())
			nums = append(nums, n)
		}
		slices.Sort(nums)
		for _, n := range nums {
			b, err := os.ReadFile(filepath.Join(gdir, strconv.Itoa(n)))
			if err != nil {
				t.Fatal(err)
			}
			s := sha256.Sum256(b)
			h := hex.EncodeToString(s[:])
			if !seen[h] {
				seen[h] = true
				out = append(out, h)
			}
		}
	}
	return out
}

// checkPython reads an export back with Python's mailbox module and
// compares the count and each message's bytes (SHA-256) with want: in
// order for an mbox (whose mboxrd quoting Python does not undo, so the
// script undoes it), as a set for a maildir.
func checkPython(t *testing.T, kind, path string, want []string, ordered bool) {
	t.Helper()
	script := `
import hashlib, mailbox, re, sys
kind, path = sys.argv[1], sys.argv[2]
box = mailbox.mbox(path, create=False) if kind == "mbox" else mailbox.Maildir(path, create=False)
keys = sorted(box.keys()) if kind == "mbox" else list(box.keys())
print(len(keys))
for k in keys:
    b = box.get_bytes(k)
    if kind == "mbox":
        b = re.sub(rb"(?m)^>(>*From )", rb"\1", b)
    print(hashlib.sha256(b).hexdigest())
`
	out, err := exec.Command("python3", "-c", script, kind, path).Output()
	if err != nil {
		t.Fatalf("python3 reading the %s: %v", kind, err)
	}
	lines := strings.Fields(string(out))
	if len(lines) == 0 || lines[0] != strconv.Itoa(len(want)) {
		t.Fatalf("python3 counts %v messages in the %s, want %d", lines[:min(1, len(lines))], kind, len(want))
	}
	got := lines[1:]
	if ordered {
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("%s message %d: sha256 %s, want %s", kind, i, got[i], want[i])
			}
		}
		return
	}
	set := map[string]bool{}
	for _, h := range want {
		set[h] = true
	}
	for _, h := range got {
		if !set[h] {
			t.Errorf("%s holds a message (sha256 %s) that is no article of the mirror", kind, h)
		}
		delete(set, h)
	}
	if len(set) > 0 {
		t.Errorf("%s lacks %d articles", kind, len(set))
	}
}
