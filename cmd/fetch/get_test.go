package main

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/proto"
)

// countingListener counts accepted connections.
type countingListener struct {
	net.Listener
	n atomic.Int64
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.n.Add(1)
	}
	return c, err
}

// testServer is an httptest server on 127.0.0.1 that counts connections.
type testServer struct {
	*httptest.Server
	ln   *countingListener
	port string
}

var bigBody = bytes.Repeat([]byte("0123456789abcdef"), 64<<10) // 1 MiB

func startServer(t *testing.T) *testServer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cl := &countingListener{Listener: ln}
	srv := httptest.NewUnstartedServer(handler())
	srv.Listener = cl
	srv.Start()
	t.Cleanup(srv.Close)
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return &testServer{Server: srv, ln: cl, port: port}
}

func handler() http.Handler {
	mux := http.NewServeMux()
	mt := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	mux.HandleFunc("/hello.txt", func(w http.ResponseWriter, r *http.Request) {
		http.ServeContent(w, r, "hello.txt", mt, strings.NewReader("hello\n"))
	})
	mux.HandleFunc("/big.bin", func(w http.ResponseWriter, r *http.Request) {
		http.ServeContent(w, r, "big.bin", mt, bytes.NewReader(bigBody))
	})
	// cut.bin announces the whole body and sends half of it.
	mux.HandleFunc("/cut.bin", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(bigBody)))
		w.Write(bigBody[:len(bigBody)/2])
		panic(http.ErrAbortHandler)
	})
	mux.HandleFunc("/dir/", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `<html><a href="a.txt">a.txt</a></html>`)
	})
	mux.HandleFunc("/500", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(500) })
	redirect := func(loc string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, loc, http.StatusFound) }
	}
	mux.Handle("/redir-file", redirect("file:///etc/passwd"))
	mux.Handle("/redir-badport", redirect("http://127.0.0.1:25/"))
	mux.Handle("/redir-hello", redirect("/hello.txt"))
	return mux
}

func (s *testServer) url(path string) string { return "http://127.0.0.1:" + s.port + path }

func sum(b []byte) string { return fmt.Sprintf("%x", sha256.Sum256(b)) }

func TestGetStdout(t *testing.T) {
	s := startServer(t)
	r := runArgs(t, nil, "", "get", s.url("/hello.txt"))
	if r.code != 0 || r.out != "hello\n" || r.err != "" {
		t.Errorf("get = %d %q, stderr %q", r.code, r.out, r.err)
	}
	// "fetch URL" is "fetch get URL"; several URLs are concatenated.
	r = runArgs(t, nil, "", s.url("/hello.txt"), s.url("/redir-hello"))
	if r.code != 0 || r.out != "hello\nhello\n" {
		t.Errorf("fetch URL URL = %d %q, stderr %q", r.code, r.out, r.err)
	}
	// An HTML index page is data.
	r = runArgs(t, nil, "", s.url("/dir/"))
	if r.code != 0 || !strings.Contains(r.out, `href="a.txt"`) {
		t.Errorf("get /dir/ = %d %q", r.code, r.out)
	}
}

func TestGetFiles(t *testing.T) {
	s := startServer(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "out.bin")
	r := runArgs(t, nil, "", "get", "-s", "-R", "-o", out, s.url("/big.bin"))
	b, _ := os.ReadFile(out)
	if r.code != 0 || sum(b) != sum(bigBody) {
		t.Fatalf("get -o = %d (%s), %d bytes", r.code, r.err, len(b))
	}
	if fi, _ := os.Stat(out); !fi.ModTime().Equal(time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)) {
		t.Errorf("-R: mtime %v", fi.ModTime())
	}
	r = runArgs(t, nil, "", "get", "-O", "--output-dir", dir, s.url("/hello.txt"), s.url("/big.bin"))
	if b, _ := os.ReadFile(filepath.Join(dir, "hello.txt")); r.code != 0 || string(b) != "hello\n" {
		t.Errorf("get -O = %d (%s): %q", r.code, r.err, b)
	}
	assertOnly(t, dir, "big.bin", "hello.txt", "out.bin")
	// -O of a URL without a file name is refused, as a usage error.
	if r := runArgs(t, nil, "", "get", "-O", "--output-dir", dir, s.url("/dir/")); r.code != fetch.ExitUsage {
		t.Errorf("get -O /dir/ = %d, want 2 (%s)", r.code, r.err)
	}
}

