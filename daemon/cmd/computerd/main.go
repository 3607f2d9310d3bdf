// Command computerd is the daemon that runs in every computer.
package main

import (
	"fmt"
	"os"

	"agentrun.dev/computerd/internal/version"
)

func main() {
	if len(os.Args) == 2 && (os.Args[1] == "--version" || os.Args[1] == "version") {
		fmt.Println(version.Version)
		return
	}
	fmt.Fprintln(os.Stderr, "usage: computerd --version")
	os.Exit(2)
}
