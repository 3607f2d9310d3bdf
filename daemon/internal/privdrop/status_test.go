package privdrop

import (
	"errors"
	"io"
	"strings"
	"syscall"
	"testing"
	"testing/iotest"
)

const dropped = `Name:	computerd
Uid:	1000	1000	1000	1000
Gid:	1000	1000	1000	1000
Groups:	
NoNewPrivs:	1
CapInh:	0000000000000000
CapPrm:	0000000000000000
CapEff:	0000000000000000
CapBnd:	0000000000000000
CapAmb:	0000000000000000
`

func TestStatusReadBackNamesEveryShortfall(t *testing.T) {
	st, err := ParseStatus(strings.NewReader(dropped))
	if err != nil {
		t.Fatal(err)
	}
	if short := st.Check(1000, 1000); len(short) != 0 {
		t.Fatalf("a dropped status fell short: %v", short)
	}
	held := strings.NewReplacer("CapBnd:\t0000000000000000", "CapBnd:\t000001ffffffffff", "NoNewPrivs:\t1", "NoNewPrivs:\t0", "Groups:\t", "Groups:\t27").Replace(dropped)
	st, _ = ParseStatus(strings.NewReader(held))
	short := strings.Join(st.Check(1000, 1000), "; ")
	for _, want := range []string{"CapBnd is 000001ffffffffff", "NoNewPrivs is 0", "supplementary groups [27]"} {
		if !strings.Contains(short, want) {
			t.Errorf("the read-back %q does not name %q", short, want)
		}
	}
	if short := st.Check(0, 0); !strings.Contains(strings.Join(short, ";"), "a uid is 1000, not 0") {
		t.Errorf("the uid check: %v", short)
	}
	// A field not reported fails the read-back rather than passing it.
	if _, err := ParseStatus(strings.NewReader(strings.Replace(dropped, "CapInh:\t0000000000000000\n", "", 1))); err == nil {
		t.Fatal("a status without CapInh was read back as fine")
	}
	// gVisor's status has no CapAmb nor NoNewPrivs: short until they are filled from the kernel.
	gvisor := strings.NewReplacer("CapAmb:\t0000000000000000\n", "", "NoNewPrivs:\t1\n", "").Replace(dropped)
	st, err = ParseStatus(strings.NewReader(gvisor))
	if err != nil {
		t.Fatal(err)
	}
	if short := strings.Join(st.Check(1000, 1000), "; "); !strings.Contains(short, "CapAmb is not reported") || !strings.Contains(short, "NoNewPrivs is not reported") {
		t.Fatalf("gVisor's status before the fill: %q", short)
	}
	st.Fill("CapAmb", 0)
	st.Fill("NoNewPrivs", 0)
	if short := strings.Join(st.Check(1000, 1000), "; "); short != "NoNewPrivs is 0" {
		t.Fatalf("gVisor's status filled with NoNewPrivs 0: %q", short)
	}
}

// The fields package isolate reads: the name, and the seccomp mode and filter count (-1 on a
// kernel before 5.9, which does not count them).
func TestStatusNameAndSeccomp(t *testing.T) {
	st, err := ParseStatus(strings.NewReader(dropped + "Seccomp:\t2\nSeccomp_filters:\t1\n"))
	if err != nil || st.Name != "computerd" || st.Seccomp != 2 || st.SeccompFilters != 1 {
		t.Fatalf("%+v %v", st, err)
	}
	st, err = ParseStatus(strings.NewReader(dropped + "Seccomp:\t0\n"))
	if err != nil || st.Seccomp != 0 || st.SeccompFilters != -1 {
		t.Fatalf("no Seccomp_filters: %+v %v", st, err)
	}
	if _, err := ParseStatus(strings.NewReader(dropped + "Seccomp:\tfilter\n")); err == nil {
		t.Fatal("a Seccomp of words read as fine")
	}
}

func TestCapName(t *testing.T) {
	if CapName(21) != "CAP_SYS_ADMIN" || CapName(8) != "CAP_SETPCAP" || CapName(63) != "capability 63" {
		t.Fatal(CapName(21), CapName(8), CapName(63))
	}
}

// A read that fails is that failure, never a status with no fields: an empty read-back said
// "status has no CapInh field" of a task that had only ended.
func TestStatusCarriesItsReadError(t *testing.T) {
	torn := io.MultiReader(strings.NewReader("Name:\tcomputerd\nUid:\t0\t0\t0\t0\n"), iotest.ErrReader(syscall.ESRCH))
	_, err := ParseStatus(torn)
	if !errors.Is(err, syscall.ESRCH) || !TaskEnded(err) {
		t.Fatalf("a read that failed with ESRCH: %v", err)
	}
	_, err = ParseStatus(iotest.ErrReader(syscall.EIO))
	if !errors.Is(err, syscall.EIO) || TaskEnded(err) {
		t.Fatalf("a read that failed with EIO: %v", err)
	}
}
