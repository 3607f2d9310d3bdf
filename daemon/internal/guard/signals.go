package guard

import (
	"strconv"
	"syscall"
)

var names = map[syscall.Signal]string{
	syscall.SIGHUP: "HUP", syscall.SIGINT: "INT", syscall.SIGQUIT: "QUIT", syscall.SIGILL: "ILL",
	syscall.SIGTRAP: "TRAP", syscall.SIGABRT: "ABRT", syscall.SIGBUS: "BUS", syscall.SIGFPE: "FPE",
	syscall.SIGKILL: "KILL", syscall.SIGUSR1: "USR1", syscall.SIGSEGV: "SEGV", syscall.SIGUSR2: "USR2",
	syscall.SIGPIPE: "PIPE", syscall.SIGALRM: "ALRM", syscall.SIGTERM: "TERM", syscall.SIGSTKFLT: "STKFLT",
	syscall.SIGCHLD: "CHLD", syscall.SIGCONT: "CONT", syscall.SIGSTOP: "STOP", syscall.SIGTSTP: "TSTP",
	syscall.SIGTTIN: "TTIN", syscall.SIGTTOU: "TTOU", syscall.SIGURG: "URG", syscall.SIGXCPU: "XCPU",
	syscall.SIGXFSZ: "XFSZ", syscall.SIGVTALRM: "VTALRM", syscall.SIGPROF: "PROF", syscall.SIGWINCH: "WINCH",
	syscall.SIGIO: "IO", syscall.SIGPWR: "PWR", syscall.SIGSYS: "SYS",
}

// SignalName names a signal without SIG ("TERM"); one with no name is its number ("63").
func SignalName(s syscall.Signal) string {
	if n, ok := names[s]; ok {
		return n
	}
	return strconv.Itoa(int(s))
}

// Sendable is the signals a caller may send a process by name.
var Sendable = map[string]syscall.Signal{"TERM": syscall.SIGTERM, "INT": syscall.SIGINT, "KILL": syscall.SIGKILL, "HUP": syscall.SIGHUP}
