//go:build race

package hookrun_test

// raceEnabled: the race detector slows code 2-20×, so timing assertions
// do not hold under it.
const raceEnabled = true
