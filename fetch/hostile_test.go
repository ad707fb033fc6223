package fetch

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch/fetchtest"
	"github.com/rfc1738/fetch/mirror"
)

// hostileDirs is the layout a hostile mirror test writes into: parent
// holds the target, a sibling directory with one file, and one file of
// its own; nothing but the target may change.
type hostileDirs struct {
	parent, target, sibling string
}

func newHostileDirs(t *testing.T) hostileDirs {
	t.Helper()
	parent := t.TempDir()
	d := hostileDirs{parent: parent, target: filepath.Join(parent, "target"), sibling: filepath.Join(parent, "sibling")}
	for _, dir := range []string{d.target, d.sibling} {
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(parent, "x"), filepath.Join(d.sibling, "x")} {
		if err := os.WriteFile(f, []byte("keep\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

// contained checks that nothing outside the target changed: the parent
// holds target, sibling and x, the sibling holds x, both files are
// intact, and every symbolic link in the target but those the test put
// there (own, paths relative to the target) leads inside it.
func (d hostileDirs) contained(t *testing.T, own ...string) {
	t.Helper()
	names := func(dir string) []string {
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range ents {
			out = append(out, e.Name())
		}
		return out
	}
	if got := names(d.parent); !slices.Equal(got, []string{"sibling", "target", "x"}) {
		t.Errorf("the target's parent holds %q, want sibling, target and x", got)
	}
	if got := names(d.sibling); !slices.Equal(got, []string{"x"}) {
		t.Errorf("the sibling directory holds %q, want x", got)
	}
	for _, f := range []string{filepath.Join(d.parent, "x"), filepath.Join(d.sibling, "x")} {
		if b, err := os.ReadFile(f); err != nil || string(b) != "keep\n" {
			t.Errorf("%s = %q, %v; want it untouched", f, b, err)
		}
	}
	root, err := filepath.EvalSymlinks(d.target)
	if err != nil {
		t.Fatal(err)
	}
	filepath.WalkDir(d.target, func(p string, e os.DirEntry, err error) error {
		rel, _ := filepath.Rel(d.target, p)
		if err != nil || e.Type()&os.ModeSymlink == 0 || slices.Contains(own, rel) {
			return nil
		}
		to, err := filepath.EvalSymlinks(p)
		if err != nil {
			return nil // a dangling link leads nowhere
		}
		if to != root && !strings.HasPrefix(to, root+string(filepath.Separator)) {
			t.Errorf("link %s leads out of the target, to %s", p, to)
		}
		return nil
	})
}

// dialLog records every address a client dials.
type dialLog struct {
	mu    sync.Mutex
	addrs []string
}

func (l *dialLog) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	l.mu.Lock()
	l.addrs = append(l.addrs, addr)
	l.mu.Unlock()
	var d net.Dialer
	return d.DialContext(ctx, network, addr)
}

// only checks that every dial went to addr (host:port), or to the host
// addr when it has no port (an FTP server's data connections).
func (l *dialLog) only(t *testing.T, addr string) {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.addrs) == 0 {
		t.Error("nothing was dialled")
	}
	for _, a := range l.addrs {
		if host, _, _ := net.SplitHostPort(a); a != addr && host != addr {
			t.Errorf("dialled %s; the mirror's server is %s", a, addr)
		}
	}
}

// hostileEntry is one entry a hostile server offers: the link, menu line
// or listing name it is offered by, and what the report must say of it
// (path "" for a link that is no entry of the tree and is dropped
// unreported: another server, another scheme, above the start).
type hostileEntry struct {
	offer  string
	path   string
	status mirror.Status
	reason string // a part of the entry's reason
}

// checkReport checks that each entry of want is reported as it says, and
// that the report holds no other entry than those and the paths of ok
// (mirrored, status new).
func checkReport(t *testing.T, sum *MirrorSummary, want []hostileEntry, ok ...string) {
	t.Helper()
	got := map[string]MirrorEntry{}
	for _, e := range sum.Entries {
		got[e.Path] = e
	}
	for _, w := range want {
		if w.path == "" {
			continue
		}
		e, found := got[w.path]
		switch {
		case !found:
			t.Errorf("%q: not in the report, want %s (%s)", w.offer, w.status, w.reason)
		case e.Status != w.status || !strings.Contains(e.Reason, w.reason):
			t.Errorf("%q: reported %s: %s; want %s (%s)", w.offer, e.Status, e.Reason, w.status, w.reason)
		}
		delete(got, w.path)
	}
	for _, p := range ok {
		if e := got[p]; e.Status != mirror.StatusNew {
			t.Errorf("%s: %s %s, want it mirrored", p, e.Status, e.Reason)
		}
		delete(got, p)
	}
	for p, e := range got {
		t.Errorf("unexpected entry %q: %s %s", p, e.Status, e.Reason)
	}
}

// TestMirrorHostileHTTP: an index page whose links and redirects try to
// lead the mirror out of its target, off its server or to another
// protocol's port, in a target where links to outside it stand already.
// Nothing is written outside the target, nothing is dialled but the
// server (the other host, [::1], sees no connection), and each link that
// names an entry of the tree but cannot be one is named in the report:
// skipped for a name that is no name (exit 0 for those alone), failed
// for a name no local system holds and for a refused redirect (exit 8).
// Links to elsewhere are not entries of the tree and are dropped, as
// wget drops them (docs/mirror.md).
func TestMirrorHostileHTTP(t *testing.T) {
	rec := newOtherHost(t)
	other := "http://" + rec.addr()
	const skipped, failed = mirror.StatusSkipped, mirror.StatusFailed
	long := strings.Repeat("n", 300)
	links := []hostileEntry{
		{"../secret.txt", "", "", ""},
		{"/secret.txt", "", "", ""},
		{"a/../../secret.txt", "", "", ""},
		{"..", "", "", ""},
		{".", "", "", ""},
		{other + "/pub/x", "", "", ""},
		{"//[::1]:1/pub/x", "", "", ""},
		{"file:///etc/passwd", "", "", ""},
		{"gopher://127.0.0.1:25/0x", "", "", ""},
		{"ftp://127.0.0.1:25/pub/x", "", "", ""},
		{"http://127.0.0.1:25/pub/x", "", "", ""},
		{"javascript:alert(1)", "", "", ""},
		{"%2e%2e%2fsecret.txt", `"../secret.txt"`, skipped, `"/" or "\"`},
		{"%2e%2e/x", `"../x"`, skipped, `"." or ".."`},
		{"a%2fb", `"a/b"`, skipped, `"/" or "\"`},
		{"a%5cb", `"a\\b"`, skipped, `"/" or "\"`},
		{"nul%00", `"nul\x00"`, skipped, "control character"},
		{"cr%0d%0alf", `"cr\r\nlf"`, skipped, "control character"},
		{"tab%09x", `"tab\tx"`, skipped, "control character"},
		{"esc%1b[31m", `"esc\x1b[31m"`, skipped, "control character"},
		{long, strconv.Quote(long), failed, "longer than 255 bytes"},
		{"to-file", "to-file", failed, RuleRedirectToFile},
		{"to-other", "to-other", failed, RuleRedirectOffMirror},
		{"to-smtp", "to-smtp", failed, RuleRedirectOffMirror},
		{"to-gopher", "to-gopher", failed, RuleRedirectOffMirror},
		{"to-ftp-smtp", "to-ftp-smtp", failed, RuleRedirectOffMirror},
		{"dir-to-other", "dir-to-other", failed, RuleRedirectOffMirror},
		{"loop-a", "loop-a", failed, "too many redirects"},
		// A link the user left at a file's path is not written through
		// nor replaced.
		{"over-link.txt", "over-link.txt", skipped, "symbolic link stands"},
	}
	redirects := map[string]string{
		"/pub/to-file":      "file:///etc/passwd",
		"/pub/to-other":     other + "/x",
		"/pub/to-smtp":      "http://127.0.0.1:25/x",
		"/pub/to-gopher":    "gopher://127.0.0.1:25/0x",
		"/pub/to-ftp-smtp":  "ftp://127.0.0.1:25/x",
		"/pub/loop-a":       "/pub/loop-b",
		"/pub/loop-b":       "/pub/loop-a",
		"/pub/dir-to-other": other + "/",
	}
	var page strings.Builder
	for _, l := range append(links, hostileEntry{offer: "ok.txt"}, hostileEntry{offer: "sub/"}) {
		fmt.Fprintf(&page, "<a href=\"%s\">x</a>\n", l.offer)
	}
	var mu sync.Mutex
	asked := map[string]bool{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked[r.URL.Path] = true
		mu.Unlock()
		if to, ok := redirects[r.URL.Path]; ok {
			w.Header().Set("Location", to)
			w.WriteHeader(http.StatusFound)
			return
		}
		switch r.URL.Path {
		case "/pub/":
			io.WriteString(w, page.String())
		case "/pub/sub/":
			io.WriteString(w, `<a href="in.txt">in.txt</a>`)
		case "/pub/ok.txt", "/pub/over-link.txt", "/pub/sub/in.txt":
			io.WriteString(w, "ok\n")
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	d := newHostileDirs(t)
	// Links left in the target that lead out of it: the directory sub
	// and the file over-link.txt must not be written through them.
	for name, to := range map[string]string{"sub": d.sibling, "over-link.txt": filepath.Join(d.parent, "x")} {
		if err := os.Symlink(to, filepath.Join(d.target, name)); err != nil {
			t.Fatal(err)
		}
	}
	dials := &dialLog{}
	c := &Client{ConnectTimeout: 5 * time.Second, IdleTimeout: 5 * time.Second, Dial: dials.dial}
	defer c.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	sum, err := c.Mirror(ctx, srv.URL+"/pub/", d.target, MirrorOptions{Jobs: 2})
	if !errors.Is(err, ErrMirrorPartial) {
		t.Errorf("Mirror = %v, want ErrMirrorPartial (exit 8)", err)
	}
	checkReport(t, sum, links, "ok.txt", "sub/in.txt")
	d.contained(t, "over-link.txt")
	dials.only(t, srv.Listener.Addr().String())
	if rec.contacted(t) {
		t.Error("the other host was contacted")
	}
	if st, err := os.Lstat(filepath.Join(d.target, "sub")); err != nil || !st.IsDir() {
		t.Errorf("sub is not a directory (%v)", err)
	}
	mu.Lock()
	defer mu.Unlock()
	for p := range asked {
		if !strings.HasPrefix(p, "/pub/") {
			t.Errorf("asked for %s, above the start", p)
		}
	}
}

// scriptedGopherServer serves answer(line) to each request line on 127.0.0.1,
// with HOST and PORT in the answer replaced by its own; it counts the
// requests.
func scriptedGopherServer(t *testing.T, answer func(line string) string) (addr string, asked func() []string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	host, port, _ := net.SplitHostPort(ln.Addr().String())
	var mu sync.Mutex
	var lines []string
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				c.SetDeadline(time.Now().Add(10 * time.Second))
				line, err := bufio.NewReader(c).ReadString('\n')
				if err != nil {
					return
				}
				line = strings.TrimRight(line, "\r\n")
				mu.Lock()
				lines = append(lines, line)
				mu.Unlock()
				io.WriteString(c, strings.ReplaceAll(answer(line), "HOST\tPORT", host+"\t"+port))
			}()
		}
	}()
	return ln.Addr().String(), func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(lines)
	}
}