// assertOnly checks that dir holds exactly names (no temporary files left).
func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	des, _ := os.ReadDir(dir)
	var got []string
	for _, de := range des {
		got = append(got, de.Name())
	}
	if strings.Join(got, " ") != strings.Join(names, " ") {
		t.Errorf("%s holds %v, want %v", dir, got, names)
	}
}

// Issue 3: a failed transfer never leaves a partial file under the final
// name; -C - keeps the partial data aside and resumes from it.
func TestGetCutAndResume(t *testing.T) {
	s := startServer(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "big.bin")
	r := runArgs(t, nil, "", "get", "-o", out, s.url("/cut.bin"))
	if r.code != fetch.ExitNetwork {
		t.Errorf("get of a cut transfer = %d, want 5 (%s)", r.code, r.err)
	}
	assertOnly(t, dir)

	r = runArgs(t, nil, "", "get", "-C", "-", "-o", out, s.url("/cut.bin"))
	part, _ := os.ReadFile(out + ".part")
	if r.code != fetch.ExitNetwork || len(part) != len(bigBody)/2 {
		t.Fatalf("get -C - of a cut transfer = %d, part %d bytes (%s)", r.code, len(part), r.err)
	}
	assertOnly(t, dir, "big.bin.part")

	r = runArgs(t, nil, "", "get", "-C", "-", "-o", out, s.url("/big.bin"))
	b, _ := os.ReadFile(out)
	if r.code != 0 || sum(b) != sum(bigBody) {
		t.Errorf("resume = %d (%s), %d bytes, sha256 %s", r.code, r.err, len(b), sum(b))
	}
	assertOnly(t, dir, "big.bin")

	// Resuming a complete part file (416 from the server) completes it.
	os.Rename(out, out+".part")
	r = runArgs(t, nil, "", "get", "--continue", "-o", out, s.url("/big.bin"))
	if b, _ := os.ReadFile(out); r.code != 0 || sum(b) != sum(bigBody) {
		t.Errorf("resume of a complete part = %d (%s)", r.code, r.err)
	}
}

func TestGetResumeStdout(t *testing.T) {
	s := startServer(t)
	r := runArgs(t, nil, "", "get", "-C", "3", s.url("/hello.txt"))
	if r.code != 0 || r.out != "lo\n" {
		t.Errorf("get -C 3 = %d %q", r.code, r.out)
	}
	if r := runArgs(t, nil, "", "get", "-C", "-", s.url("/hello.txt")); r.code != fetch.ExitUsage {
		t.Errorf("get -C - to stdout = %d, want 2", r.code)
	}
}

// Issue 3 acceptance: refused with exit 4 and the rule id, and nothing
// reaches the network: no look-up, no connection.
func TestGetRefusedBeforeNetwork(t *testing.T) {
	ln := &countingListener{Listener: listen(t)}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	for _, tt := range []struct{ url, rule string }{
		{"gopher://127.0.0.1:25/1", "port-other-protocol"},
		{"ftp://127.0.0.1:6379/x", "port-other-protocol"},
		{"ftp://h/a%0D%0ADELE%20x", "encoded-crlf"},
		{"nntp://127.0.0.1:11211/g/1", "port-other-protocol"},
		{"gopher://127.0.0.1:70/1a%0d%0aQUIT", "encoded-crlf"},
		// The same injections aimed at the counting listener.
		{"ftp://h:" + port + "/a%0D%0ADELE%20x", "encoded-crlf"},
		{"gopher://127.0.0.1:" + port + "/1a%0d%0aQUIT", "encoded-crlf"},
		{"http://127.0.0.1:25/", "port-other-protocol"},
	} {
		n := &netlog{hosts: map[string]string{"h": "127.0.0.1"}}
		r := runArgs(t, n, "", "get", tt.url)
		if r.code != fetch.ExitRefused || !strings.Contains(r.err, "fetch: refused: ") || !strings.Contains(r.err, ": "+tt.rule+": ") {
			t.Errorf("get %q = %d, stderr %q; want 4 and %s", tt.url, r.code, r.err, tt.rule)
		}
		if n.lookups.Load() != 0 || n.dials.Load() != 0 {
			t.Errorf("get %q: %d look-ups, %d dials; want none", tt.url, n.lookups.Load(), n.dials.Load())
		}
	}
	if ln.n.Load() != 0 {
		t.Errorf("the listener accepted %d connections", ln.n.Load())
	}
	// The counters do count: with the port allowed, the dial happens.
	n := &netlog{refuse: true}
	r := runArgs(t, n, "", "get", "-s", "--allow-port", "25", "http://127.0.0.1:25/")
	if r.code != fetch.ExitNetwork || n.dials.Load() != 1 || !strings.Contains(r.err, "warning: the port rules are lifted for port 25") {
		t.Errorf("get --allow-port 25 = %d, %d dials, stderr %q", r.code, n.dials.Load(), r.err)
	}
}

