//go:build !race

package mirror

// raceEnabled reports whether the test binary runs with the race
// detector, whose shadow memory multiplies a process's resident set.
const raceEnabled = false
