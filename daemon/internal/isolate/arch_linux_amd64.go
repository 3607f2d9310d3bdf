package isolate

// The syscall package has no SYS_SETNS or SYS_SECCOMP for amd64.
const (
	sysSetns   = 308
	sysSeccomp = 317
)

var native = Amd64