func listen(t *testing.T) net.Listener {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln
}

// Issue 3 acceptance: with --deny-private a host name resolving to
// 127.0.0.1 is refused at dial time.
func TestGetDenyPrivate(t *testing.T) {
	s := startServer(t)
	raw := "http://made-up.invalid:" + s.port + "/hello.txt"
	n := &netlog{hosts: map[string]string{"made-up.invalid": "127.0.0.1"}}
	r := runArgs(t, n, "", "get", "--deny-private", raw)
	if r.code != fetch.ExitRefused || !strings.Contains(r.err, "deny-private") {
		t.Errorf("get --deny-private = %d, stderr %q", r.code, r.err)
	}
	if n.lookups.Load() != 1 || n.dials.Load() != 0 || s.ln.n.Load() != 0 {
		t.Errorf("look-ups %d dials %d accepts %d, want 1 0 0", n.lookups.Load(), n.dials.Load(), s.ln.n.Load())
	}
	r = runArgs(t, n, "", "get", raw)
	if r.code != 0 || r.out != "hello\n" || s.ln.n.Load() != 1 {
		t.Errorf("get without --deny-private = %d %q (%s)", r.code, r.out, r.err)
	}
}

// Issue 3 acceptance: redirects to file: or to a bad port are refused.
func TestGetRedirectRefused(t *testing.T) {
	s := startServer(t)
	for path, rule := range map[string]string{"/redir-file": "redirect-to-file", "/redir-badport": "port-other-protocol"} {
		n := &netlog{}
		r := runArgs(t, n, "", "get", s.url(path))
		if r.code != fetch.ExitRefused || !strings.Contains(r.err, rule) || r.out != "" {
			t.Errorf("get %s = %d %q, stderr %q", path, r.code, r.out, r.err)
		}
		if n.dials.Load() != 1 {
			t.Errorf("get %s: %d dials, want only the first", path, n.dials.Load())
		}
	}
}

// Every exit code of DESIGN.md's table.
func TestExitCodes(t *testing.T) {
	s := startServer(t)
	closed := listen(t)
	closedAddr := closed.Addr().String()
	closed.Close()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "f"), []byte("x"), 0o644)
	for _, tt := range []struct {
		name string
		args []string
		want int
	}{
		{"ok", []string{"get", s.url("/hello.txt")}, fetch.ExitOK},
		{"server error 500", []string{"get", s.url("/500")}, fetch.ExitError},
		{"unknown flag", []string{"get", "--bogus", s.url("/")}, fetch.ExitUsage},
		{"no URL", []string{"get"}, fetch.ExitUsage},
		{"no command", nil, fetch.ExitUsage},
		{"malformed", []string{"get", "http://a b/"}, fetch.ExitMalformed},
		{"no scheme", []string{"get", "just-a-word"}, fetch.ExitMalformed},
		{"refused", []string{"get", "gopher://127.0.0.1:25/1"}, fetch.ExitRefused},
		{"connection refused", []string{"get", "http://" + closedAddr + "/"}, fetch.ExitNetwork},
		{"unknown host", []string{"get", "http://nowhere.invalid/"}, fetch.ExitNetwork},
		{"not found", []string{"get", s.url("/nope")}, fetch.ExitServer},
		{"file not found", []string{"get", "file://" + dir + "/nope"}, fetch.ExitServer},
		{"file on another host", []string{"get", "file://elsewhere.invalid/etc/motd"}, fetch.ExitNoAccess},
		{"unsupported scheme", []string{"get", "finger://127.0.0.1/u"}, fetch.ExitNoAccess},
		{"partial", []string{"get", "file://" + dir + "/f", s.url("/nope")}, fetch.ExitPartial},
		{"all failed alike", []string{"get", s.url("/nope"), s.url("/nope2")}, fetch.ExitServer},
	} {
		r := runArgs(t, &netlog{}, "", tt.args...)
		if r.code != tt.want {
			t.Errorf("%s: fetch %q = %d, want %d (stderr %q)", tt.name, tt.args, r.code, tt.want, r.err)
		}
	}
}

