//go:build !unix

package main

// restartTuned does nothing where a process cannot execute another program
// in its place: the worker then runs with Go's monitor as Go starts it
// (internal/worker/sched.go), on one processor all the same.
func restartTuned(string) error { return nil }
