package ftp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/internal/testrig/servertest"
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// vsftpdClient is a request dialling from an address of its own, so that
// the vsftpd log shows this test's commands apart from everyone else's.
func vsftpdClient(t *testing.T) (servertest.Server, *proto.Request, string, int64) {
	t.Helper()
	s := servertest.Get(t, servertest.FTP)
	since := servertest.FTPLogOffset(t)
	ip := servertest.UniqueLoopback(t)
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: ip}, Timeout: 5 * time.Second}
	req := &proto.Request{Dial: d.DialContext, ConnectTimeout: 5 * time.Second, IdleTimeout: 10 * time.Second}
	return s, req, ip.String(), since
}

// inOrder reports whether want appears in got as a subsequence.
func inOrder(got, want []string) bool {
	i := 0
	for _, g := range got {
		if i < len(want) && g == want[i] {
			i++
		}
	}
	return i == len(want)
}

// The acceptance paths of RFC 1738 section 3.2.2 against vsftpd: the
// commands in its protocol log, in order.
func TestVsftpdPaths(t *testing.T) {
	tests := []struct {
		name string
		path string
		want []string
	}{
		// %2F: one CWD with the absolute path.
		{"encoded slash", "/%2Fetc/motd", []string{"CWD /etc", "TYPE I", "RETR motd"}},
		// Relative to the login directory.
		{"relative", "/etc/motd", []string{"CWD etc", "TYPE I", "RETR motd"}},
		// An empty segment: CWD with a null argument (vsftpd logs it as "CWD").
		{"null cwd", "//etc/motd", []string{"CWD", "CWD etc", "TYPE I", "RETR motd"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, req, ip, since := vsftpdClient(t)
			var trace bytes.Buffer
			req.Trace = &trace
			d := &Driver{}
			resp, body, err := get(t, d, "ftp://"+s.Addr+tt.path, req)
			d.CloseIdleConnections()
			if err != nil {
				t.Fatalf("Fetch(%q) = %v\n%s", tt.path, err, trace.String())
			}
			want, err := os.ReadFile(filepath.Join(s.Root, "ftp/etc/motd"))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(body, want) {
				t.Errorf("body = %q, want %q", body, want)
			}
			cmds := servertest.FTPCommandsFrom(t, since, ip)
			if !inOrder(cmds, tt.want) {
				t.Errorf("vsftpd saw %q, want %q in order", cmds, tt.want)
			}
			if tt.name == "null cwd" {
				// vsftpd refuses the null CWD; the refusal is reported.
				w, _ := resp.Info["warnings"].([]string)
				t.Logf("null CWD: warnings %q", w)
				if len(w) != 1 || !strings.Contains(w[0], "CWD (null argument) refused: 550") {
					t.Errorf("warnings = %q, want vsftpd's refusal of the null CWD", w)
				}
			}
		})
	}
}

// ;type=a is TYPE A, and the CRLF lines vsftpd sends arrive with local
// line ends: the file's own bytes.
func TestVsftpdTypeA(t *testing.T) {
	s, req, ip, since := vsftpdClient(t)
	d := &Driver{}
	defer d.CloseIdleConnections()
	_, body, err := get(t, d, "ftp://"+s.Addr+"/pub/lines.txt;type=a", req)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join(s.Root, "ftp/pub/lines.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(body, want) {
		t.Errorf("body: %d bytes (CR %d), want the file's %d bytes", len(body), bytes.Count(body, []byte("\r")), len(want))
	}
	if cmds := servertest.FTPCommandsFrom(t, since, ip); !inOrder(cmds, []string{"CWD pub", "TYPE A", "RETR lines.txt"}) {
		t.Errorf("vsftpd saw %q", cmds)
	}
}

