package http

import (
	"crypto/tls"
	"testing"
)

// Clone keeps every setting of the Config; the clone's changes do not
// reach the original.
func TestCloneKeepsConfig(t *testing.T) {
	c := Config{
		TLSClientConfig: &tls.Config{ServerName: "x", MinVersion: tls.VersionTLS12},
		UserAgent:       "agent/1",
		KeepAlive:       true,
	}
	d := New(c)
	if d.Config != c {
		t.Fatalf("New(c).Config = %+v, want %+v", d.Config, c)
	}
	cl := d.Clone()
	if cl == d || cl.Config != c {
		t.Fatalf("Clone = %p %+v, want a new driver with %+v", cl, cl.Config, c)
	}
	cl.KeepAlive = false
	if !d.KeepAlive {
		t.Errorf("the clone shares its Config with the original")
	}
}
