package probe

import "time"

// DiagnoseHosts are --diagnose's addresses: three public resolvers and Fastly's anycast edge,
// which is no resolver.
var DiagnoseHosts = []string{"1.1.1.1", "8.8.8.8", "9.9.9.9", "151.101.1.57"}

// DiagnoseBounds: 3 s to connect, 3 s to answer, 4 KiB read per check; DiagnoseTotal for all.
var (
	DiagnoseBounds = Bounds{Connect: 3 * time.Second, Answer: 3 * time.Second, Read: 4096}
	DiagnoseTotal  = 15 * time.Second
)

// diagnosePlan is each host on 443/tcp (a ClientHello), 80/tcp (HEAD /) and 53/udp (a query).
func diagnosePlan(hosts []string) []Target {
	var out []Target
	for _, h := range hosts {
		out = append(out, Target{Host: h, Port: 443}, Target{Host: h, Port: 80}, Target{Host: h, Port: 53, UDP: true})
	}
	return out
}

// Verdict reads a diagnosis: egress when any check answered, accepted-only when some TCP
// check accepted and none answered, none otherwise.
func Verdict(r Report) string {
	switch {
	case len(r.Reached) > 0:
		return "egress"
	case len(r.Accepted) > 0:
		return "accepted-only"
	}
	return "none"
}
