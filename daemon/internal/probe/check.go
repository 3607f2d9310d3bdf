package probe

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"time"
)

// Bounds are one probe's limits.
type Bounds struct {
	Connect time.Duration // to connect (a name's lookup included)
	Answer  time.Duration // from the request to the first byte back
	Read    int           // the most bytes read per target
}

// ConnectBounds are --connect's: 10 s to connect, 10 s to answer, 4 KiB.
var ConnectBounds = Bounds{Connect: 10 * time.Second, Answer: 10 * time.Second, Read: 4096}

// rest is how long a read goes on after the first bytes, for the rest of a first message.
const rest = 250 * time.Millisecond

// Result is one target's outcome.
type Result struct {
	Target   string `json:"target"`
	Protocol string `json:"protocol"`
	Outcome  string `json:"outcome"`
	Bytes    int    `json:"bytes"`
	Detail   string `json:"detail"`
}

// Check tries one target within b and says what came of it.
func Check(ctx context.Context, t Target, b Bounds) Result {
	return check(ctx, t, b, kindOf(t))
}

func check(ctx context.Context, t Target, b Bounds, k kind) Result {
	r := Result{Target: t.String(), Protocol: t.Protocol()}
	d := net.Dialer{Timeout: b.Connect}
	c, err := d.DialContext(ctx, r.Protocol, net.JoinHostPort(t.Host, fmt.Sprint(t.Port)))
	if err != nil {
		r.Outcome, r.Detail = Refused, "no connection: "+dialWords(err, b.Connect)
		if t.UDP {
			r.Detail = "no datagram could be sent: " + dialWords(err, b.Connect)
		}
		return r
	}
	defer c.Close()
	req, id := request(k, t)
	until := time.Now().Add(b.Answer)
	if dl, ok := ctx.Deadline(); ok && dl.Before(until) {
		until = dl
	}
	c.SetDeadline(until)
	if _, err := c.Write(req); err != nil {
		if t.UDP {
			r.Outcome, r.Detail = Refused, "no datagram could be sent: "+dialWords(err, 0)
			return r
		}
		r.Outcome, r.Detail = Accepted, "accepted, then the request could not be sent ("+dialWords(err, 0)+"), and nothing came back"
		return r
	}
	buf, err := readAnswer(c, until, b.Read, t.UDP)
	r.Bytes = len(buf)
	if len(buf) > 0 {
		r.Outcome, r.Detail = Answered, describe(buf, id, k == askDNSTCP)
		return r
	}
	r.Outcome = Accepted
	if t.UDP {
		// UDP has no accept: a datagram that brings nothing back is refused.
		r.Outcome = Refused
	}
	switch {
	case t.UDP && errors.Is(err, syscall.ECONNREFUSED):
		r.Detail = "the far side answered port unreachable (ICMP): nothing came back"
	case t.UDP && isTimeout(err):
		r.Detail = fmt.Sprintf("no datagram came back within %v", b.Answer)
	case t.UDP:
		r.Detail = "nothing came back: " + dialWords(err, 0)
	case errors.Is(err, io.EOF):
		r.Detail = "accepted, then closed with nothing sent back"
	case errors.Is(err, syscall.ECONNRESET):
		r.Detail = "accepted, then reset with nothing sent back"
	case isTimeout(err):
		r.Detail = fmt.Sprintf("accepted, and nothing came back within %v", b.Answer)
	default:
		r.Detail = "accepted, then nothing came back: " + dialWords(err, 0)
	}
	return r
}

// readAnswer reads until max bytes, the end, an error or until; once bytes come, it waits at
// most rest more for the rest of a first message. A datagram is read once.
func readAnswer(c net.Conn, until time.Time, max int, datagram bool) ([]byte, error) {
	buf := make([]byte, max)
	n := 0
	for n < max {
		m, err := c.Read(buf[n:])
		n += m
		if err != nil || datagram {
			if n > 0 {
				err = nil
			}
			return buf[:n], err
		}
		if n > 0 {
			if soon := time.Now().Add(rest); soon.Before(until) {
				until = soon
				c.SetReadDeadline(until)
			}
		}
	}
	return buf[:n], nil
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}

// dialWords names why a connection or a send failed.
func dialWords(err error, bound time.Duration) string {
	var dns *net.DNSError
	var errno syscall.Errno
	switch {
	case errors.As(err, &dns):
		if dns.IsNotFound {
			return fmt.Sprintf("the name %s does not resolve", dns.Name)
		}
		return fmt.Sprintf("the name %s could not be resolved (%s)", dns.Name, dns.Err)
	case isTimeout(err) && bound > 0:
		return fmt.Sprintf("none within %v", bound)
	case isTimeout(err):
		return "the time ran out"
	case errors.As(err, &errno):
		names := map[syscall.Errno]string{
			syscall.ECONNREFUSED:  "refused (ECONNREFUSED)",
			syscall.ENETUNREACH:   "the network is unreachable (ENETUNREACH)",
			syscall.EHOSTUNREACH:  "no route to the host (EHOSTUNREACH)",
			syscall.EADDRNOTAVAIL: "no address to send from (EADDRNOTAVAIL)",
			syscall.EACCES:        "not permitted (EACCES)",
			syscall.EPERM:         "not permitted (EPERM)",
			syscall.ECONNRESET:    "reset (ECONNRESET)",
			syscall.EPIPE:         "the connection is closed (EPIPE)",
		}
		if w, ok := names[errno]; ok {
			return w
		}
		return errno.Error()
	}
	return err.Error()
}
