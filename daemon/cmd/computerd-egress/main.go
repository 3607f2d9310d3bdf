// Command computerd-egress is the egress proxy (package egress), a binary of its own in the proxy's
// image: the TLS it terminates for hosts with rules or credentials would not fit computerd's size
// bound, and no computer needs it. Its argv keeps computerd's subcommand form, `egress ...`.
package main

import (
	"fmt"
	"os"

	"agentrun.dev/computerd/internal/egress"
	"agentrun.dev/computerd/internal/version"
)

const usage = `usage:
  ` + egress.Usage + `
  computerd-egress --version`

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
	case "egress":
		return egress.Main(args[1:], os.Stdout, os.Stderr)
	}
	fmt.Fprintf(os.Stderr, "computerd-egress: unknown command %q\n%s\n", args[0], usage)
	return 2
}
