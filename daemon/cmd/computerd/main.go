// Command computerd is the daemon that runs in every computer.
package main

import (
	"fmt"
	"os"

	"agentrun.dev/computerd/internal/bridge"
	"agentrun.dev/computerd/internal/guard"
	"agentrun.dev/computerd/internal/initd"
	"agentrun.dev/computerd/internal/judge"
	"agentrun.dev/computerd/internal/probe"
	"agentrun.dev/computerd/internal/procctl"
	"agentrun.dev/computerd/internal/sums"
	"agentrun.dev/computerd/internal/version"
	"agentrun.dev/computerd/internal/windows"
)

const usage = `usage:
  computerd init --deadline <time> [--max-deadline <time>] [--user uid:gid [--own-network | --loopback-alone]] [--egress <sock>]
  computerd stdio
  ` + probe.Usage + `
  ` + windows.Usage + `
  ` + sums.Usage + `
  ` + judge.Usage + `
  computerd --version`

func main() {
	os.Exit(dispatch(os.Args[1:]))
}

func dispatch(args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, usage)
		return 2
	}
	switch args[0] {
	case "--help", "-h", "help":
		fmt.Println(usage)
		return 0
	case "--version", "version":
		fmt.Println(version.Version)
		return 0
	case "init":
		return initd.Main(args[1:])
	case "stdio":
		if len(args) != 1 {
			fmt.Fprintln(os.Stderr, usage)
			return 2
		}
		// The bridge carries the protocol over its stdin and stdout: the computer's programs, as
		// the same user, must not open them through /proc.
		if err := procctl.NotDumpable(); err != nil {
			fmt.Fprintln(os.Stderr, "computerd stdio:", err)
			return 1
		}
		return bridge.Run(initd.SocketPath(), os.Stdin, os.Stdout, os.Stderr)
	case "probe":
		return probe.Main(args[1:], os.Stdout, os.Stderr)
	case "window":
		return windows.Main(args[1:], os.Stdout, os.Stderr)
	case "sums":
		return sums.Main(args[1:], os.Stdout, os.Stderr)
	case "judge":
		return judge.Main(args[1:], os.Stdout, os.Stderr)
	case "guard":
		// Started by the daemon itself, with its pipes on fds 3 and 4.
		return guard.Main()
	}
	fmt.Fprintf(os.Stderr, "computerd: unknown command %q\n%s\n", args[0], usage)
	return 2
}
