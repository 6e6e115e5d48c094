//go:build !race

package hookrun_test

const raceEnabled = false
