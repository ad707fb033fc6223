package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io/fs"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/internal/testrig/servertest"
)

// Integration tests of FTP active mode (against the plain vsftpd) and FTPS
// (against the vsftpd with TLS required, FETCH_TEST_FTPS). Each test dials
// from a loopback address of its own, so that the vsftpd logs show its
// commands apart from everyone else's.

// runFrom runs the program with its connections dialled from ip.
func runFrom(t *testing.T, ip net.IP, args ...string) result {
	t.Helper()
	e, out, errb := newEnv("", &netlog{})
	e.dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: ip}}
		return d.DialContext(ctx, network, addr)
	}
	code := runIn(t, e, args...)
	return result{out: out.String(), err: errb.String(), code: code}
}

// mirrorExcludes leaves out the fixture entries that vsftpd refuses
// (noread.txt: RETR 550; noaccess: CWD 550), and scratch-*, made and
// removed in the same tree by the tests of mirror while these run.
var mirrorExcludes = append([]string{"--exclude", "noread.txt", "--exclude", "noaccess", "--exclude", "scratch-*"}, notLocalExcludes()...)

// notLocalNames are the fixtures' names that cannot be local names
// (mirror's checkLocal: a colon, a question mark, a final space, ">"): a
// mirror fails each, named, exit 8. A test that wants exit 0 excludes
// them (notLocalExcludes), and compares the rest.
var notLocalNames = []string{"question?mark.txt", "trail.txt ", "x -> y", "a:b.txt", "x?y.txt"}

// notLocalExcludes returns --exclude flags for notLocalNames (each is a
// glob that matches itself).
func notLocalExcludes() []string {
	var out []string
	for _, n := range notLocalNames {
		out = append(out, "--exclude", n)
	}
	return out
}

// comparePub checks that dst holds every file of the fixture's ftp/pub (but
// the refused ones) byte for byte, those whose names begin with a dot too.
func comparePub(t *testing.T, root, dst string) {
	t.Helper()
	src := filepath.Join(root, "ftp", "pub")
	n := 0
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		base := d.Name()
		if rel != "." && (base == "noread.txt" || base == "noaccess" || strings.HasPrefix(base, "scratch-") || slices.Contains(notLocalNames, base)) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if fi, err := os.Stat(filepath.Join(dst, rel)); err != nil || !fi.IsDir() {
				t.Errorf("mirror lacks directory %s: %v", rel, err)
			}
			return nil
		}
		want, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		got, err := os.ReadFile(filepath.Join(dst, rel))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("mirror %s: %d bytes, %v; want %d bytes, the same", rel, len(got), err, len(want))
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 2000 {
		t.Errorf("compared %d files, want the whole tree", n)
	}
}

// Active mode against vsftpd (port_enable=YES): a 5 MiB retrieval and a
// mirror of pub, byte-exact, with EPRT and never EPSV or PASV. The client
// dials from an address of its own (for the log) but listens on 127.0.0.1,
// the only address vsftpd is told to connect to (port_promiscuous=YES).
func TestIntegrationFTPActive(t *testing.T) {
	s := servertest.Get(t, servertest.FTP)
	ip := servertest.UniqueLoopback(t)
	since := servertest.LogOffset(t, s.Log)
	out := filepath.Join(t.TempDir(), "bin5m.bin")
	r := runFrom(t, ip, "get", "-s", "--ftp-port", "127.0.0.1", "-o", out, "ftp://"+s.Addr+"/pub/bin5m.bin")
	if r.code != fetch.ExitOK {
		t.Fatalf("get = %d\n%s", r.code, r.err)
	}
	if got := sha(t, out); got != servertest.Bin5MSHA256 {
		t.Errorf("bin5m.bin: sha256 %s, want %s", got, servertest.Bin5MSHA256)
	}
	dir := filepath.Join(t.TempDir(), "m")
	r = runFrom(t, ip, append(append([]string{"mirror", "-s", "-j", "4", "-P", "127.0.0.1"}, mirrorExcludes...), "ftp://"+s.Addr+"/pub/", dir)...)
	if r.code != fetch.ExitOK {
		t.Fatalf("mirror = %d\n%s%s", r.code, r.out, r.err)
	}
	comparePub(t, s.Root, dir)
	cmds := servertest.LogCommandsFrom(t, s.Log, since, ip.String())
	eprt := 0
	for _, c := range cmds {
		switch {
		case strings.HasPrefix(c, "EPRT |1|127.0.0.1|"):
			eprt++
		case c == "EPSV" || c == "PASV" || strings.HasPrefix(c, "EPRT"):
			t.Fatalf("vsftpd saw %q in active mode", c)
		}
	}
	if eprt < 2000 {
		t.Errorf("vsftpd saw %d EPRT from %s, want one per transfer and listing", eprt, ip)
	}
}

