//go:build !(linux && cgo)

package store

// keepFreedMemory is glibc tuning (malloc_glibc.go); other C libraries keep
// their defaults.
func keepFreedMemory() {}
