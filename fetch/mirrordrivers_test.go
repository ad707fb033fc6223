package fetch_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"strings"
	"testing"
	"time"

	"github.com/spf13/afero"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
	"github.com/rfc1738/fetch/internal/testrig/testcert"
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/proto/ftp"
)

// loopbackCert makes a self-signed certificate for 127.0.0.1: the
// server's configuration, and a pool that trusts it.
func loopbackCert(t *testing.T) (*tls.Config, *x509.CertPool) {
	t.Helper()
	c := testcert.Loopback(t)
	return c.Server, c.Pool
}

// A mirror runs on a driver of its own made from the client's FTP
// driver: it keeps that driver's whole configuration. Here the
// TLSClientConfig whose roots alone trust the server (without them the
// FTPS handshake fails) and DisableMLSD (the server offers MLSD, the
// mirror lists with LIST).
func TestMirrorKeepsFTPDriverConfig(t *testing.T) {
	serverTLS, roots := loopbackCert(t)
	mem := afero.NewMemMapFs()
	for _, name := range []string{"/pub/a.txt", "/pub/sub/b.txt"} {
		if err := afero.WriteFile(mem, name, []byte(name+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv, err := fetchtest.StartFTP(mem, fetchtest.FTPOptions{TLS: serverTLS})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	reg := fetch.NewRegistry()
	reg.Register("ftp", ftp.New(ftp.Config{
		DisableMLSD:     true,
		TLSClientConfig: &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12},
	}))
	var trace bytes.Buffer
	c := &fetch.Client{
		Registry: reg,
		Trace:    &trace,
		Options:  proto.Options{FTP: proto.FTPOptions{TLS: proto.TLSRequire}},
	}
	defer c.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	sum, err := c.Mirror(ctx, "ftp://"+srv.Addr()+"/pub/", t.TempDir(), fetch.MirrorOptions{Jobs: 2})
	if err != nil || sum.New != 2 {
		t.Fatalf("Mirror = %v, %+v", err, sum)
	}
	tr := trace.String()
	if !strings.Contains(tr, "> AUTH TLS\n") || !strings.Contains(tr, "> PROT P\n") {
		t.Errorf("trace lacks AUTH TLS and PROT P:\n%s", tr)
	}
	if strings.Contains(tr, "> MLSD") || !strings.Contains(tr, "> LIST") {
		t.Errorf("mirror listed with MLSD, or not with LIST (DisableMLSD):\n%s", tr)
	}
}