// ;type=d is NLST; a path ending in "/" is LIST (vsftpd has no MLSD).
func TestVsftpdListings(t *testing.T) {
	s, req, ip, since := vsftpdClient(t)
	d := &Driver{}
	defer d.CloseIdleConnections()
	resp, body, err := get(t, d, "ftp://"+s.Addr+"/pub/;type=d", req)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(body, []byte("hello.txt\n")) || bytes.Contains(body, []byte("\r")) {
		t.Errorf("NLST body = %q, want names one per line with LF", body)
	}
	if resp.Info["ftp_listing"] != formatNLST {
		t.Errorf("listing format %v", resp.Info["ftp_listing"])
	}
	resp, _, err = get(t, d, "ftp://"+s.Addr+"/pub/", req)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]proto.Entry{}
	for _, e := range resp.Entries {
		got[e.Name] = e
	}
	if e := got["hello.txt"]; e.Type != proto.EntryFile || e.Size != 14 || !e.ModTime.Equal(servertest.LaterTime.Truncate(24*time.Hour)) {
		t.Errorf("hello.txt = %+v", e)
	}
	if e := got["link-to-hello.txt"]; e.Type != proto.EntryLink || e.Target != "hello.txt" {
		t.Errorf("link-to-hello.txt = %+v", e)
	}
	if e := got["many"]; e.Type != proto.EntryDir {
		t.Errorf("many = %+v", e)
	}
	if e := got["with space.txt"]; e.Type != proto.EntryFile || e.URL != "ftp://"+s.Addr+"/pub/with%20space.txt" {
		t.Errorf("with space.txt = %+v", e)
	}
	cmds := servertest.FTPCommandsFrom(t, since, ip)
	// The second URL names the same directory: no CWD (RFC 1738 3.2.5).
	if !inOrder(cmds, []string{"CWD pub", "NLST", "LIST"}) || countPrefix(cmds, "CWD") != 1 {
		t.Errorf("vsftpd saw %q", cmds)
	}
	if n := countPrefix(cmds, "USER "); n != 1 {
		t.Errorf("%d logins, want 1", n)
	}
}

func countPrefix(cmds []string, p string) int {
	n := 0
	for _, c := range cmds {
		if strings.HasPrefix(c, p) {
			n++
		}
	}
	return n
}

// A user and password from the URL: USER user, and the password appears
// nowhere in the trace or the log.
func TestVsftpdPasswordLogin(t *testing.T) {
	s, req, ip, since := vsftpdClient(t)
	if s.User == "" || s.Pass == "" {
		t.Fatal("FETCH_TEST_FTP_USER/PASS not set")
	}
	var trace bytes.Buffer
	req.Trace = &trace
	d := &Driver{}
	defer d.CloseIdleConnections()
	_, body, err := get(t, d, "ftp://"+s.User+":"+s.Pass+"@"+s.Addr+"/hello.txt", req)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join(s.Home, "hello.txt"))
	if err == nil && !bytes.Equal(body, want) {
		t.Errorf("body = %q, want %q", body, want)
	}
	if strings.Contains(trace.String(), s.Pass) || !strings.Contains(trace.String(), "> PASS ****\n") {
		t.Errorf("trace shows the password or no redacted PASS:\n%s", strings.ReplaceAll(trace.String(), s.Pass, "<LEAKED>"))
	}
	cmds := servertest.FTPCommandsFrom(t, since, ip)
	if !inOrder(cmds, []string{"USER " + s.User, "PASS <password>", "RETR hello.txt"}) {
		t.Errorf("vsftpd saw %q", cmds)
	}
	// A wrong password: ErrLogin with the server's 530.
	_, _, err = get(t, &Driver{}, "ftp://"+s.User+":wrong-"+s.Pass+"@"+s.Addr+"/hello.txt", req)
	if !errors.Is(err, proto.ErrLogin) || replyCode(err) != 530 {
		t.Errorf("wrong password: %v, want ErrLogin with 530", err)
	}
	if strings.Contains(err.Error(), s.Pass) {
		t.Errorf("error shows the password")
	}
}

