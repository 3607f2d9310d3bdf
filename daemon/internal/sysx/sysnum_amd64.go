package sysx

const (
	sysRenameat2 = 316
	sysFstatat   = 262 // newfstatat
)
