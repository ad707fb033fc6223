package proto

// A Runner is a driver that makes, for a run of many fetches from one
// server by several workers (a mirror), a driver of its own configuration
// tuned for the run: its own connection pool, which the run closes at its
// end (IdleCloser).
type Runner interface {
	// ForRun returns the run's driver, for jobs workers (jobs > 0)
	// holding at most hostConns connections to the server when
	// hostConns > 0.
	ForRun(jobs, hostConns int) Driver
}
