//go:build unix && !linux

package nodetest

import "syscall"

// setPdeathsig does nothing where the kernel has no parent-death signal; the
// server may still exit when its stdin closes.
func setPdeathsig(*syscall.SysProcAttr) {}