// TestMirrorHostileGopher: a gopher menu whose items try to lead the
// mirror out of its target, to another host ([::1]) or to another
// protocol's port on this one (SMTP 25, NNTP 119, telnet), with
// selectors that hold CR, NUL, escapes or "..", a Gopher+ "moved"
// reply to another host, length headers that lie and attributes of items
// elsewhere. Each is named in the report (an item on another
// server is skipped, as the walk never leaves its server); nothing is
// dialled but the server and nothing written outside the target.
func TestMirrorHostileGopher(t *testing.T) {
	rec := newOtherHost(t)
	_, otherPort, _ := net.SplitHostPort(rec.addr())
	const skipped, failed = mirror.StatusSkipped, mirror.StatusFailed
	long := "/pub/" + strings.Repeat("n", 300)
	items := []hostileEntry{
		{"0up\t/pub/../x\tHOST\tPORT", `"/pub/../x"`, skipped, `"." or ".."`},
		{"0climb\t/pub/a/../../x\tHOST\tPORT", `"/pub/a/../../x"`, skipped, `"." or ".."`},
		{"0dot\t/pub/.\tHOST\tPORT", `"/pub/."`, skipped, `"." or ".."`},
		{"0abs\t/etc/passwd\tHOST\tPORT", `"/etc/passwd"`, skipped, "not below the starting point"},
		{"0bs\t/pub/a\\b\tHOST\tPORT", `"/pub/a\\b"`, skipped, `"/" or "\"`},
		{"0cr\t/pub/c\rr\tHOST\tPORT", `"/pub/c\rr"`, skipped, "control character"},
		{"0esc\t/pub/e\x1bc\tHOST\tPORT", `"/pub/e\x1bc"`, skipped, "control character"},
		{"0long\t" + long + "\tHOST\tPORT", strconv.Quote(long), failed, "longer than 255 bytes"},
		{"0other\t/pub/o.txt\t::1\t" + otherPort, `"other"`, skipped, "another host or port"},
		// A host no URL can hold: dropped without a word before.
		{"0other2\t/pub/o2.txt\t[::1]\t" + otherPort, `"other2"`, skipped, "another host or port"},
		{"0smtp\t/pub/smtp.txt\t127.0.0.1\t25", `"smtp"`, skipped, "another host or port"},
		{"1nntp\t/pub/nntp\t127.0.0.1\t119", `"nntp"`, skipped, "another host or port"},
		{"0self-smtp\t/pub/s.txt\tHOST\t25", `"self-smtp"`, skipped, "another host or port"},
		{"8telnet\tuser\t127.0.0.1\t23", `"telnet"`, skipped, "not a gopher document"},
		{"Ttn3270\tuser\t127.0.0.1\t23", `"tn3270"`, skipped, "not a gopher document"},
		{"hhtml\tURL:http://[::1]:" + otherPort + "/\tHOST\tPORT", `"html"`, skipped, "not a gopher document"},
		{"hfile\tURL:file:///etc/passwd\tHOST\tPORT", `"file"`, skipped, "not a gopher document"},
		{"0moved\t/pub/moved.txt\tHOST\tPORT\t+", "moved.txt", failed, RuleRedirectOffMirror},
		// A selector that reads as an escape is the name it spells.
		{"0enc\t/pub/%2e%2e%2fx\tHOST\tPORT", "%2e%2e%2fx", mirror.StatusNew, ""},
		// Gopher+ length headers that lie: the bytes announced are
		// taken and no more; fewer than announced fail the entry.
		{"0ps\t/pub/ps\tHOST\tPORT\t+", "ps", mirror.StatusNew, ""},
		{"0pl\t/pub/pl\tHOST\tPORT\t+", "pl", failed, "before the announced length"},
		// The same document twice is one entry.
		{"0twice\t/pub/ok.txt\tHOST\tPORT", "", "", ""},
	}
	var menu strings.Builder
	// A NUL makes a line no menu line: a warning of the report (exit 8).
	const nul = "0nul\t/pub/n\x00l\tHOST\tPORT"
	for _, it := range append([]hostileEntry{{offer: "0ok\t/pub/ok.txt\tHOST\tPORT"}, {offer: "1sub\t/pub/sub\tHOST\tPORT"}, {offer: nul}}, items...) {
		menu.WriteString(it.offer + "\r\n")
	}
	menu.WriteString(".\r\n")
	addr, asked := scriptedGopherServer(t, hostileHole(menu.String(), otherPort))
	d := newHostileDirs(t)
	dials := &dialLog{}
	c := &Client{ConnectTimeout: 5 * time.Second, IdleTimeout: 5 * time.Second, Dial: dials.dial}
	defer c.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	sum, err := c.Mirror(ctx, "gopher://"+addr+"/1/pub", d.target, MirrorOptions{Jobs: 2})
	if !errors.Is(err, ErrMirrorPartial) {
		t.Errorf("Mirror = %v, want ErrMirrorPartial (exit 8)", err)
	}
	checkReport(t, sum, items, "ok.txt", "sub/s.txt")
	if b, err := os.ReadFile(filepath.Join(d.target, "ps")); err != nil || string(b) != "hello" {
		t.Errorf("ps = %q, %v; want the 5 bytes announced", b, err)
	}
	if len(sum.Warnings) != 1 || sum.Warnings[0].Kind != mirror.WarnUnparsed || !strings.HasPrefix(sum.Warnings[0].Line, "0nul\t") {
		t.Errorf("warnings %+v, want the line with NUL as unparsed", sum.Warnings)
	}
	d.contained(t)
	dials.only(t, addr)
	if rec.contacted(t) {
		t.Error("the other host was contacted")
	}
	if !slices.Contains(asked(), "/pub\t\t$") {
		t.Error("the menu's Gopher+ attributes were not asked for")
	}
	for _, l := range asked() {
		sel, _, _ := strings.Cut(l, "\t")
		if sel != "/pub" && !strings.HasPrefix(sel, "/pub/") || strings.ContainsAny(sel, "\r\x00\x1b") || strings.Contains(sel, "..") {
			t.Errorf("asked for %q", l)
		}
	}
}

