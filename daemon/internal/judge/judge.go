// Package judge is `computerd judge`: the computer's own proof, from inside, that the proxy on
// its path enforces its rules. Per probe (host, method, path) it sends one judge-only request
// (Header; the proxy answers the verdict it would give and sends nothing on) through init's
// relay, the path every program's traffic takes, and prints the last line the proxy answers (its
// body: "<status> <words>"). It runs as the computer's user, as any program does, so it needs no
// method on the wire; it is here rather than in a shell script because every computer has this
// binary where no image is sure to have a shell that can open a TCP connection.
package judge

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"time"

	"agentrun.dev/computerd/internal/egress/relay"
)

// Header marks a request as judge-only (the proxy's JudgeHeader).
const Header = "Agentrun-Judge"

// Usage is the subcommand's line of help.
const Usage = "computerd judge [--relay <host:port>] <host> <method> <path>...   for each probe, the last line the egress proxy answers to a judge-only request, \"unreached\" when the relay refuses, \"unanswered\" when the run's 20s pass"

// Bound is the whole run's: under exec.run's 30 s, so a proxy that never answers is words per
// probe rather than a run cut short.
const Bound = 20 * time.Second

// maxAnswer is what is read of one answer: a verdict is a few hundred bytes.
const maxAnswer = 64 << 10

// Probe is one judge-only request.
type Probe struct{ Host, Method, Path string }

// Request is a probe's bytes on the wire: a plain request for http://host/path, closed after.
func (p Probe) Request() string {
	return fmt.Sprintf("%s http://%s%s HTTP/1.1\r\nHost: %s\r\n%s: rules\r\nConnection: close\r\n\r\n", p.Method, p.Host, p.Path, p.Host, Header)
}

// Parse reads the argv: an optional --relay, then probes as host, method, path triples. Each
// field is one token with no space or control character, so a request holds exactly its own.
func Parse(args []string) (relayAddr string, probes []Probe, err error) {
	relayAddr = relay.Addr
	if len(args) >= 1 && args[0] == "--relay" {
		if len(args) < 2 || args[1] == "" {
			return "", nil, errors.New("--relay needs an address, host:port")
		}
		if _, _, e := net.SplitHostPort(args[1]); e != nil {
			return "", nil, fmt.Errorf("--relay %q is not host:port", args[1])
		}
		relayAddr, args = args[1], args[2:]
	}
	if len(args) == 0 || len(args)%3 != 0 {
		return "", nil, fmt.Errorf("probes are host, method, path triples; %d arguments is not", len(args))
	}
	for i := 0; i < len(args); i += 3 {
		p := Probe{args[i], args[i+1], args[i+2]}
		for _, f := range []struct{ name, v string }{{"host", p.Host}, {"method", p.Method}, {"path", p.Path}} {
			if f.v == "" || strings.ContainsFunc(f.v, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
				return "", nil, fmt.Errorf("probe %d's %s %q is empty or holds a space or control character", i/3+1, f.name, f.v)
			}
		}
		if strings.ContainsAny(p.Host, "/?#@") {
			return "", nil, fmt.Errorf("probe %d's host %q is not a host", i/3+1, p.Host)
		}
		if !strings.HasPrefix(p.Path, "/") {
			return "", nil, fmt.Errorf("probe %d's path %q does not start with /", i/3+1, p.Path)
		}
		probes = append(probes, p)
	}
	return relayAddr, probes, nil
}

// Main prints a line for each probe in order: exit 0 whatever the proxy answers, 2 on a usage
// error, 1 when stdout cannot be written.
func Main(args []string, stdout, stderr io.Writer) int {
	relayAddr, probes, err := Parse(args)
	if err != nil {
		fmt.Fprintf(stderr, "computerd judge: %v\nusage: %s\n", err, Usage)
		return 2
	}
	out := bufio.NewWriter(stdout)
	deadline := time.Now().Add(Bound)
	for _, p := range probes {
		out.WriteString(Verdict(relayAddr, p, deadline))
		out.WriteByte('\n')
	}
	if err := out.Flush(); err != nil {
		fmt.Fprintln(stderr, "computerd judge:", err)
		return 1
	}
	return 0
}

// Verdict sends one probe and gives the last line of its answer that is not empty (a line ends at
// "\n"; a last line without one counts), "unreached" when the relay cannot be dialled, or
// "unanswered" when the deadline passes first.
func Verdict(relayAddr string, p Probe, deadline time.Time) string {
	c, err := net.DialTimeout("tcp", relayAddr, time.Until(deadline))
	if err != nil {
		if timedOut(err) {
			return "unanswered"
		}
		return "unreached"
	}
	defer c.Close()
	c.SetDeadline(deadline)
	if _, err := io.WriteString(c, p.Request()); err != nil {
		return "unreached"
	}
	answer, err := io.ReadAll(io.LimitReader(c, maxAnswer))
	if err != nil && timedOut(err) {
		return "unanswered"
	}
	return LastLine(answer)
}

func timedOut(err error) bool {
	var ne net.Error
	return errors.Is(err, os.ErrDeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}

// LastLine is the last line of an answer that is not empty, without its "\n" ("" when none).
func LastLine(answer []byte) string {
	last := ""
	for _, line := range strings.Split(string(answer), "\n") {
		if line != "" {
			last = line
		}
	}
	return last
}
