package servertest

import (
	"bufio"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var parseEnvTests = []struct {
	name string
	in   string
	want map[string]string
	line int // > 0: want an *EnvSyntaxError for this line
}{
	// The shape written by scripts/servers.sh: a comment, then KEY=VALUE lines.
	{"servers.sh", "# written by scripts/servers.sh start /tmp/x\nFETCH_TEST_ROOT=/tmp/x\nFETCH_TEST_FTP=127.0.0.1:2121\n",
		map[string]string{"FETCH_TEST_ROOT": "/tmp/x", "FETCH_TEST_FTP": "127.0.0.1:2121"}, 0},
	{"empty file", "", map[string]string{}, 0},
	{"blank lines and CRLF", "\n  \r\nA=1\r\n\nB=2", map[string]string{"A": "1", "B": "2"}, 0},
	// Values are literal: '=' after the first, spaces, quotes and '#' are kept.
	{"literal values", "A=x=y\nB= spaced \nC=\"q\"\nD=#not a comment\nE=",
		map[string]string{"A": "x=y", "B": " spaced ", "C": `"q"`, "D": "#not a comment", "E": ""}, 0},
	{"later wins", "A=1\nA=2\n", map[string]string{"A": "2"}, 0},
	{"no equals", "A=1\njunk\n", nil, 2},
	{"empty key", "=x\n", nil, 1},
	{"digit first", "1A=x\n", nil, 1},
	{"space in key", "A B=x\n", nil, 1},
	{"export prefix", "export A=x\n", nil, 1},
	{"lone CR in value", "A=\r0\n", nil, 1}, // found by FuzzParseEnv
	{"NUL in value", "A=1\nB=x\x00y\n", nil, 2},
	{"tab allowed", "A=x\ty", map[string]string{"A": "x\ty"}, 0},
}

func TestParseEnv(t *testing.T) {
	for _, tt := range parseEnvTests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseEnv(strings.NewReader(tt.in))
			if tt.line > 0 {
				var se *EnvSyntaxError
				if !errors.As(err, &se) || se.Line != tt.line {
					t.Fatalf("ParseEnv(%q) error = %v, want *EnvSyntaxError at line %d", tt.in, err, tt.line)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseEnv(%q) error = %v", tt.in, err)
			}
			if !maps.Equal(got, tt.want) {
				t.Errorf("ParseEnv(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

func FuzzParseEnv(f *testing.F) {
	for _, tt := range parseEnvTests {
		f.Add(tt.in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		env, err := ParseEnv(strings.NewReader(in))
		if err != nil {
			var se *EnvSyntaxError
			if !errors.As(err, &se) && !errors.Is(err, bufio.ErrTooLong) {
				t.Fatalf("ParseEnv error %v is neither an *EnvSyntaxError nor bufio.ErrTooLong", err)
			}
			return
		}
		// Writing the result back and parsing again gives the same map.
		var b strings.Builder
		for k, v := range env {
			if strings.ContainsAny(v, "\r\n") {
				t.Fatalf("value of %q holds a line end: %q", k, v)
			}
			fmt.Fprintf(&b, "%s=%s\n", k, v)
		}
		again, err := ParseEnv(strings.NewReader(b.String()))
		if err != nil || !maps.Equal(env, again) {
			t.Fatalf("round trip of %v = %v, %v", env, again, err)
		}
	})
}

var lookupTests = []struct {
	name    string
	env     map[string]string
	server  string
	want    Server
	missing bool // want ErrNotConfigured
	bad     bool // want some other error
}{
	{"ftp with extras", map[string]string{
		"FETCH_TEST_ROOT": "/r", "FETCH_TEST_FTP": "127.0.0.1:2121", "FETCH_TEST_FTP_USER": "u",
		"FETCH_TEST_FTP_PASS": "p", "FETCH_TEST_FTP_HOME": "/home/u", "FETCH_TEST_FTP_LOG": "/r/vsftpd.log",
	}, FTP, Server{Name: FTP, Addr: "127.0.0.1:2121", Host: "127.0.0.1", Port: 2121, Root: "/r",
		User: "u", Pass: "p", Home: "/home/u", Log: "/r/vsftpd.log"}, false, false},
	{"nntp relay", map[string]string{"FETCH_TEST_NNTP": "127.0.0.1:119", "FETCH_TEST_NNTP_RELAY": "127.0.0.1:1190",
		"FETCH_TEST_NNTP_WIRE": "/w"}, NNTP, Server{Name: NNTP, Addr: "127.0.0.1:119", Host: "127.0.0.1", Port: 119,
		Relay: "127.0.0.1:1190", Log: "/w"}, false, false},
	{"telnet user", map[string]string{"FETCH_TEST_TELNET": "[::1]:23", "FETCH_TEST_TELNET_USER": "a", "FETCH_TEST_TELNET_PASS": "b"},
		Telnet, Server{Name: Telnet, Addr: "[::1]:23", Host: "::1", Port: 23, User: "a", Pass: "b"}, false, false},
	{"gopher has no user", map[string]string{"FETCH_TEST_GOPHER": "127.0.0.1:70", "FETCH_TEST_GOPHER_USER": "x"},
		Gopher, Server{Name: Gopher, Addr: "127.0.0.1:70", Host: "127.0.0.1", Port: 70}, false, false},
	{"proftpd log", map[string]string{"FETCH_TEST_PROFTPD": "127.0.0.1:2121", "FETCH_TEST_PROFTPD_LOG": "/r/proftpd.log",
		"FETCH_TEST_FTP_USER": "u"}, ProFTPD, Server{Name: ProFTPD, Addr: "127.0.0.1:2121", Host: "127.0.0.1", Port: 2121,
		Log: "/r/proftpd.log"}, false, false},
	{"pure-ftpd is not vsftpd", map[string]string{"FETCH_TEST_FTP": "127.0.0.1:21"}, PureFTPD, Server{}, true, false},
	{"apache", map[string]string{"FETCH_TEST_APACHE": "127.0.0.1:8080", "FETCH_TEST_ROOT": "/r"}, Apache,
		Server{Name: Apache, Addr: "127.0.0.1:8080", Host: "127.0.0.1", Port: 8080, Root: "/r"}, false, false},
	{"lighttpd", map[string]string{"FETCH_TEST_LIGHTTPD": "127.0.0.1:8081"}, Lighttpd,
		Server{Name: Lighttpd, Addr: "127.0.0.1:8081", Host: "127.0.0.1", Port: 8081}, false, false},
	{"absent", map[string]string{"FETCH_TEST_FTP": "127.0.0.1:21"}, NGINX, Server{}, true, false},
	{"empty value", map[string]string{"FETCH_TEST_NGINX": ""}, NGINX, Server{}, true, false},
	{"no port", map[string]string{"FETCH_TEST_NGINX": "127.0.0.1"}, NGINX, Server{}, false, true},
	{"port zero", map[string]string{"FETCH_TEST_NGINX": "127.0.0.1:0"}, NGINX, Server{}, false, true},
	{"port too big", map[string]string{"FETCH_TEST_NGINX": "127.0.0.1:65536"}, NGINX, Server{}, false, true},
	{"unknown name", map[string]string{}, "wais", Server{}, false, true},
}

func TestLookup(t *testing.T) {
	for _, tt := range lookupTests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Lookup(tt.env, tt.server)
			switch {
			case tt.missing:
				if !errors.Is(err, ErrNotConfigured) {
					t.Fatalf("Lookup(%s) error = %v, want ErrNotConfigured", tt.server, err)
				}
			case tt.bad:
				if err == nil || errors.Is(err, ErrNotConfigured) {
					t.Fatalf("Lookup(%s) error = %v, want a configuration error", tt.server, err)
				}
			default:
				if err != nil {
					t.Fatalf("Lookup(%s) error = %v", tt.server, err)
				}
				if got != tt.want {
					t.Errorf("Lookup(%s) = %+v, want %+v", tt.server, got, tt.want)
				}
			}
		})
	}
}

// fakeTB records Skip and Fatal instead of stopping the goroutine.
type fakeTB struct {
	testing.TB
	skipped, failed bool
	msg             string
}

func (f *fakeTB) Helper()                        {}
func (f *fakeTB) Skipf(format string, a ...any)  { f.skipped, f.msg = true, fmt.Sprintf(format, a...) }
func (f *fakeTB) Fatalf(format string, a ...any) { f.failed, f.msg = true, fmt.Sprintf(format, a...) }
func (f *fakeTB) Fatal(a ...any)                 { f.failed, f.msg = true, fmt.Sprint(a...) }

// clearEnv unsets every FETCH_TEST_* variable for the test (and CI).
func clearEnv(t *testing.T) {
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "FETCH_TEST_") || k == "CI" {
			t.Setenv(k, "")
			os.Unsetenv(k)
		}
	}
}

