// Package egress is `computerd egress`: an allowlisted computer's egress proxy, in a
// container of its own beside the computer. It reads its list, deadline, the Docker host's
// own addresses and hint from its argv (the list from a file instead with --allow-file, read
// again while it runs: listfile.go; its rules, hint and credentials from files beside it, read
// again with it: settingsfile.go), listens on a Unix socket in the egress volume, prints
// its ready line, and forwards what the list allows until its deadline (package proxy).
package egress
