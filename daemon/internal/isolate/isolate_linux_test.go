//go:build linux && (amd64 || arm64)

package isolate

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"agentrun.dev/computerd/internal/nocgo"
)

const childEnv = "ISOLATE_TEST_CHILD"

// childReport is what the isolated child saw, for the test to judge.
type childReport struct {
	Failed      string   `json:"failed,omitempty"`
	Network     string   `json:"network"`
	Threads     int      `json:"threads"`
	Live        []string `json:"live"`
	ControlTCP  string   `json:"controlTcp"`  // before the move: the test's listener answers
	TCP         string   `json:"tcp"`         // after: the same listener
	Abstract    string   `json:"abstract"`    // an abstract unix socket the test holds
	LaterThread string   `json:"laterThread"` // a thread made after the move
	Vsock       string   `json:"vsock"`
	IoUring     string   `json:"ioUring"`
	X32         string   `json:"x32"`
	Sys32       string   `json:"sys32"` // the 386 binary, run under the filter
}

func errnoOf(e syscall.Errno) string {
	if e == 0 {
		return "ok"
	}
	return errnoWords(e)
}

func dialResult(network, addr string) string {
	c, err := net.DialTimeout(network, addr, 3*time.Second)
	if err != nil {
		return "refused: " + err.Error()
	}
	c.Close()
	return "connected"
}

// isolatedChild enters its own network with many threads running, installs the filter, and
// reports what its calls get.
func isolatedChild() int {
	var r childReport
	tcp, abstract, sys32 := os.Getenv("ISOLATE_TCP"), os.Getenv("ISOLATE_ABSTRACT"), os.Getenv("ISOLATE_SYS32")
	r.ControlTCP = dialResult("tcp", tcp)
	// Threads locked and asleep, so the move has threads to miss.
	hold := make(chan struct{})
	for i := 0; i < 6; i++ {
		go func() { runtime.LockOSThread(); <-hold }()
	}
	time.Sleep(50 * time.Millisecond)
	n, err := EnterOwnNetwork()
	if err != nil {
		r.Failed = err.Error()
	} else if err := InstallFilter(); err != nil {
		r.Failed = err.Error()
	}
	r.Network, r.Threads = n.Namespace, n.Threads
	ifs, _ := Interfaces()
	r.Live = Live(ifs)
	r.TCP = dialResult("tcp", tcp)
	r.Abstract = dialResult("unix", "@"+abstract)
	later := make(chan string)
	go func() {
		runtime.LockOSThread()
		l, _ := os.Readlink("/proc/thread-self/ns/net")
		later <- l
		<-hold
	}()
	r.LaterThread = <-later
	_, _, e := syscall.RawSyscall(syscall.SYS_SOCKET, afVSOCK, syscall.SOCK_STREAM, 0)
	r.Vsock = errnoOf(e)
	var params [120]byte
	_, _, e = syscall.RawSyscall(425, 1, uintptr(unsafe.Pointer(&params)), 0)
	r.IoUring = errnoOf(e)
	if native.X32 != 0 {
		_, _, e = syscall.RawSyscall(uintptr(native.X32)|39, 0, 0, 0) // x32's getpid
		r.X32 = errnoOf(e)
	}
	if sys32 != "" {
		r.Sys32 = runSys32(sys32)
	}
	json.NewEncoder(os.Stdout).Encode(r)
	return 0
}

// runSys32 runs the 386 binary with a bound, and says what came of it.
func runSys32(bin string) string {
	cmd := exec.Command(bin)
	done := make(chan struct{})
	var out []byte
	go func() { out, _ = cmd.CombinedOutput(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-done
		return "hung, killed"
	}
	if strings.HasPrefix(string(out), "32-bit calls work") {
		return "ran: " + strings.TrimSpace(string(out))
	}
	return fmt.Sprintf("did not run (%v)", cmd.ProcessState)
}

// build386 builds testdata/sys32 for GOARCH=386, static; "" where there is no Go toolchain
// (the test binary run by hand in a container).
func build386(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Log("no go here to build the 386 program: its run under the filter is left to the container tests")
		return ""
	}
	bin := filepath.Join(t.TempDir(), "sys32")
	cmd := exec.Command("go", "build", "-o", bin, "./testdata/sys32")
	cmd.Env = append(os.Environ(), "GOARCH=386", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the 386 binary: %v\n%s", err, out)
	}
	return bin
}

