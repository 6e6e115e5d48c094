//go:build !unix

package e2e

import "os/exec"

// setProcessGroup keeps exec's default cancel (kill the client only) where
// process groups are not available.
func setProcessGroup(cmd *exec.Cmd) {}
