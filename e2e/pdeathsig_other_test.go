//go:build e2e && !linux

package e2e

import "syscall"

// setPdeathsig does nothing where the kernel has no parent-death signal.
func setPdeathsig(*syscall.SysProcAttr) {}
