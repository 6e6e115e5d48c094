//go:build !cgo

package store

// stablePlans is SQLite configuration through cgo (qpsg_cgo.go).
func stablePlans() {}
