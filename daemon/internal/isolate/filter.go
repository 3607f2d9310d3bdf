package isolate

// The seccomp filter, as classic BPF over struct seccomp_data {nr int32; arch uint32;
// instruction_pointer uint64; args [6]uint64}. Built here for either architecture from its
// numbers, so a test holds both tables whatever the host is.

// Instr is one BPF instruction (struct sock_filter).
type Instr struct {
	Code   uint16
	Jt, Jf uint8
	K      uint32
}

// Arch is what the filter needs to know of an architecture.
type Arch struct {
	Name      string
	AuditArch uint32 // the only arch value let through; every other table gets ENOSYS
	// X32 is the bit that marks the x32 table on amd64 (0x40000000); 0 where there is none.
	X32          uint32
	Socket       uint32
	IoUringSetup uint32
}

const (
	bpfLdWAbs = 0x20 // BPF_LD | BPF_W | BPF_ABS
	bpfJeqK   = 0x15 // BPF_JMP | BPF_JEQ | BPF_K
	bpfJgeK   = 0x35 // BPF_JMP | BPF_JGE | BPF_K
	bpfRetK   = 0x06 // BPF_RET | BPF_K

	offNr   = 0
	offArch = 4
	offArg0 = 16 // args[0]'s low 32 bits on a little-endian machine: socket's family is an int

	retAllow = 0x7fff0000 // SECCOMP_RET_ALLOW
	retErrno = 0x00050000 // SECCOMP_RET_ERRNO | errno
	ePERM    = 1
	eNOSYS   = 38
	afVSOCK  = 40
)

var (
	// Amd64's 32-bit x86 calls arrive with AUDIT_ARCH_I386, and x32's with the X32 bit set.
	Amd64 = Arch{Name: "amd64", AuditArch: 0xc000003e, X32: 0x40000000, Socket: 41, IoUringSetup: 425}
	// Arm64's 32-bit ARM calls arrive with AUDIT_ARCH_ARM.
	Arm64 = Arch{Name: "arm64", AuditArch: 0xc00000b7, Socket: 198, IoUringSetup: 425}
)

// Program is the filter for a: another architecture or table gets ENOSYS, io_uring_setup and
// socket(AF_VSOCK, ...) get EPERM, and everything else is allowed.
func Program(a Arch) []Instr {
	var p []Instr
	// Jumps are forward offsets; the three returns close the program in this order.
	const (
		allow = iota
		eperm
		enosys
	)
	type jump struct {
		at     int
		target int // one of the returns
		onTrue bool
	}
	var jumps []jump
	emit := func(i Instr) int { p = append(p, i); return len(p) - 1 }
	jumpTo := func(code uint16, k uint32, target int, onTrue bool) {
		jumps = append(jumps, jump{emit(Instr{Code: code, K: k}), target, onTrue})
	}

	emit(Instr{Code: bpfLdWAbs, K: offArch})
	jumpTo(bpfJeqK, a.AuditArch, enosys, false)
	emit(Instr{Code: bpfLdWAbs, K: offNr})
	if a.X32 != 0 {
		jumpTo(bpfJgeK, a.X32, enosys, true)
	}
	jumpTo(bpfJeqK, a.IoUringSetup, eperm, true)
	jumpTo(bpfJeqK, a.Socket, allow, false)
	emit(Instr{Code: bpfLdWAbs, K: offArg0})
	jumpTo(bpfJeqK, afVSOCK, eperm, true)
	rets := map[int]int{
		allow:  emit(Instr{Code: bpfRetK, K: retAllow}),
		eperm:  emit(Instr{Code: bpfRetK, K: retErrno | ePERM}),
		enosys: emit(Instr{Code: bpfRetK, K: retErrno | eNOSYS}),
	}
	for _, j := range jumps {
		off := uint8(rets[j.target] - j.at - 1)
		if j.onTrue {
			p[j.at].Jt = off
		} else {
			p[j.at].Jf = off
		}
	}
	return p
}
