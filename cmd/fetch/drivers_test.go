package main

import (
	"testing"

	"github.com/rfc1738/fetch/proto/ftp"
	"github.com/rfc1738/fetch/proto/http"
)

// The command's registries: HTTP keep-alive always; with -Z, an FTP pool
// for the workers and pipelined passive mode; --max-host-conns lowers the
// FTP pool's limit, never raises it.
func TestCommandDrivers(t *testing.T) {
	for _, tc := range []struct {
		o       getOptions
		wantFTP ftp.Config
	}{
		{getOptions{urls: []string{"u"}}, ftp.Config{}},
		{getOptions{urls: []string{"u", "v"}}, ftp.Config{PipelinePassive: true}},
		{getOptions{urls: []string{"u"}, parallel: true, parallelMax: 8}, ftp.Config{MaxConnsPerHost: 8, MaxIdleConnsPerHost: 8, PipelinePassive: true}},
		{getOptions{urls: []string{"u"}, parallel: true, parallelMax: 8, polite: politeOptions{maxHostConns: 3}}, ftp.Config{MaxConnsPerHost: 3, MaxIdleConnsPerHost: 8, PipelinePassive: true}},
	} {
		if d := tc.o.commandDrivers(); d.FTP != tc.wantFTP || d.HTTP != (http.Config{KeepAlive: true}) {
			t.Errorf("commandDrivers of %+v = %+v, want FTP %+v and keep-alive", tc.o, d, tc.wantFTP)
		}
	}
	for _, tc := range []struct{ flag, have, want int }{
		{0, 8, 8}, {3, 8, 3}, {3, 0, 3}, {9, 8, 8},
	} {
		c := ftp.Config{MaxConnsPerHost: tc.have}
		(&politeOptions{maxHostConns: tc.flag}).limitFTP(&c)
		if c.MaxConnsPerHost != tc.want {
			t.Errorf("--max-host-conns %d on %d: %d, want %d", tc.flag, tc.have, c.MaxConnsPerHost, tc.want)
		}
	}
}
