// Package initd is `computerd init`: the computer's first process. It checks the socket's
// directory, listens, serves every connection with one daemon, reaps and sweeps orphans, and
// shuts down on SIGTERM, SIGINT or its deadline.
package initd
