package http

import "github.com/rfc1738/fetch/proto"

var _ proto.Runner = (*Driver)(nil)

// ForRun returns a driver with d's configuration that keeps connections
// alive: an index tree is many small files from one server.
func (d *Driver) ForRun(jobs, hostConns int) proto.Driver {
	m := d.Clone()
	m.KeepAlive = true
	return m
}