// 200 files by URL through one Driver: one login (one USER in the log).
func TestVsftpdOneLogin(t *testing.T) {
	s, req, ip, since := vsftpdClient(t)
	d := &Driver{}
	defer d.CloseIdleConnections()
	for i := range 200 {
		_, body, err := get(t, d, fmt.Sprintf("ftp://%s/pub/many/f%04d.txt;type=i", s.Addr, i), req)
		if err != nil {
			t.Fatalf("file %d: %v", i, err)
		}
		if want := fmt.Sprintf("file %04d\n", i); string(body) != want {
			t.Fatalf("file %d = %q, want %q", i, body, want)
		}
	}
	cmds := servertest.FTPCommandsFrom(t, since, ip)
	if n := countPrefix(cmds, "USER "); n != 1 {
		t.Errorf("%d USER commands for 200 files, want 1", n)
	}
	if n := countPrefix(cmds, "RETR "); n != 200 {
		t.Errorf("%d RETR commands, want 200", n)
	}
}

// Refusals from vsftpd: an unreadable file and a missing one are 550.
func TestVsftpdRefusals(t *testing.T) {
	s, req, _, _ := vsftpdClient(t)
	d := &Driver{}
	defer d.CloseIdleConnections()
	for _, p := range []string{"/pub/noread.txt", "/pub/missing.txt", "/pub/noaccess/secret.txt"} {
		_, _, err := get(t, d, "ftp://"+s.Addr+p, req)
		if !(errors.Is(err, proto.ErrNotFound) || errors.Is(err, proto.ErrPermission)) || replyCode(err) != 550 {
			t.Errorf("Fetch(%q) = %v, want a 550 refusal", p, err)
		}
	}
	// The pool survived the refusals.
	if _, b, err := get(t, d, "ftp://"+s.Addr+"/pub/hello.txt", req); err != nil || string(b) != "Hello, world!\n" {
		t.Errorf("hello.txt = %q, %v", b, err)
	}
}

// 5 MiB: the hash, the size and time from SIZE and MDTM, and a resume.
func TestVsftpdBinaryAndResume(t *testing.T) {
	s, req, ip, since := vsftpdClient(t)
	d := &Driver{}
	defer d.CloseIdleConnections()
	resp, body, err := get(t, d, "ftp://"+s.Addr+"/pub/bin5m.bin", req)
	if err != nil {
		t.Fatal(err)
	}
	if h, _, _ := servertest.SHA256(bytes.NewReader(body)); h != servertest.Bin5MSHA256 || resp.Size != servertest.Bin5MSize {
		t.Errorf("bin5m.bin: sha256 %s size %d", h, resp.Size)
	}
	if !resp.ModTime.Equal(servertest.FixtureTime) {
		t.Errorf("ModTime = %v, want %v", resp.ModTime, servertest.FixtureTime)
	}
	r2 := *req
	r2.Offset = 3 << 20
	resp, tail, err := get(t, d, "ftp://"+s.Addr+"/pub/bin5m.bin", &r2)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Offset != 3<<20 || !bytes.Equal(tail, body[3<<20:]) {
		t.Errorf("resume: Offset %d, %d bytes", resp.Offset, len(tail))
	}
	if cmds := servertest.FTPCommandsFrom(t, since, ip); !slices.Contains(cmds, fmt.Sprintf("REST %d", 3<<20)) {
		t.Errorf("vsftpd saw %q, want REST", cmds)
	}
}

// Cancelling a 5 MiB transfer in the middle ends it promptly.
func TestVsftpdCancel(t *testing.T) {
	s, req, _, _ := vsftpdClient(t)
	d := &Driver{}
	defer d.CloseIdleConnections()
	ctx, cancel := context.WithCancel(t.Context())
	resp, err := d.Fetch(ctx, mustParse(t, "ftp://"+s.Addr+"/pub/bin5m.bin"), req)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 1000)
	if _, err := resp.Body.Read(buf); err != nil {
		t.Fatal(err)
	}
	cancel()
	start := time.Now()
	var rerr error
	for rerr == nil && time.Since(start) < 5*time.Second {
		_, rerr = resp.Body.Read(buf)
	}
	resp.Body.Close()
	if rerr == nil || errors.Is(rerr, errBodyClosed) {
		t.Errorf("read after cancel = %v, want an error", rerr)
	}
}

func mustParse(t *testing.T, raw string) *uri.URL {
	t.Helper()
	u, err := uri.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
