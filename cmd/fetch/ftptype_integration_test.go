package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/internal/testrig/servertest"
)

// Against real vsftpd: the plain one converts TYPE A (ascii_download_enable
// =YES: "150 Opening ASCII mode"), and fetch says it converted; the one
// with TLS keeps vsftpd's default ("150 Opening BINARY mode"), sends the
// stored bytes, and fetch converts nothing and says nothing about it.
func TestIntegrationTypeAReply(t *testing.T) {
	tests := []struct {
		name   string
		server string
		flags  []string
		reply  string
		noted  bool
	}{
		{"vsftpd, ascii_download_enable", servertest.FTP, nil, "Opening ASCII mode", true},
		{"vsftpd with TLS, default", servertest.FTPS, []string{"--ssl-reqd", "-k"}, "Opening BINARY mode", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := servertest.Get(t, tt.server)
			ip := servertest.UniqueLoopback(t)
			args := append(append([]string{"get", "-v"}, tt.flags...), "ftp://"+s.Addr+"/pub/lines.txt")
			r := runFrom(t, ip, args...)
			if r.code != fetch.ExitOK {
				t.Fatalf("get = %d\n%s", r.code, r.err)
			}
			want, err := os.ReadFile(filepath.Join(s.Root, "ftp", "pub", "lines.txt"))
			if err != nil {
				t.Fatal(err)
			}
			if r.out != string(want) {
				t.Errorf("body: %d bytes, want the file's %d", len(r.out), len(want))
			}
			if !strings.Contains(r.err, "> TYPE A\n") || !strings.Contains(r.err, tt.reply) {
				t.Errorf("the trace lacks TYPE A or %q:\n%s", tt.reply, r.err)
			}
			if got := strings.Contains(r.err, "text by its name: TYPE A"); got != tt.noted {
				t.Errorf("conversion noted = %v, want %v\n%s", got, tt.noted, r.err)
			}
		})
	}
}
