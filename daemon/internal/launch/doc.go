// Package launch turns a caller's cwd, env and user into what a guard runs with: the
// environment rule, the user looked up in /etc/passwd, and the capability check for a switch.
package launch
