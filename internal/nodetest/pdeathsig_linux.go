package nodetest

import "syscall"

// setPdeathsig makes the kernel kill the server if the test binary dies.
func setPdeathsig(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGKILL }
