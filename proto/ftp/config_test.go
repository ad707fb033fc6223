package ftp

import (
	"crypto/tls"
	"testing"
	"time"
)

// Clone keeps every setting of the Config and shares no pool: the clone's
// changes do not reach the original.
func TestCloneKeepsConfig(t *testing.T) {
	c := Config{
		MaxConnsPerHost:     3,
		MaxIdleConnsPerHost: -1,
		IdleConnTimeout:     time.Minute,
		MaxReplyLine:        100,
		MaxListing:          1000,
		PipelinePassive:     true,
		DisableMLSD:         true,
		TLSClientConfig:     &tls.Config{ServerName: "x", MinVersion: tls.VersionTLS12},
	}
	d := New(c)
	if d.Config != c {
		t.Fatalf("New(c).Config = %+v, want %+v", d.Config, c)
	}
	cl := d.Clone()
	if cl == d || cl.Config != c {
		t.Fatalf("Clone = %p %+v, want a new driver with %+v", cl, cl.Config, c)
	}
	cl.MaxConnsPerHost = 9
	if cl.pool() == d.pool() || d.MaxConnsPerHost != 3 {
		t.Errorf("the clone shares its pool or its Config with the original")
	}
	var zero Driver
	if zero.Clone().Config != (Config{}) {
		t.Errorf("the zero Driver's clone is not the zero Config")
	}
}
