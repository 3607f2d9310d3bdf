//go:build linux && (amd64 || arm64)

package isolate

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"unsafe"
)

const (
	capNetAdmin = 12
	capSysAdmin = 21
)

// Network is what EnterOwnNetwork read back.
type Network struct {
	Namespace string   // such as net:[4026532281]
	Threads   int      // how many threads the read-back found in it
	Down      []string // interfaces other than lo, down with no address (fallback tunnels)
}

func (n Network) String() string {
	s := fmt.Sprintf("every thread (%d) in the network namespace %s, its loopback alone up", n.Threads, n.Namespace)
	if len(n.Down) > 0 {
		s += "; down with no address, as the kernel made them: " + strings.Join(n.Down, ", ")
	}
	return s
}

const needCaps = "--own-network needs root holding CAP_SYS_ADMIN and CAP_NET_ADMIN (a virtual machine's root, or a container run with --cap-add SYS_ADMIN --cap-add NET_ADMIN)"

// EnterOwnNetwork moves every thread of the process into one new network namespace and brings
// its loopback up, then reads back that no thread stayed behind and that the loopback alone is
// up or addressed. Any shortfall is an error: init then refuses to start.
func EnterOwnNetwork() (Network, error) {
	if err := checkCaps(); err != nil {
		return Network{}, err
	}
	before, err := os.Readlink("/proc/thread-self/ns/net")
	if err != nil {
		return Network{}, fmt.Errorf("reading the network namespace init started in: %w", err)
	}
	if err := moveAllThreads(); err != nil {
		return Network{}, err
	}
	if err := loopbackUp(); err != nil {
		return Network{}, err
	}
	links, err := threadNamespaces()
	if err != nil {
		return Network{}, err
	}
	ns, err := CheckThreads(links, before)
	if err != nil {
		return Network{}, err
	}
	ifs, err := Interfaces()
	if err != nil {
		return Network{}, err
	}
	down, err := CheckLoopbackAlone(ifs)
	if err != nil {
		return Network{}, err
	}
	return Network{Namespace: ns, Threads: len(links), Down: down}, nil
}

// checkCaps names what is missing before anything is tried.
func checkCaps() error {
	t, err := readStatus("/proc/thread-self/status")
	if err != nil {
		return fmt.Errorf("reading init's capabilities: %w", err)
	}
	var missing []string
	for _, c := range []struct {
		bit  uint
		name string
	}{{capSysAdmin, "CAP_SYS_ADMIN"}, {capNetAdmin, "CAP_NET_ADMIN"}} {
		if t.CapEff&(1<<c.bit) == 0 {
			missing = append(missing, c.name)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%s, and this init holds no %s: the computer fails closed", needCaps, strings.Join(missing, " and no "))
	}
	return nil
}

// moveAllThreads makes a namespace on this thread and joins every other thread to it. An
// unshare on each would give each thread a namespace of its own, so one thread makes it and
// setns, run on all threads at once by the runtime, joins them: threads made later are cloned
// from one of them and inherit it, and so does every process init starts.
func moveAllThreads() error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if _, _, e := syscall.RawSyscall(syscall.SYS_UNSHARE, syscall.CLONE_NEWNET, 0, 0); e != 0 {
		return fmt.Errorf("making a network namespace (unshare CLONE_NEWNET): %s: %s", errnoWords(e), needCaps)
	}
	fd, err := syscall.Open("/proc/thread-self/ns/net", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("opening the new network namespace: %w", err)
	}
	defer syscall.Close(fd)
	_, _, e := syscall.AllThreadsSyscall(sysSetns, uintptr(fd), syscall.CLONE_NEWNET, 0)
	if e == syscall.ENOTSUP {
		return errors.New("this computerd links cgo, so one call cannot reach every thread (ENOTSUP) and its threads cannot all be moved: build it with CGO_ENABLED=0")
	}
	if e != 0 {
		return fmt.Errorf("moving every thread into the new network namespace (setns): %s", errnoWords(e))
	}
	return nil
}

// loopbackUp sets IFF_UP on lo by ioctl on a socket of the new namespace.
func loopbackUp() error {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("opening a socket to bring lo up: %w", err)
	}
	defer syscall.Close(fd)
	var ifr struct {
		name  [syscall.IFNAMSIZ]byte
		flags uint16
		_     [22]byte
	}
	copy(ifr.name[:], "lo")
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.SIOCGIFFLAGS, uintptr(unsafe.Pointer(&ifr))); e != 0 {
		return fmt.Errorf("reading lo's flags (SIOCGIFFLAGS): %s", errnoWords(e))
	}
	ifr.flags |= syscall.IFF_UP
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.SIOCSIFFLAGS, uintptr(unsafe.Pointer(&ifr))); e != 0 {
		return fmt.Errorf("bringing lo up (SIOCSIFFLAGS): %s: %s", errnoWords(e), needCaps)
	}
	return nil
}

// threadNamespaces reads every thread's network namespace; a thread that ended is left out.
func threadNamespaces() (map[string]string, error) {
	paths, err := filepath.Glob("/proc/self/task/*/ns/net")
	if err != nil {
		return nil, err
	}
	links := map[string]string{}
	for _, p := range paths {
		l, err := os.Readlink(p)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			return nil, fmt.Errorf("reading %s: %w", p, err)
		}
		links[filepath.Base(filepath.Dir(filepath.Dir(p)))] = l
	}
	return links, nil
}

func errnoWords(e syscall.Errno) string {
	names := map[syscall.Errno]string{syscall.EPERM: "EPERM", syscall.EINVAL: "EINVAL", syscall.ENOSYS: "ENOSYS", syscall.EACCES: "EACCES", syscall.ENOMEM: "ENOMEM", syscall.EFAULT: "EFAULT", syscall.ESRCH: "ESRCH", syscall.EBUSY: "EBUSY"}
	if n, ok := names[e]; ok {
		return fmt.Sprintf("%s (%v)", n, e)
	}
	return e.Error()
}
