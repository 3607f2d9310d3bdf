package sysx

const (
	sysRenameat2 = 276
	sysFstatat   = 79
)