// TestMirrorHostileNews: a news server whose group list holds names that
// would not stay one path inside the target ("a..b", ".fetch.x", ".x",
// "x.", a control character): each is skipped and named before any
// command about it is sent, and does not fail the run (exit 0); the
// articles of the other group are mirrored, and nothing is written
// outside the target.
func TestMirrorHostileNews(t *testing.T) {
	const skipped = mirror.StatusSkipped
	groups := []hostileEntry{
		{"a..b", `"a..b"`, skipped, "empty name"},
		{".fetch.x", `".fetch.x"`, skipped, "leaves the target"},
		{".x", `".x"`, skipped, "leaves the target"},
		{"x.", `"x."`, skipped, "empty name"},
		{"e\x1bc", `"e\x1bc"`, skipped, "control character"},
	}
	srv := &fetchtest.NNTP{Over: "OVER"}
	for i, g := range append(groups, hostileEntry{offer: "ok"}) {
		// The server lists its groups as they are; a conforming one
		// doubles the dot that starts a line (RFC 3977 section 3.1.1).
		name := g.offer
		if strings.HasPrefix(name, ".") {
			name = "." + name
		}
		srv.Post(fmt.Sprintf("From: p@x\nNewsgroups: %s\nMessage-ID: <m%d@x>\n\nbody\n", name, i), []string{name}, []int64{1})
	}
	srv.Start(t)
	d := newHostileDirs(t)
	dials := &dialLog{}
	c := &Client{ConnectTimeout: 5 * time.Second, IdleTimeout: 5 * time.Second, Dial: dials.dial}
	defer c.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	sum, err := c.Mirror(ctx, "nntp://"+srv.Addr+"/*", d.target, MirrorOptions{Jobs: 2})
	if err != nil {
		t.Errorf("Mirror = %v, want no error (skipped groups alone: exit 0)", err)
	}
	checkReport(t, sum, groups, "ok/1")
	d.contained(t)
	dials.only(t, srv.Addr)
	for _, l := range srv.Log() {
		if verb, arg, _ := strings.Cut(l, " "); verb == "GROUP" && arg != "ok" {
			t.Errorf("sent %q", l)
		}
	}
}

