//go:build race

package worker

// raceEnabled: the test binary runs under the race detector.
const raceEnabled = true
