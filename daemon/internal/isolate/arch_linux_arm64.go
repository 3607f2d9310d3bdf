package isolate

import "syscall"

const (
	sysSetns   = syscall.SYS_SETNS
	sysSeccomp = syscall.SYS_SECCOMP
)

var native = Arm64