// Passwords appear in no output, trace or error.
func TestGetNoPassword(t *testing.T) {
	s := startServer(t)
	withPw := "http://user:hunter2pw@127.0.0.1:" + s.port
	n := &netlog{hosts: map[string]string{}}
	for _, args := range [][]string{
		{"get", "-v", withPw + "/hello.txt"},
		{"get", "-v", withPw + "/nope"},
		{"get", "-v", withPw + "/redir-file"},
		{"get", "-v", "ftp://user:hunter2pw@127.0.0.1:6379/x"},
		{"get", "-v", "ftp://user:hunter2pw@nowhere.invalid/x"},
		{"get", "ftp://user:hunter2pw@h/%zz"},
		{"get", "--deny-private", withPw + "/hello.txt"},
	} {
		r := runArgs(t, n, "", args...)
		if strings.Contains(r.out+r.err, "hunter2pw") {
			t.Errorf("fetch %q printed the password:\n%s%s", args, r.out, r.err)
		}
	}
}

func TestGetVerbose(t *testing.T) {
	s := startServer(t)
	r := runArgs(t, nil, "", "get", "-v", s.url("/hello.txt"))
	for _, want := range []string{"* connect 127.0.0.1:" + s.port, "> GET /hello.txt HTTP/1.1", "< HTTP/1.1 200 OK"} {
		if !strings.Contains(r.err, want) {
			t.Errorf("-v trace lacks %q:\n%s", want, r.err)
		}
	}
	if r.out != "hello\n" {
		t.Errorf("-v output = %q", r.out)
	}
}

// The progress bar is drawn only on a terminal and never with -s.
func TestGetProgress(t *testing.T) {
	s := startServer(t)
	for _, tt := range []struct {
		tty    bool
		args   []string
		drawn  bool
		reason string
	}{
		{true, nil, true, "terminal"},
		{true, []string{"-s"}, false, "-s"},
		{false, nil, false, "not a terminal"},
	} {
		e, out, errb := newEnv("", &netlog{})
		e.stderrTTY = tt.tty
		args := append(append([]string{"get"}, tt.args...), "-o", filepath.Join(t.TempDir(), "big"), s.url("/big.bin"))
		code := runIn(t, e, args...)
		drawn := strings.Contains(errb.String(), "MiB")
		if code != 0 || drawn != tt.drawn || out.Len() != 0 {
			t.Errorf("%s: exit %d, progress drawn %v, stderr %q", tt.reason, code, drawn, errb.String())
		}
	}
}

func TestGetFileListing(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a b.txt"), []byte("12345"), 0o644)
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	os.Symlink("a b.txt", filepath.Join(dir, "ln"))
	mt := time.Date(2020, 5, 6, 7, 8, 0, 0, time.Local)
	os.Chtimes(filepath.Join(dir, "a b.txt"), mt, mt)
	r := runArgs(t, nil, "", "get", "file://"+dir+"/")
	lines := strings.Split(strings.TrimSuffix(r.out, "\n"), "\n")
	if r.code != 0 || len(lines) != 3 {
		t.Fatalf("listing = %d %q", r.code, r.out)
	}
	if want := "-rw-r--r-- 5 2020-05-06 07:08 a b.txt"; lines[0] != want {
		t.Errorf("listing line = %q, want %q", lines[0], want)
	}
	if !strings.HasPrefix(lines[1], "lrwxrwxrwx ") || !strings.HasSuffix(lines[1], " ln -> a b.txt") || !strings.HasPrefix(lines[2], "drwxr-xr-x - ") {
		t.Errorf("listing = %q", r.out)
	}
	r = runArgs(t, nil, "", "get", "--json", "file://"+dir+"/")
	var doc struct {
		URL     string
		Kind    string
		Entries []struct{ Name, Type, URL string }
	}
	if err := jsonUnmarshal(r.out, &doc); err != nil || doc.Kind != "directory" || len(doc.Entries) != 3 || doc.Entries[0].URL != "file://"+dir+"/a%20b.txt" {
		t.Errorf("listing --json = %q (%v)", r.out, err)
	}
}

// Issue 3: file:// returns the exact bytes, a name with a space, an empty
// file; -C - resumes.
func TestGetFileExact(t *testing.T) {
	src := t.TempDir()
	os.WriteFile(filepath.Join(src, "with space.txt"), []byte("spaced\n"), 0o644)
	os.WriteFile(filepath.Join(src, "empty.txt"), nil, 0o644)
	os.WriteFile(filepath.Join(src, "big.bin"), bigBody, 0o644)
	dst := t.TempDir()
	r := runArgs(t, nil, "", "get", "-O", "--output-dir", dst,
		"file://"+src+"/with%20space.txt", "file://"+src+"/empty.txt", "file://"+src+"/big.bin")
	if r.code != 0 {
		t.Fatalf("get -O = %d (%s)", r.code, r.err)
	}
	for name, want := range map[string][]byte{"with space.txt": []byte("spaced\n"), "empty.txt": nil, "big.bin": bigBody} {
		if b, err := os.ReadFile(filepath.Join(dst, name)); err != nil || sum(b) != sum(want) {
			t.Errorf("%s: %d bytes, %v", name, len(b), err)
		}
	}
	os.Remove(filepath.Join(dst, "big.bin"))
	os.WriteFile(filepath.Join(dst, "big.bin.part"), bigBody[:1000], 0o644)
	r = runArgs(t, nil, "", "get", "-C", "-", "-O", "--output-dir", dst, "file://"+src+"/big.bin")
	if b, _ := os.ReadFile(filepath.Join(dst, "big.bin")); r.code != 0 || sum(b) != sum(bigBody) {
		t.Errorf("file resume = %d (%s), %d bytes", r.code, r.err, len(b))
	}
	assertOnly(t, dst, "big.bin", "empty.txt", "with space.txt")
}

func TestGetOptions(t *testing.T) {
	o := &getOptions{email: "", nntpServer: "", netrc: true, ftpMethod: "nocwd", bodyOnly: true,
		gateways: []string{"WAIS=http://gw/?%s"}, fileViaFTP: true}
	e := &env{getenv: func(k string) string {
		return map[string]string{"FETCH_EMAIL": "me@example.org", "NNTPSERVER": "news.invalid:1119", "HOME": "/home/u"}[k]
	}}
	got := o.requestOptions(e)
	want := proto.Options{Email: "me@example.org", Netrc: "/home/u/.netrc", BodyOnly: true,
		Gateways: map[string]string{"wais": "http://gw/?%s"},
		FTP:      proto.FTPOptions{Method: proto.MethodNoCWD},
		NNTP:     proto.NNTPOptions{Server: "news.invalid:1119"},
		File:     proto.FileOptions{ViaFTP: true}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("requestOptions = %+v, want %+v", got, want)
	}
	o = &getOptions{email: "x@y", nntpServer: "n:1", netrcFile: "/etc/netrc"}
	if got := o.requestOptions(e); got.Email != "x@y" || got.NNTP.Server != "n:1" || got.Netrc != "/etc/netrc" {
		t.Errorf("flags do not override the environment: %+v", got)
	}
	for _, args := range [][]string{
		{"get", "-o", "a", "-O", "http://h/"},
		{"get", "-o", "a", "http://h/", "http://h/b"},
		{"get", "--output-dir", "d", "http://h/"},
		{"get", "--headers-only", "--body-only", "http://h/"},
		{"get", "--ftp-method", "cwd", "ftp://h/"},
		{"get", "-C", "x", "-o", "f", "http://h/"},
		{"get", "--form", "novalue", "http://h/"},
		{"get", "--gateway", "=t", "http://h/"},
		{"get", "--connect-timeout", "soon", "http://h/"},
		{"get", "--allow-port", "70000", "http://h/"},
	} {
		if r := runArgs(t, nil, "", args...); r.code != fetch.ExitUsage {
			t.Errorf("fetch %q = %d, want 2 (%s)", args, r.code, r.err)
		}
	}
}

