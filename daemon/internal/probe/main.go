package probe

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
)

// Usage is the probe's line in computerd's usage.
const Usage = "computerd probe [--connect <host:port>[/udp]]... | computerd probe --diagnose"

// Main runs `computerd probe args`: one JSON line on stdout and 0, or words on stderr and 2
// for bad input (1 when the interfaces cannot be read).
func Main(args []string, stdout, stderr io.Writer) int {
	return run(context.Background(), args, stdout, stderr, DiagnoseHosts)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer, diagnoseHosts []string) int {
	var targets []Target
	fs := flag.NewFlagSet("computerd probe", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	seen := map[string]bool{}
	var bad error // the target's own words, rather than the flag package's wrapping of them
	fs.Func("connect", "", func(s string) error {
		t, err := ParseTarget(s)
		switch {
		case err != nil:
			bad = err
		case seen[t.String()]:
			bad = fmt.Errorf("--connect %s is given twice", t)
		case len(targets) == MaxTargets:
			bad = fmt.Errorf("more than %d --connect targets: a probe takes at most %d", MaxTargets, MaxTargets)
		default:
			seen[t.String()] = true
			targets = append(targets, t)
		}
		return bad
	})
	diagnose := fs.Bool("diagnose", false, "")
	refuse := func(err error) int {
		if bad != nil {
			err = bad
		}
		fmt.Fprintf(stderr, "computerd probe: %s\nusage: %s\n", err, Usage)
		return 2
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stdout, "usage:", Usage)
			return 0
		}
		return refuse(err)
	}
	if fs.NArg() > 0 {
		return refuse(fmt.Errorf("unexpected argument %q", clip(fs.Arg(0))))
	}
	b := ConnectBounds
	if *diagnose {
		if len(targets) > 0 {
			return refuse(errors.New("--diagnose takes no --connect: its checks are fixed"))
		}
		targets, b = diagnosePlan(diagnoseHosts), DiagnoseBounds
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DiagnoseTotal)
		defer cancel()
	}
	r, err := Run(ctx, targets, b)
	if err != nil {
		fmt.Fprintln(stderr, "computerd probe:", err)
		return 1
	}
	if *diagnose {
		r.Verdict = Verdict(r)
	}
	line, _ := json.Marshal(r)
	fmt.Fprintf(stdout, "%s\n", line)
	return 0
}
