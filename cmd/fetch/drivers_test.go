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
	if got := keepAliveDrivers(); got.HTTP != (http.Config{KeepAlive: true}) || got.FTP != (ftp.Config{}) {
		t.Errorf("keepAliveDrivers = %+v", got)
	}
	d := parallelDrivers(8)
	want := ftp.Config{MaxConnsPerHost: 8, MaxIdleConnsPerHost: 8, PipelinePassive: true}
	if d.FTP != want || !d.HTTP.KeepAlive {
		t.Errorf("parallelDrivers(8) = %+v, want FTP %+v and keep-alive", d, want)
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