// --ssl-reqd against a server without TLS: exit 6, and the server never
// saw USER or PASS from that client. --ssl goes on in clear, with a
// warning.
func TestIntegrationSSLReqdPlainServer(t *testing.T) {
	s := servertest.Get(t, servertest.FTP)
	ip := servertest.UniqueLoopback(t)
	since := servertest.LogOffset(t, s.Log)
	url := "ftp://" + s.User + ":" + s.Pass + "@" + s.Addr + "/"
	r := runFrom(t, ip, "get", "--ssl-reqd", url)
	if r.code != fetch.ExitServer {
		t.Errorf("--ssl-reqd = %d, want %d\n%s", r.code, fetch.ExitServer, r.err)
	}
	if s.Pass != "" && strings.Contains(r.err, s.Pass) {
		t.Errorf("stderr shows the password:\n%s", r.err)
	}
	if cmds := servertest.LogCommandsFrom(t, s.Log, since, ip.String()); !slices.Equal(cmds, []string{"AUTH TLS"}) {
		t.Errorf("vsftpd saw %q from %s, want only AUTH TLS", cmds, ip)
	}
	r = runFrom(t, ip, "get", "--ssl", "ftp://"+s.Addr+"/pub/hello.txt")
	if r.code != fetch.ExitOK || r.out != "Hello, world!\n" || !strings.Contains(r.err, "refused TLS") {
		t.Errorf("--ssl = %d %q\n%s", r.code, r.out, r.err)
	}
}

// FTPS against vsftpd with TLS required (force_*_ssl, require_ssl_reuse):
// retrieval, listing, password login, mirror byte-exact, resume, with
// --cacert and with -k; a CA that did not sign the server's certificate
// fails before USER.
func TestIntegrationFTPS(t *testing.T) {
	s := servertest.Get(t, servertest.FTPS)
	if s.CA == "" {
		t.Fatal("FETCH_TEST_FTPS_CA is not set")
	}
	ip := servertest.UniqueLoopback(t)
	base := "ftp://" + s.Addr
	tls := []string{"--ssl-reqd", "--cacert", s.CA}
	get := func(args ...string) result {
		t.Helper()
		return runFrom(t, ip, append(append([]string{"get"}, tls...), args...)...)
	}
	dir := t.TempDir()

	out := filepath.Join(dir, "bin5m.bin")
	if r := get("-s", "-o", out, base+"/pub/bin5m.bin"); r.code != fetch.ExitOK {
		t.Fatalf("get = %d\n%s", r.code, r.err)
	}
	if got := sha(t, out); got != servertest.Bin5MSHA256 {
		t.Errorf("bin5m.bin: sha256 %s, want %s", got, servertest.Bin5MSHA256)
	}

	r := get("-v", base+"/pub/")
	if r.code != fetch.ExitOK || !strings.Contains(r.out, "bin5m.bin") || !strings.Contains(r.out, "many") {
		t.Errorf("listing = %d %q\n%s", r.code, r.out, r.err)
	}
	for _, want := range []string{"> AUTH TLS\n", "> PBSZ 0\n", "> PROT P\n", "> LIST\n"} {
		if !strings.Contains(r.err, want) {
			t.Errorf("trace lacks %q:\n%s", want, r.err)
		}
	}

	if s.User != "" {
		r = get("-v", "ftp://"+s.User+":"+s.Pass+"@"+s.Addr+"/")
		if r.code != fetch.ExitOK || !strings.Contains(r.err, "> PASS ****\n") || strings.Contains(r.err, s.Pass) {
			t.Errorf("password login = %d\n%s", r.code, strings.ReplaceAll(r.err, s.Pass, "(PASSWORD)"))
		}
	}

	m := filepath.Join(t.TempDir(), "m")
	r = runFrom(t, ip, append(append(append([]string{"mirror", "-s", "-j", "4"}, tls...), mirrorExcludes...), base+"/pub/", m)...)
	if r.code != fetch.ExitOK {
		t.Fatalf("mirror = %d\n%s%s", r.code, r.out, r.err)
	}
	comparePub(t, s.Root, m)

	// Resume with -C -, and -k instead of --cacert.
	src, err := os.ReadFile(filepath.Join(s.Root, "ftp", "pub", "bin5m.bin"))
	if err != nil {
		t.Fatal(err)
	}
	res := filepath.Join(dir, "resumed.bin")
	if err := os.WriteFile(res+partSuffix, src[:1000000], 0o644); err != nil {
		t.Fatal(err)
	}
	r = runFrom(t, ip, "get", "-v", "--ssl-reqd", "-k", "-C", "-", "-o", res, base+"/pub/bin5m.bin")
	if r.code != fetch.ExitOK || !strings.Contains(r.err, "> REST 1000000\n") || !strings.Contains(r.err, "-k") {
		t.Fatalf("resume = %d\n%s", r.code, r.err)
	}
	if got := sha(t, res); got != servertest.Bin5MSHA256 {
		t.Errorf("resumed: sha256 %s, want %s", got, servertest.Bin5MSHA256)
	}

	// Another CA: the handshake fails, and no USER is sent.
	other := otherCA(t)
	ip2 := servertest.UniqueLoopback(t)
	since := servertest.LogOffset(t, s.Log)
	r = runFrom(t, ip2, "get", "--ssl-reqd", "--cacert", other, base+"/pub/hello.txt")
	if r.code != fetch.ExitNetwork || !strings.Contains(r.err, "certificate") {
		t.Errorf("wrong CA = %d, want %d with a certificate error\n%s", r.code, fetch.ExitNetwork, r.err)
	}
	if cmds := servertest.LogCommandsFrom(t, s.Log, since, ip2.String()); !slices.Equal(cmds, []string{"AUTH TLS"}) {
		t.Errorf("vsftpd saw %q from %s, want only AUTH TLS", cmds, ip2)
	}
}

// otherCA writes a self-signed certificate that signed nothing the server
// has, and returns its path.
func otherCA(t *testing.T) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: "not the test server"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "other-ca.pem")
	if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
