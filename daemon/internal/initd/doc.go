// Package initd is `computerd init`: the computer's first process. It checks the socket's
// directory, listens, serves every connection with one daemon (with --stdio, one client over its
// own stdin and stdout too), reaps and sweeps orphans, and shuts down on SIGTERM, SIGINT or its
// deadline.
package initd