func TestSeconds(t *testing.T) {
	for in, want := range map[string]time.Duration{"2": 2 * time.Second, "0.5": 500 * time.Millisecond, "1m30s": 90 * time.Second} {
		var s seconds
		if err := s.Set(in); err != nil || time.Duration(s) != want {
			t.Errorf("seconds.Set(%q) = %v, %v", in, time.Duration(s), err)
		}
	}
}

func TestGetMaxTime(t *testing.T) {
	stall := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("x"))
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	}))
	defer stall.Close()
	start := time.Now()
	r := runArgs(t, nil, "", "get", "--max-time", "0.3", stall.URL+"/")
	if r.code != fetch.ExitNetwork || time.Since(start) > 5*time.Second {
		t.Errorf("get --max-time 0.3 = %d after %v (%s)", r.code, time.Since(start), r.err)
	}
}

func TestAbbreviated(t *testing.T) {
	n := &netlog{}
	r := runArgs(t, n, "", "get", "www.example.invalid/x")
	if !strings.Contains(r.err, "note: taking www.example.invalid/x as http://www.example.invalid/x") || r.code != fetch.ExitNetwork || n.lookups.Load() != 1 {
		t.Errorf("get www.example.invalid/x = %d, stderr %q", r.code, r.err)
	}
}

// Several HTTP URLs on one server, and the hop of a redirect, share one
// connection, as with curl: the command keeps it open between them and
// closes it at the end.
func TestGetKeepAlive(t *testing.T) {
	s := startServer(t)
	r := runArgs(t, nil, "", "get", s.url("/hello.txt"), s.url("/big.bin"), s.url("/redir-hello"))
	if r.code != 0 || r.out != "hello\n"+string(bigBody)+"hello\n" {
		t.Fatalf("get = %d, %d bytes, stderr %q", r.code, len(r.out), r.err)
	}
	if n := s.ln.n.Load(); n != 1 {
		t.Errorf("three URLs (one redirected) took %d connections, want 1", n)
	}
}

// fetch -C - resumed a .part of a file that changed on the server since
// (a newer version at the same URL): the output was the old version's
// first bytes and the new one's last, exit 0. The resumed request asks
// for the rest only if the file is still the version the .part holds
// (If-Range, RFC 9110 section 13.1.5, with its Last-Modified, kept as the
// .part's time); a server whose file changed sends it whole.
func TestGetResumeChangedFile(t *testing.T) {
	old, cur := bytes.Repeat([]byte("A"), 100000), bytes.Repeat([]byte("B"), 100000)
	t1, t2 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), time.Date(2026, 6, 7, 8, 9, 10, 0, time.UTC)
	var changed atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if changed.Load() {
			http.ServeContent(w, r, "f", t2, bytes.NewReader(cur))
			return
		}
		w.Header().Set("Last-Modified", t1.Format(http.TimeFormat))
		w.Header().Set("Content-Length", strconv.Itoa(len(old)))
		w.Write(old[:len(old)/2])
		panic(http.ErrAbortHandler) // cut
	}))
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "f")
	if r := runArgs(t, nil, "", "get", "-C", "-", "-o", out, srv.URL+"/f"); r.code != fetch.ExitNetwork {
		t.Fatalf("cut transfer = %d (%s)", r.code, r.err)
	}
	changed.Store(true)
	r := runArgs(t, nil, "", "get", "-C", "-", "-o", out, srv.URL+"/f")
	if b, _ := os.ReadFile(out); r.code != 0 || !bytes.Equal(b, cur) {
		t.Errorf("resume after the file changed = %d (%s): %d bytes, %d of the old version", r.code, r.err, len(b), bytes.Count(b, []byte("A")))
	}
}
