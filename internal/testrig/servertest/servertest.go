package servertest

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Names of the servers that Get knows.
const (
	NGINX  = "nginx"
	FTP    = "ftp"
	Gopher = "gopher"
	NNTP   = "nntp"
	Telnet = "telnet"

	// ProFTPD and PureFTPD serve the same anonymous tree as FTP (DIR/ftp),
	// and offer MLSD; Apache and Lighttpd serve DIR/www as NGINX does.
	ProFTPD  = "proftpd"
	PureFTPD = "pureftpd"
	Apache   = "apache"
	Lighttpd = "lighttpd"
	FTPS     = "ftps"      // a second vsftpd, with explicit TLS (RFC 4217)
	NGINXTLS = "nginx-tls" // the nginx over https, HTTP/2 offered

	// Gophernicus serves DIR/gophernicus, a hole of its own.
	Gophernicus = "gophernicus"
)

// Environment variables read by this package.
const (
	// EnvFile names the file written by scripts/servers.sh (DIR/env).
	EnvFile = "FETCH_TEST_ENV"
	// EnvRoot holds the fixture directory DIR.
	EnvRoot = "FETCH_TEST_ROOT"
)

// ErrNotConfigured reports that the environment does not describe the server asked for.
var ErrNotConfigured = errors.New("servertest: server not configured")

// Server describes one running test server. The zero value describes none.
type Server struct {
	// Name is one of the server names above (NGINX, FTP, ...).
	Name string
	// Addr is "127.0.0.1:PORT"; Host and Port are its parts.
	Addr string
	Host string
	Port int
	// Root is the fixture directory served (FETCH_TEST_ROOT); see the package doc
	// for its layout. Empty when the environment does not name it.
	Root string
	// User and Pass: for FTP the local account (FETCH_TEST_FTP_USER/PASS), for
	// Telnet the fake login (FETCH_TEST_TELNET_USER/PASS); empty otherwise.
	User string
	Pass string
	// Home is the FTP user's login directory (FETCH_TEST_FTP_HOME); empty otherwise.
	Home string
	// Log is the vsftpd protocol log for FTP (FETCH_TEST_FTP_LOG), the socat
	// wire log of the relay for NNTP (FETCH_TEST_NNTP_WIRE) and the command
	// log of ProFTPD (FETCH_TEST_PROFTPD_LOG); empty otherwise.
	Log string
	// CA is, for FTPS and NGINXTLS, the server's self-signed certificate
	// (FETCH_TEST_FTPS_CA, FETCH_TEST_NGINX_TLS_CA); empty otherwise.
	CA string
	// Relay is, for NNTP, the address of a relay in front of nnrpd that copies
	// every byte into Log (FETCH_TEST_NNTP_RELAY); empty otherwise.
	Relay string
}

// prefixes maps a server name to the prefix of its variables.
var prefixes = map[string]string{
	NGINX:  "FETCH_TEST_NGINX",
	FTP:    "FETCH_TEST_FTP",
	Gopher: "FETCH_TEST_GOPHER",
	NNTP:   "FETCH_TEST_NNTP",
	Telnet: "FETCH_TEST_TELNET",

	// Other FTP and HTTP servers, besides vsftpd and nginx.
	ProFTPD:  "FETCH_TEST_PROFTPD",
	PureFTPD: "FETCH_TEST_PUREFTPD",
	Apache:   "FETCH_TEST_APACHE",
	Lighttpd: "FETCH_TEST_LIGHTTPD",
	FTPS:     "FETCH_TEST_FTPS",
	NGINXTLS: "FETCH_TEST_NGINX_TLS",

	Gophernicus: "FETCH_TEST_GOPHERNICUS",
}

// Get returns the server called name, from the file named by FETCH_TEST_ENV and
// the process environment (a variable set in the process wins over the file).
// When the server is not configured the test is skipped, or fails when the
// environment variable CI is true. When it is configured but does not accept a
// connection the test fails: a stale environment must not pass for a skip.
func Get(t testing.TB, name string) Server {
	t.Helper()
	env, err := Environ()
	if err != nil {
		t.Fatal(err)
		return Server{}
	}
	s, err := Lookup(env, name)
	if err != nil {
		missing(t, err)
		return Server{}
	}
	if err := reachable(s.Addr); err != nil {
		t.Fatalf("servertest: %s at %s does not accept connections (stale %s? run scripts/servers.sh start): %v", name, s.Addr, EnvFile, err)
		return Server{}
	}
	return s
}

// Root returns the fixture directory (FETCH_TEST_ROOT), skipping or failing like Get.
func Root(t testing.TB) string {
	t.Helper()
	env, err := Environ()
	if err != nil {
		t.Fatal(err)
		return ""
	}
	root := env[EnvRoot]
	if root == "" {
		missing(t, fmt.Errorf("%w: %s is not set", ErrNotConfigured, EnvRoot))
		return ""
	}
	return root
}

// Fixture returns the path of rel (slash-separated, relative to the fixture
// directory) and fails the test when it does not exist.
func Fixture(t testing.TB, rel string) string {
	t.Helper()
	root := Root(t)
	if root == "" {
		return ""
	}
	p := filepath.Join(root, filepath.FromSlash(rel))
	if _, err := os.Lstat(p); err != nil {
		t.Fatalf("servertest: fixture %s: %v", rel, err)
		return ""
	}
	return p
}