func TestGetMissing(t *testing.T) {
	for _, tt := range []struct {
		ci              string
		skipped, failed bool
	}{
		{"", true, false},      // locally a missing server skips
		{"false", true, false}, // CI=false is local
		{"true", false, true},  // the brief: with CI=true a missing server is a failure
		{"1", false, true},
	} {
		t.Run("CI="+tt.ci, func(t *testing.T) {
			clearEnv(t)
			t.Setenv("CI", tt.ci)
			ft := &fakeTB{}
			s := Get(ft, Gopher)
			if ft.skipped != tt.skipped || ft.failed != tt.failed || s != (Server{}) {
				t.Errorf("Get with CI=%q: skipped=%v failed=%v server=%+v, want skipped=%v failed=%v", tt.ci, ft.skipped, ft.failed, s, tt.skipped, tt.failed)
			}
		})
	}
}

func TestGetFromFile(t *testing.T) {
	clearEnv(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "env")
	// A port nobody listens on: Get must fail, not skip (stale environment).
	content := "FETCH_TEST_ROOT=" + dir + "\nFETCH_TEST_GOPHER=127.0.0.1:1\n"
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvFile, path)
	ft := &fakeTB{}
	Get(ft, Gopher)
	if !ft.failed || ft.skipped {
		t.Errorf("Get on a dead address: skipped=%v failed=%v, want a failure", ft.skipped, ft.failed)
	}
	if got := Root(&fakeTB{}); got != dir {
		t.Errorf("Root = %q, want %q", got, dir)
	}
	// The process environment wins over the file.
	t.Setenv("FETCH_TEST_ROOT", "/elsewhere")
	if got := Root(&fakeTB{}); got != "/elsewhere" {
		t.Errorf("Root with FETCH_TEST_ROOT set = %q, want /elsewhere", got)
	}
	// A FETCH_TEST_ENV naming no file is a failure even locally.
	t.Setenv(EnvFile, filepath.Join(dir, "missing"))
	ft = &fakeTB{}
	Get(ft, Gopher)
	if !ft.failed {
		t.Errorf("Get with a missing env file did not fail")
	}
}
