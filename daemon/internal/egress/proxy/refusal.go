package proxy

import (
	"fmt"

	"agentrun.dev/computerd/internal/egress/addr"
)

// What each refused class says: the true reason, so that a program or a person changes the
// right thing (the list, the port, the request, or a listed name's DNS). The hint (the platform's
// words on getting a host listed) ends the refusals that changing the list or the request can
// lift; a listed host refused for its address, its lookup or its silence ends with what fits that.

// classWords name an address class as a refusal reads it.
var classWords = map[string]string{
	string(addr.Private):   "a private address",
	string(addr.Loopback):  "a loopback address",
	string(addr.LinkLocal): "a link-local address",
	string(addr.Metadata):  "a cloud metadata address",
	string(addr.Multicast): "a multicast address",
	string(addr.Reserved):  "a reserved address",
	string(addr.ThisHost):  "an address of this box's own host",
}

// refusal is the HTTP status and the words a refused decision is answered with.
func (p *Proxy) refusal(d decision) (int, string) {
	host, hint := printable(d.host, maxHostInLog), p.cfg().Hint
	switch d.class {
	case Limit:
		return 403, fmt.Sprintf("this box's egress proxy holds at most %d connections open and %d in all, and is at its bound: close a connection, or try again once one has closed", p.cfg().MaxOpen, p.cfg().MaxTotal)
	case Malformed:
		return 400, fmt.Sprintf("the request to %s is not one this proxy reads: its host is neither a name nor an address, or its body is framed by more than one Content-Length or chunked alone", host)
	case WrongPort:
		return 403, fmt.Sprintf("%s is reached on ports %s alone, not on port %d: %s", host, portWords(p.cfg().Ports), d.port, hint)
	case HostClash:
		return 403, fmt.Sprintf("the request's Host header does not name %s:%d, the host and port it is sent to: %s", host, d.port, hint)
	case Upgrade:
		return 403, fmt.Sprintf("the request to %s asks for an HTTP upgrade, which this box's egress proxy does not carry: %s", host, hint)
	case NoAnswer:
		return 502, fmt.Sprintf("%s is on this box's network list but did not resolve to any address: the list is right; check the name, and the resolver this box's host uses", host)
	case Rule:
		return 403, p.ruleWords(d)
	case Unreached:
		return 502, fmt.Sprintf("%s could not be reached on port %d: no address it resolved to answered", host, d.port)
	case Unverified:
		return 502, fmt.Sprintf("%s did not prove it is %s (%s): this box's egress proxy reads this host's requests, verifies it against the system's roots as a client would, and sends it nothing unverified", host, host, printable(d.cause, 300))
	}
	if w, ok := classWords[d.class]; ok && d.listed {
		if d.named {
			return 403, fmt.Sprintf("%s is on this box's network list but resolves to %s, which this proxy never connects to: the list is right, the resolver this box's host uses is not", host, w)
		}
		return 403, fmt.Sprintf("%s is on this box's network list but is %s, which this proxy never connects to, listed or not", host, w)
	}
	return 403, fmt.Sprintf("%s is not on this box's network list: %s", host, hint)
}

// socksCode is the SOCKS5 reply for a refused decision: the same reason in the codes RFC 1928
// has.
func socksCode(class string) byte {
	switch class {
	case Command:
		return repCmdNotSupp
	case NoAnswer, Unreached:
		return repUnreachable
	}
	return repNotAllowed
}

func portWords(ports []uint16) string {
	s := ""
	for i, port := range ports {
		switch {
		case i == 0:
		case i == len(ports)-1:
			s += " and "
		default:
			s += ", "
		}
		s += fmt.Sprint(port)
	}
	return s
}
