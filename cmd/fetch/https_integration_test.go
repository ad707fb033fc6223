package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/internal/testrig/servertest"
)

// --cacert and -k on the real nginx over https (FETCH_TEST_NGINX_TLS,
// a self-signed certificate, HTTP/2 offered): without them get fails
// with exit 5 and writes nothing; with --cacert of its certificate get,
// get -Z and mirror (over HTTP/2) copy the tree's bytes; -k does too;
// --cacert of another CA fails with exit 5.
func TestIntegrationHTTPSFlags(t *testing.T) {
	s := servertest.Get(t, servertest.NGINXTLS)
	base := "https://" + s.Addr + "/dir/"
	same := func(local, rel string) {
		t.Helper()
		want, err := os.ReadFile(filepath.Join(s.Root, "www", "dir", rel))
		if err != nil {
			t.Fatal(err)
		}
		if got, err := os.ReadFile(local); err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s differs from %s (%v)", local, rel, err)
		}
	}
	other := otherCA(t)
	for _, flags := range [][]string{nil, {"--cacert", other}} {
		d := t.TempDir()
		r := runArgs(t, nil, "", append(append([]string{"get", "-s"}, flags...), "-o", filepath.Join(d, "a.txt"), base+"a.txt")...)
		if r.code != fetch.ExitNetwork {
			t.Errorf("get %q = %d, want %d\n%s", flags, r.code, fetch.ExitNetwork, r.err)
		}
		assertOnly(t, d)
	}
	for _, flags := range [][]string{{"--cacert", s.CA}, {"-k"}} {
		d := t.TempDir()
		if r := runArgs(t, nil, "", append(append([]string{"get", "-s"}, flags...), "-o", filepath.Join(d, "a.txt"), base+"a.txt")...); r.code != fetch.ExitOK {
			t.Errorf("get %q = %d\n%s", flags, r.code, r.err)
		}
		same(filepath.Join(d, "a.txt"), "a.txt")
		z := t.TempDir()
		if r := runArgs(t, nil, "", append(append([]string{"get", "-s", "-Z"}, flags...), "--output-dir", z, "-O", base+"a.txt", base+"sub/b.txt")...); r.code != fetch.ExitOK {
			t.Errorf("get -Z %q = %d\n%s", flags, r.code, r.err)
		}
		same(filepath.Join(z, "b.txt"), "sub/b.txt")
		m := filepath.Join(t.TempDir(), "m")
		if r := runArgs(t, nil, "", append(append([]string{"mirror", "-v"}, flags...), base, m)...); r.code != fetch.ExitOK || !strings.Contains(r.err, "HTTP/2.0") {
			t.Errorf("mirror %q = %d, not over HTTP/2\n%s", flags, r.code, r.err)
		}
		for _, rel := range []string{"a.txt", "sub/b.txt", "sub/deeper/c.txt", "sub/deeper/d.bin"} {
			same(filepath.Join(m, rel), rel)
		}
	}
}