func canIsolate(t *testing.T) {
	t.Helper()
	if nocgo.Linked() {
		t.Skip("this test binary links cgo (a -race build): the move needs one call on every thread")
	}
	task, err := readStatus("/proc/self/status")
	if err != nil {
		t.Skip(err)
	}
	if task.CapEff&(1<<capSysAdmin) == 0 || task.CapEff&(1<<capNetAdmin) == 0 {
		t.Skip("needs root with CAP_SYS_ADMIN and CAP_NET_ADMIN (docker run --cap-add SYS_ADMIN --cap-add NET_ADMIN)")
	}
}

// A process with threads asleep moves whole into a namespace of its own, lo up alone; after the
// filter, vsock and io_uring get EPERM and the other tables ENOSYS, and nothing outside its
// namespace is reached: a TCP listener and an abstract unix socket the test holds see only the
// control connection made before the move.
func TestEnterOwnNetworkAndFilter(t *testing.T) {
	canIsolate(t)
	var accepts atomic.Int32
	serve := func(l net.Listener) {
		t.Cleanup(func() { l.Close() })
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				accepts.Add(1)
				c.Write([]byte("hello\n"))
				c.Close()
			}
		}()
	}
	tl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	serve(tl)
	abstract := fmt.Sprintf("agentrun-isolate-test-%d", os.Getpid())
	ul, err := net.Listen("unix", "@"+abstract)
	if err != nil {
		t.Fatal(err)
	}
	serve(ul)
	sys32 := build386(t)
	control := "not built"
	if sys32 != "" {
		control = runSys32(sys32)
	}

	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), childEnv+"=1", "ISOLATE_TCP="+tl.Addr().String(), "ISOLATE_ABSTRACT="+abstract, "ISOLATE_SYS32="+sys32)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the isolated child: %v\n%s", err, out)
	}
	var r childReport
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("the child's report %q: %v", out, err)
	}
	t.Logf("the child: %+v; the 386 binary outside the filter: %s", r, control)
	if r.Failed != "" {
		t.Fatalf("the isolation failed: %s", r.Failed)
	}
	before, _ := os.Readlink("/proc/self/ns/net")
	if r.Network == "" || r.Network == before || r.LaterThread != r.Network || r.Threads < 7 {
		t.Errorf("namespaces: moved to %q from %q over %d threads; a later thread in %q", r.Network, before, r.Threads, r.LaterThread)
	}
	if strings.Join(r.Live, ",") != "lo" {
		t.Errorf("interfaces up or addressed: %v, want lo alone", r.Live)
	}
	if r.ControlTCP != "connected" {
		t.Errorf("the control connection before the move: %s", r.ControlTCP)
	}
	if !strings.HasPrefix(r.TCP, "refused") || !strings.HasPrefix(r.Abstract, "refused") {
		t.Errorf("after the move: tcp %s; abstract %s", r.TCP, r.Abstract)
	}
	if !strings.HasPrefix(r.Vsock, "EPERM") || !strings.HasPrefix(r.IoUring, "EPERM") {
		t.Errorf("vsock %s, io_uring_setup %s: want EPERM", r.Vsock, r.IoUring)
	}
	if native.X32 != 0 && !strings.HasPrefix(r.X32, "ENOSYS") {
		t.Errorf("an x32 call: %s, want ENOSYS", r.X32)
	}
	if strings.HasPrefix(control, "ran") {
		if strings.HasPrefix(r.Sys32, "ran") {
			t.Errorf("the 386 binary ran under the filter: %s", r.Sys32)
		}
	} else {
		t.Logf("this kernel runs no 32-bit x86 program (%s): the filter's verdict on them rests on TestProgramVerdicts", control)
	}
	if n := accepts.Load(); n != 1 {
		t.Errorf("the test's listeners saw %d connections, want the control's alone", n)
	}
}