// InCI reports whether the environment variable CI holds a true value
// ("true", "1", ...), in which case a missing server is a failure.
func InCI() bool {
	ci, err := strconv.ParseBool(os.Getenv("CI"))
	return err == nil && ci
}

func missing(t testing.TB, err error) {
	t.Helper()
	if InCI() {
		t.Fatalf("%v (CI=true: real servers are required; run scripts/test.sh)", err)
		return
	}
	t.Skipf("%v (start them with scripts/servers.sh start DIR and set %s=DIR/env)", err, EnvFile)
}

// Lookup builds the Server called name from env, a set of FETCH_TEST_*
// variables. The error wraps ErrNotConfigured when the server's address is
// absent, and describes a malformed address otherwise.
func Lookup(env map[string]string, name string) (Server, error) {
	prefix, ok := prefixes[name]
	if !ok {
		return Server{}, fmt.Errorf("servertest: unknown server %q", name)
	}
	addr := env[prefix]
	if addr == "" {
		return Server{}, fmt.Errorf("%w: %s is not set", ErrNotConfigured, prefix)
	}
	host, portStr, err := net.SplitHostPort(addr)
	if err != nil {
		return Server{}, fmt.Errorf("servertest: %s=%q: %w", prefix, addr, err)
	}
	port, err := strconv.Atoi(portStr)
	if err != nil || port < 1 || port > 65535 {
		return Server{}, fmt.Errorf("servertest: %s=%q: bad port", prefix, addr)
	}
	s := Server{Name: name, Addr: addr, Host: host, Port: port, Root: env[EnvRoot]}
	switch name {
	case FTP:
		s.User, s.Pass = env[prefix+"_USER"], env[prefix+"_PASS"]
		s.Home, s.Log = env[prefix+"_HOME"], env[prefix+"_LOG"]
	case FTPS:
		// The same account and fixture tree as FTP.
		s.User, s.Pass = env["FETCH_TEST_FTP_USER"], env["FETCH_TEST_FTP_PASS"]
		s.Home, s.Log, s.CA = env["FETCH_TEST_FTP_HOME"], env[prefix+"_LOG"], env[prefix+"_CA"]
	case Telnet:
		s.User, s.Pass = env[prefix+"_USER"], env[prefix+"_PASS"]
	case NNTP:
		s.Relay, s.Log = env[prefix+"_RELAY"], env[prefix+"_WIRE"]
	case ProFTPD:
		s.Log = env[prefix+"_LOG"]
	case NGINXTLS:
		s.CA = env[prefix+"_CA"]
	}
	return s, nil
}

// Environ returns the FETCH_TEST_* variables: those of the file named by
// FETCH_TEST_ENV (if set), overridden by those set in the process environment.
func Environ() (map[string]string, error) {
	env := map[string]string{}
	if path := os.Getenv(EnvFile); path != "" {
		f, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("servertest: %s: %w", EnvFile, err)
		}
		defer f.Close()
		env, err = ParseEnv(f)
		if err != nil {
			return nil, fmt.Errorf("servertest: %s: %w", path, err)
		}
	}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "FETCH_TEST_") && k != EnvFile {
			env[k] = v
		}
	}
	return env, nil
}

// EnvSyntaxError reports a line of an environment file that is not KEY=VALUE.
type EnvSyntaxError struct {
	Line int
	Text string
}

func (e *EnvSyntaxError) Error() string {
	return fmt.Sprintf("servertest: env line %d: not KEY=VALUE: %q", e.Line, e.Text)
}

// ParseEnv reads KEY=VALUE lines as written by scripts/servers.sh. Blank lines
// and lines starting with '#' are ignored; values are taken literally (no
// quotes, no expansion, surrounding spaces kept) but may not hold control
// characters other than TAB; keys are [A-Za-z_][A-Za-z0-9_]*. Lines may end in
// LF or CRLF. A later line for the same key wins.
func ParseEnv(r io.Reader) (map[string]string, error) {
	env := map[string]string{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text() // bufio.ScanLines drops the CR of a CRLF
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || !validKey(k) || strings.ContainsFunc(v, isControl) {
			return nil, &EnvSyntaxError{Line: n, Text: line}
		}
		env[k] = v
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("servertest: reading env: %w", err)
	}
	return env, nil
}

func isControl(r rune) bool { return (r < 0x20 && r != '\t') || r == 0x7f }

func validKey(k string) bool {
	if k == "" {
		return false
	}
	for i, c := range k {
		switch {
		case c == '_', 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z':
		case '0' <= c && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// dialed caches, per address, the result of the first dial of this process.
var dialed sync.Map // addr -> error, nil for none

// reachable reports whether addr accepts a TCP connection; it dials once per
// address and process.
func reachable(addr string) error {
	if v, ok := dialed.Load(addr); ok {
		err, _ := v.(error)
		return err
	}
	c, err := net.DialTimeout("tcp", addr, 3*time.Second)
	if err == nil {
		c.Close()
	}
	dialed.Store(addr, err)
	return err
}