// hostileHole answers the requests of TestMirrorHostileGopher: the menu
// /pub, its documents and lies.
func hostileHole(menu, otherPort string) func(line string) string {
	return func(line string) string {
		switch line {
		case "/pub":
			return menu
		case "/pub/sub":
			return "0s\t/pub/sub/s.txt\tHOST\tPORT\r\n.\r\n"
		case "/pub/ok.txt", "/pub/sub/s.txt", "/pub/%2e%2e%2fx":
			return "ok\r\n.\r\n"
		case "/pub\t\t$":
			// Attributes of items the menu does not list, elsewhere:
			// nothing is asked of them.
			return "+-1\r\n+INFO: 0up\t/pub/../x\t::1\t70\t+\r\n+ADMIN:\r\n Mod-Date: <20010203040506>\r\n" +
				"+INFO: 1sub\t/pub/sub\t[::1]\t1\t+\r\n.\r\n"
		case "/pub/ps\t\t+":
			return "+5\r\nhello and more than announced"
		case "/pub/pl\t\t+":
			return "+100\r\nhi"
		case "/pub/moved.txt\t\t+":
			return "--1\r\n3 <admin@x> 0moved\t/x\t::1\t" + otherPort + "\r\n.\r\n"
		}
		return "3no\t\terror.host\t1\r\n.\r\n"
	}
}
