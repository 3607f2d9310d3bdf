package isolate

import (
	"reflect"
	"testing"
)

// The filter's instructions, held to a table for each architecture.
func TestProgramInstructions(t *testing.T) {
	for _, tc := range []struct {
		arch Arch
		want []Instr
	}{
		{Amd64, []Instr{
			{0x20, 0, 0, 4},          // load arch
			{0x15, 0, 8, 0xc000003e}, // not x86_64: ENOSYS
			{0x20, 0, 0, 0},          // load nr
			{0x35, 6, 0, 0x40000000}, // the x32 table: ENOSYS
			{0x15, 4, 0, 425},        // io_uring_setup: EPERM
			{0x15, 0, 2, 41},         // not socket: allow
			{0x20, 0, 0, 16},         // load the family
			{0x15, 1, 0, 40},         // AF_VSOCK: EPERM
			{0x06, 0, 0, 0x7fff0000}, // allow
			{0x06, 0, 0, 0x00050001}, // EPERM
			{0x06, 0, 0, 0x00050026}, // ENOSYS
		}},
		{Arm64, []Instr{
			{0x20, 0, 0, 4},
			{0x15, 0, 7, 0xc00000b7},
			{0x20, 0, 0, 0},
			{0x15, 4, 0, 425},
			{0x15, 0, 2, 198},
			{0x20, 0, 0, 16},
			{0x15, 1, 0, 40},
			{0x06, 0, 0, 0x7fff0000},
			{0x06, 0, 0, 0x00050001},
			{0x06, 0, 0, 0x00050026},
		}},
	} {
		if got := Program(tc.arch); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: the filter is\n%v\nwant\n%v", tc.arch.Name, got, tc.want)
		}
	}
}

// run interprets the filter's few opcodes over one seccomp_data, as the kernel would.
func run(t *testing.T, p []Instr, nr, arch uint32, arg0 uint64) uint32 {
	t.Helper()
	var acc uint32
	for pc := 0; pc < len(p); pc++ {
		in := p[pc]
		switch in.Code {
		case bpfLdWAbs:
			switch in.K {
			case offNr:
				acc = nr
			case offArch:
				acc = arch
			case offArg0:
				acc = uint32(arg0)
			default:
				t.Fatalf("load of offset %d", in.K)
			}
		case bpfJeqK, bpfJgeK:
			hit := acc == in.K
			if in.Code == bpfJgeK {
				hit = acc >= in.K
			}
			if hit {
				pc += int(in.Jt)
			} else {
				pc += int(in.Jf)
			}
		case bpfRetK:
			return in.K
		default:
			t.Fatalf("opcode %#x", in.Code)
		}
	}
	t.Fatal("the filter ran off its end")
	return 0
}

func TestProgramVerdicts(t *testing.T) {
	const i386, arm = 0x40000003, 0x40000028
	allow, eperm, enosys := uint32(retAllow), uint32(retErrno|ePERM), uint32(retErrno|eNOSYS)
	for _, tc := range []struct {
		name string
		a    Arch
		nr   uint32
		arch uint32
		arg0 uint64
		want uint32
	}{
		{"amd64 read", Amd64, 0, Amd64.AuditArch, 0, allow},
		{"amd64 socket(AF_INET)", Amd64, 41, Amd64.AuditArch, 2, allow},
		{"amd64 socket(AF_UNIX)", Amd64, 41, Amd64.AuditArch, 1, allow},
		{"amd64 socket(AF_VSOCK)", Amd64, 41, Amd64.AuditArch, 40, eperm},
		{"amd64 socket(AF_VSOCK) with junk above the int", Amd64, 41, Amd64.AuditArch, 0xffffffff00000028, eperm},
		{"amd64 io_uring_setup", Amd64, 425, Amd64.AuditArch, 0, eperm},
		{"amd64 io_uring_enter (no ring to enter)", Amd64, 426, Amd64.AuditArch, 0, allow},
		{"amd64 the x32 table's socket", Amd64, 0x40000000 | 41, Amd64.AuditArch, 2, enosys},
		{"amd64 the x32 table's read", Amd64, 0x40000000, Amd64.AuditArch, 0, enosys},
		{"32-bit x86 getpid", Amd64, 20, i386, 0, enosys},
		{"32-bit x86 socketcall", Amd64, 102, i386, 1, enosys},
		{"arm64 socket(AF_INET6)", Arm64, 198, Arm64.AuditArch, 10, allow},
		{"arm64 socket(AF_VSOCK)", Arm64, 198, Arm64.AuditArch, 40, eperm},
		{"arm64 io_uring_setup", Arm64, 425, Arm64.AuditArch, 0, eperm},
		{"arm64 read", Arm64, 63, Arm64.AuditArch, 0, allow},
		{"32-bit ARM socket", Arm64, 281, arm, 40, enosys},
		{"amd64's numbers on an arm64 filter", Arm64, 41, Amd64.AuditArch, 40, enosys},
	} {
		if got := run(t, Program(tc.a), tc.nr, tc.arch, tc.arg0); got != tc.want {
			t.Errorf("%s: %#x, want %#x", tc.name, got, tc.want)
		}
	}
}
