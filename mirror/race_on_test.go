//go:build race

package mirror

// raceDetector reports that the test binary runs with the race detector,
// whose shadow memory grows the resident set several times over.
const raceDetector = true
