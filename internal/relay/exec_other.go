//go:build !unix

package relay

import "errors"

// execHandler is not available here; the handler runs as a child process.
func execHandler(string, string, []byte) error { return errors.New("exec not supported") }
