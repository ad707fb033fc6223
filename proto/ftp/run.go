package ftp

import "github.com/rfc1738/fetch/proto"

var _ proto.Runner = (*Driver)(nil)

// ForRun returns a driver with d's configuration (all of it: TLS, listing
// commands, bounds) that keeps a logged-in connection idle for each of the
// run's jobs, since each worker keeps its own control connection: with
// the default of two, the workers of a run of eight would log in again
// and again. It holds at most hostConns connections to a server when that
// is set. Its workers retrieve file after file on each connection, so it
// pipelines the passive-mode commands (PipelinePassive).
func (d *Driver) ForRun(jobs, hostConns int) proto.Driver {
	m := d.Clone()
	if m.MaxIdleConnsPerHost >= 0 {
		m.MaxIdleConnsPerHost = max(m.MaxIdleConnsPerHost, jobs)
	}
	if hostConns > 0 && (m.MaxConnsPerHost <= 0 || m.MaxConnsPerHost > hostConns) {
		m.MaxConnsPerHost = hostConns
	}
	m.PipelinePassive = true
	return m
}
