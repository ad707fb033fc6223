package ftp

import (
	"crypto/tls"
	"testing"
)

// TestForRun: a run's driver keeps d's whole configuration, an idle
// connection per job, at most hostConns connections, and pipelines; d
// itself is unchanged.
func TestForRun(t *testing.T) {
	tc := &tls.Config{ServerName: "x"}
	d := New(Config{TLSClientConfig: tc, DisableMLSD: true, MaxConnsPerHost: 8})
	r := d.ForRun(6, 3).(*Driver)
	if r == d || r.TLSClientConfig != tc || !r.DisableMLSD || !r.PipelinePassive || r.MaxIdleConnsPerHost != 6 || r.MaxConnsPerHost != 3 {
		t.Errorf("ForRun(6, 3) = %+v", r.Config)
	}
	if d.PipelinePassive || d.MaxIdleConnsPerHost != 0 || d.MaxConnsPerHost != 8 {
		t.Errorf("ForRun changed the driver: %+v", d.Config)
	}
	if r := New(Config{MaxIdleConnsPerHost: -1}).ForRun(4, 0).(*Driver); r.MaxIdleConnsPerHost != -1 || r.MaxConnsPerHost != 0 {
		t.Errorf("ForRun of a driver that keeps no connection = %+v", r.Config)
	}
}
