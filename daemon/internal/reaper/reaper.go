package reaper

import (
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

var (
	// spawn is held (read) from a child's fork until it is watched, and (write) by the sweep,
	// so the sweep never takes a guard still being started for an orphan.
	spawn   sync.RWMutex
	mu      sync.Mutex
	all     bool
	waiters = map[int]chan syscall.WaitStatus{}
)

// Spawn starts a child with start and watches it, as one step for the sweep.
func Spawn(start func() (int, error)) (int, <-chan syscall.WaitStatus, error) {
	spawn.RLock()
	defer spawn.RUnlock()
	pid, err := start()
	if err != nil {
		return 0, nil, err
	}
	return pid, Watch(pid), nil
}

// Unwatched calls fn with a check of which pids are not watched children, while no child
// is being started.
func Unwatched(fn func(watched func(pid int) bool)) {
	spawn.Lock()
	defer spawn.Unlock()
	fn(Watched)
}

// Watch registers a child the caller started; its wait status comes on the channel once.
// Call it before the child can end (a guard waits for its spec first).
func Watch(pid int) <-chan syscall.WaitStatus {
	ch := make(chan syscall.WaitStatus, 1)
	mu.Lock()
	waiters[pid] = ch
	reapAll := all
	mu.Unlock()
	if !reapAll {
		// Outside init other code of the process may have children too: wait for this one only.
		go func() {
			var st syscall.WaitStatus
			for {
				_, err := syscall.Wait4(pid, &st, 0, nil)
				if err == syscall.EINTR {
					continue
				}
				break
			}
			deliver(pid, st)
		}()
	}
	return ch
}

// Watched reports whether pid is a registered child (a guard) still running.
func Watched(pid int) bool {
	mu.Lock()
	defer mu.Unlock()
	_, ok := waiters[pid]
	return ok
}

func deliver(pid int, st syscall.WaitStatus) bool {
	mu.Lock()
	ch, ok := waiters[pid]
	delete(waiters, pid)
	mu.Unlock()
	if ok {
		ch <- st
	}
	return ok
}

// ReapAll makes this process reap every child, on each SIGCHLD and once a second, and calls
// sweep after each pass (init's orphan sweep). For init alone: it takes every child's status.
func ReapAll(sweep func()) {
	mu.Lock()
	all = true
	mu.Unlock()
	sig := make(chan os.Signal, 16)
	signal.Notify(sig, syscall.SIGCHLD)
	tick := time.NewTicker(time.Second)
	go func() {
		for {
			for {
				var st syscall.WaitStatus
				pid, err := syscall.Wait4(-1, &st, syscall.WNOHANG, nil)
				if err == syscall.EINTR {
					continue
				}
				if pid <= 0 || err != nil {
					break
				}
				deliver(pid, st)
			}
			if sweep != nil {
				sweep()
			}
			select {
			case <-sig:
			case <-tick.C:
			}
		}
	}()
}
