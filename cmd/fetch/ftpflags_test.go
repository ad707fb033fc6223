package main

import (
	"testing"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/proto"
)

// The FTP flags are checked before anything is sent, and become the
// driver's request options.
func TestFTPFlags(t *testing.T) {
	for _, args := range [][]string{
		{"get", "--ftp-port", "eth0", "ftp://127.0.0.1/a"},
		{"get", "-P", "127.0.0.1:70000", "ftp://127.0.0.1/a"},
		{"mirror", "--ftp-port", "ftp.example.org", "ftp://127.0.0.1/", "dir"},
		{"get", "--ssl", "--cacert", "/nonexistent/ca.pem", "ftp://127.0.0.1/a"},
	} {
		n := &netlog{}
		if r := runArgs(t, n, "", args...); r.code != fetch.ExitUsage || n.dials.Load() != 0 {
			t.Errorf("%q = %d with %d dials, want %d and none", args, r.code, n.dials.Load(), fetch.ExitUsage)
		}
	}
	tests := []struct {
		o    getOptions
		want proto.FTPOptions
	}{
		{getOptions{ftpPort: "-", ssl: true}, proto.FTPOptions{Port: "-", TLS: proto.TLSTry}},
		{getOptions{ssl: true, sslReqd: true, insecure: true}, proto.FTPOptions{TLS: proto.TLSRequire, Insecure: true}},
		{getOptions{cacert: "ca.pem"}, proto.FTPOptions{CACert: "ca.pem"}},
	}
	for _, tt := range tests {
		var got proto.FTPOptions
		tt.o.setFTPOptions(&got)
		if got != tt.want {
			t.Errorf("%+v: options %+v, want %+v", tt.o, got, tt.want)
		}
	}
}
