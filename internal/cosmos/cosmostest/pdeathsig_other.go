//go:build unix && !linux

package cosmostest

import "syscall"

// setPdeathsig does nothing where the kernel has no parent-death signal; the
// launcher still exits when its stdin closes.
func setPdeathsig(*syscall.SysProcAttr) {}
