//go:build e2e && linux

package e2e

import "syscall"

// setPdeathsig makes the kernel kill the server if the test binary dies
// (e.g. on a go test timeout, when no cleanup runs).
func setPdeathsig(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGKILL }
