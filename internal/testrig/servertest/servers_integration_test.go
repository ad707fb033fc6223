package servertest

import (
	"bufio"
	"io"
	"net/http"
	"net/textproto"
	"strings"
	"testing"
)

// Facts that the package doc states about ProFTPD, Pure-FTPd, Apache and
// lighttpd.

// ftpSession logs in anonymously and returns the greeting and a function
// that sends one command and returns its whole reply (code and text).
// userCode is the reply expected to USER anonymous: 331 asks for a
// password, 230 logs in at once.
func ftpSession(t *testing.T, addr string, userCode int) (string, func(cmd string) (int, string)) {
	t.Helper()
	c := textproto.NewConn(dial(t, addr, nil))
	read := func() (int, string) {
		t.Helper()
		code, msg, err := c.ReadResponse(0)
		if err != nil && code == 0 {
			t.Fatalf("%s: %v", addr, err)
		}
		return code, msg
	}
	_, greeting := read()
	send := func(cmd string) (int, string) {
		t.Helper()
		if err := c.PrintfLine("%s", cmd); err != nil {
			t.Fatalf("%s: %v", addr, err)
		}
		return read()
	}
	if code, msg := send("USER anonymous"); code != userCode {
		t.Fatalf("USER anonymous: %d %s, want %d", code, msg, userCode)
	}
	if userCode == 331 {
		if code, msg := send("PASS fetch@example.com"); code != 230 {
			t.Fatalf("PASS: %d %s", code, msg)
		}
	}
	return greeting, send
}

func TestOtherFTPServers(t *testing.T) {
	for _, tc := range []struct {
		name, greeting, typeA string
		user                  int // reply code of USER anonymous
		sizeInA               int // reply code of SIZE in TYPE A
	}{
		{ProFTPD, "ProFTPD Server (fetch test proftpd) [127.0.0.1]", "Type set to A", 331, 550},
		{PureFTPD, "--------- Welcome to Pure-FTPd [privsep] [TLS] ----------", "TYPE is now ASCII", 230, 213},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := Get(t, tc.name)
			greeting, send := ftpSession(t, s.Addr, tc.user)
			if first, _, _ := strings.Cut(greeting, "\n"); first != tc.greeting {
				t.Errorf("greeting %q, want first line %q", greeting, tc.greeting)
			}
			code, feat := send("FEAT")
			if code != 211 || !strings.Contains(feat, "\n MLST ") || !strings.Contains(feat, "\n EPSV") || !strings.Contains(feat, "\n MDTM") {
				t.Errorf("FEAT = %d %q, want MLST, EPSV and MDTM", code, feat)
			}
			if code, msg := send("SYST"); code != 215 || msg != "UNIX Type: L8" {
				t.Errorf("SYST = %d %q", code, msg)
			}
			if code, msg := send("MDTM pub/hello.txt"); code != 213 || msg != "20100101050000" {
				t.Errorf("MDTM = %d %q", code, msg)
			}
			if code, msg := send("TYPE A"); code != 200 || msg != tc.typeA {
				t.Errorf("TYPE A = %d %q", code, msg)
			}
			if code, msg := send("SIZE pub/lines.txt"); code != tc.sizeInA {
				t.Errorf("SIZE in TYPE A = %d %q, want %d", code, msg, tc.sizeInA)
			}
			send("TYPE I")
			if code, msg := send("RETR pub/noread.txt"); code != 550 {
				t.Errorf("RETR noread.txt = %d %q, want 550", code, msg)
			}
			if code, msg := send("CWD pub/noaccess"); code != 550 {
				t.Errorf("CWD noaccess = %d %q, want 550", code, msg)
			}
			if code, msg := send("STOR x"); code/100 != 4 && code/100 != 5 {
				t.Errorf("STOR = %d %q, want a refusal (read-only)", code, msg)
			}
			send("QUIT")
		})
	}
}

func TestOtherHTTPServers(t *testing.T) {
	client := &http.Client{
		Timeout:       ioTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	for _, tc := range []struct {
		name, server, path string
		status             int
		header, contains   string
	}{
		{"apache file", Apache, "/fancy/hello.txt", 200, "Apache/2.4.71 (Debian)", "Hello, world!\n"},
		{"apache fancy", Apache, "/fancy/dir/", 200, "", `<pre>      <a href="?C=N;O=D">Name</a>`},
		{"apache table", Apache, "/table/dir/", 200, "", `<td><a href="a.txt">a.txt</a>`},
		{"apache plain", Apache, "/plain/dir/", 200, "", `<li><a href="a.txt"> a.txt</a></li>`},
		{"apache no slash", Apache, "/fancy/dir", 301, "", ""},
		{"lighttpd file", Lighttpd, "/hello.txt", 200, "lighttpd/1.4.69", "Hello, world!\n"},
		{"lighttpd index", Lighttpd, "/dir/", 200, "", `<td class="n"><a href="a.txt">a.txt</a></td>`},
		{"lighttpd no slash", Lighttpd, "/dir", 301, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := Get(t, tc.server)
			resp, err := client.Get("http://" + s.Addr + tc.path)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, err := io.ReadAll(bufio.NewReader(io.LimitReader(resp.Body, 1<<20)))
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tc.status {
				t.Errorf("GET %s = %d, want %d", tc.path, resp.StatusCode, tc.status)
			}
			if tc.header != "" && resp.Header.Get("Server") != tc.header {
				t.Errorf("Server: %q, want %q", resp.Header.Get("Server"), tc.header)
			}
			if !strings.Contains(string(body), tc.contains) {
				t.Errorf("GET %s: no %q in\n%s", tc.path, tc.contains, body)
			}
			if tc.status == 301 && !strings.HasSuffix(resp.Header.Get("Location"), tc.path+"/") {
				t.Errorf("Location: %q, want the path with a slash", resp.Header.Get("Location"))
			}
		})
	}
}
