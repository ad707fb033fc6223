package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/proto"
)

// The FTP and TLS flags are checked before anything is sent (a --cacert
// file that is missing or holds no PEM certificate is named); the FTP
// flags become the driver's request options (-k and --cacert are in the
// drivers' TLS configuration, for https too: TestTLSFlagsHTTPS).
func TestFTPFlags(t *testing.T) {
	notPEM := filepath.Join(t.TempDir(), "ca.pem")
	os.WriteFile(notPEM, []byte("no certificate here\n"), 0o644)
	for _, args := range [][]string{
		{"get", "--ftp-port", "eth0", "ftp://127.0.0.1/a"},
		{"get", "-P", "127.0.0.1:70000", "ftp://127.0.0.1/a"},
		{"mirror", "--ftp-port", "ftp.example.org", "ftp://127.0.0.1/", "dir"},
		{"get", "--ssl", "--cacert", "/nonexistent/ca.pem", "ftp://127.0.0.1/a"},
		{"get", "--cacert", "/nonexistent/ca.pem", "https://127.0.0.1/a"},
		{"mirror", "-k", "--cacert", notPEM, "https://127.0.0.1/", "dir"},
	} {
		n := &netlog{}
		if r := runArgs(t, n, "", args...); r.code != fetch.ExitUsage || n.dials.Load() != 0 {
			t.Errorf("%q = %d with %d dials, want %d and none", args, r.code, n.dials.Load(), fetch.ExitUsage)
		} else if i := slices.Index(args, "--cacert"); i > 0 && !strings.Contains(r.err, args[i+1]) {
			t.Errorf("%q: the error does not name the file: %q", args, r.err)
		}
	}
	tests := []struct {
		o    getOptions
		want proto.FTPOptions
	}{
		{getOptions{ftpPort: "-", ssl: true}, proto.FTPOptions{Port: "-", TLS: proto.TLSTry}},
		{getOptions{ssl: true, sslReqd: true, insecure: true}, proto.FTPOptions{TLS: proto.TLSRequire}},
	}
	for _, tt := range tests {
		var got proto.FTPOptions
		tt.o.setFTPOptions(&got)
		if got != tt.want {
			t.Errorf("%+v: options %+v, want %+v", tt.o, got, tt.want)
		}
	}
}
