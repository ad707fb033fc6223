package fetch_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/internal/testrig/servertest"
	fhttp "github.com/rfc1738/fetch/proto/http"
)

// A mirror of the real nginx over https (FETCH_TEST_NGINX_TLS, which
// offers h2 by ALPN) speaks HTTP/2: every response of the fresh run and
// of the re-run is HTTP/2, the re-run's conditional requests are answered
// 304 (nginx's index gives minutes, so each file is asked), and the copy
// is the tree's.
func TestMirrorNginxHTTP2(t *testing.T) {
	s := servertest.Get(t, servertest.NGINXTLS)
	pem, err := os.ReadFile(s.CA)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(pem) {
		t.Fatalf("no certificate in %s", s.CA)
	}
	var trace bytes.Buffer
	c := &fetch.Client{
		Registry: fetch.Drivers{HTTP: fhttp.Config{TLSClientConfig: &tls.Config{RootCAs: roots}}}.Registry(),
		Trace:    &trace,
	}
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	dst := t.TempDir()
	url := "https://" + s.Addr + "/dir/"
	if sum, err := c.Mirror(ctx, url, dst, fetch.MirrorOptions{Jobs: 4}); err != nil || sum.New != 4 {
		t.Fatalf("first run: %v, %+v", err, sum)
	}
	fresh := trace.String()
	trace.Reset()
	if sum, err := c.Mirror(ctx, url, dst, fetch.MirrorOptions{Jobs: 4}); err != nil || sum.Unchanged != 4 {
		t.Fatalf("re-run: %v, %+v", err, sum)
	}
	rerun := trace.String()
	for run, tr := range map[string]string{"first run": fresh, "re-run": rerun} {
		if strings.Contains(tr, "HTTP/1.1") || !strings.Contains(tr, "< HTTP/2.0 200 OK\n") {
			t.Errorf("%s: not all HTTP/2:\n%s", run, tr)
		}
	}
	if n := strings.Count(rerun, "< HTTP/2.0 304 Not Modified\n"); n != 4 {
		t.Errorf("re-run: %d answers 304, want 4:\n%s", n, rerun)
	}
	for _, rel := range []string{"a.txt", "sub/b.txt", "sub/deeper/c.txt", "sub/deeper/d.bin"} {
		want, err := os.ReadFile(filepath.Join(s.Root, "www", "dir", rel))
		if err != nil {
			t.Fatal(err)
		}
		if got, err := os.ReadFile(filepath.Join(dst, rel)); err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s differs (%v)", rel, err)
		}
	}
}
