package http

import "testing"

// TestForRun: a run's driver keeps connections alive; the driver it was
// made from is unchanged.
func TestForRun(t *testing.T) {
	d := New(Config{UserAgent: "ua"})
	r := d.ForRun(4, 2).(*Driver)
	if r == d || !r.KeepAlive || r.UserAgent != "ua" {
		t.Errorf("ForRun = %+v", r.Config)
	}
	if d.KeepAlive {
		t.Error("ForRun changed the driver")
	}
}
