package probe

import (
	"context"
	"os"
	"sync"
	"syscall"

	"agentrun.dev/computerd/internal/isolate"
)

// Report is the probe's one JSON line.
type Report struct {
	UID    int    `json:"uid"`
	GID    int    `json:"gid"`
	Kernel string `json:"kernel"`
	// Interfaces are the ones up or addressed in the probe's network namespace: ["lo"] alone
	// under --own-network. A fallback tunnel left down with no address is not one.
	Interfaces []string `json:"interfaces"`
	Reached    []string `json:"reached"`  // the targets that answered
	Accepted   []string `json:"accepted"` // the TCP targets that accepted and sent nothing back
	Results    []Result `json:"results"`
	Verdict    string   `json:"verdict,omitempty"` // --diagnose's: egress, accepted-only or none
}

// Run checks every target at once within b and reports them, in the order given.
func Run(ctx context.Context, targets []Target, b Bounds) (Report, error) {
	ifs, err := isolate.Interfaces()
	if err != nil {
		return Report{}, err
	}
	r := Report{UID: os.Getuid(), GID: os.Getgid(), Kernel: kernelRelease(), Interfaces: isolate.Live(ifs),
		Reached: []string{}, Accepted: []string{}, Results: make([]Result, len(targets))}
	var wg sync.WaitGroup
	for i, t := range targets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.Results[i] = Check(ctx, t, b)
		}()
	}
	wg.Wait()
	for _, res := range r.Results {
		switch res.Outcome {
		case Answered:
			r.Reached = append(r.Reached, res.Target)
		case Accepted:
			r.Accepted = append(r.Accepted, res.Target)
		}
	}
	return r, nil
}

func kernelRelease() string {
	var u syscall.Utsname
	if syscall.Uname(&u) != nil {
		return ""
	}
	b := make([]byte, 0, len(u.Release))
	for _, c := range u.Release {
		if c == 0 {
			break
		}
		b = append(b, byte(c))
	}
	return string(b)
}
