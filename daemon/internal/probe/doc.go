// Package probe is `computerd probe`: it reads the computer's network from inside. Each
// --connect target (host:port over TCP, host:port/udp a DNS query over UDP) gets a request by
// its port, and reads refused, accepted (a TCP connection and nothing back) or answered (any
// byte back); one JSON line reports them with the uid, gid, kernel release and the interfaces
// that are up or addressed. --diagnose runs the spec's fixed checks and gives a verdict.
package probe
