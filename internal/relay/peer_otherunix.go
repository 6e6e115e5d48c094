//go:build unix && !linux && !darwin && !freebsd

package relay

// checkPeer cannot identify a socket's peer without cgo on this system, so
// the worker is trusted as before this check existed: the socket's 0700
// folder is the only guard. Linux checks uid and program; darwin and
// FreeBSD the uid.
func checkPeer(s int, daemon string) error { return nil }
