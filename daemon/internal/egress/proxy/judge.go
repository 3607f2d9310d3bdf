package proxy

import (
	"fmt"
	"net"
	"net/netip"

	"agentrun.dev/computerd/internal/judge"
)

// A judge-only request is how the computer's own check proves, from inside, that the proxy on
// its path enforces its rules without sending anything a rule allows to the real upstream: the
// check sends, through the same relay every program's traffic takes, a request marked with
// JudgeHeader, and the proxy answers the verdict it would give, never looking the host up or
// dialling it. A program inside gains nothing by it: it reaches no one, and learns only what
// sending the request unmarked would tell it.

// JudgeHeader marks a request, plain, CONNECT or inside an intercepted tunnel, as judge-only:
// the header `computerd judge` sends.
const JudgeHeader = judge.Header

// Judged is the log class of a judge-only request its list and rules pass.
const Judged = "judged"

// judgeOnly says whether a request asks for the verdict alone.
func judgeOnly(h Head) bool { return len(h.Values(JudgeHeader)) > 0 }

// answerJudged answers a judge-only request that would pass: 200 and words that say it was not sent.
func (p *Proxy) answerJudged(c net.Conn, d decision, q *request) {
	p.log(d.host, d.port, netip.Addr{}, Judged)
	reply(c, 200, fmt.Sprintf("%s %s would pass for %s: judged by this box's egress proxy, not sent", printable(q.method, 32), printable(q.path, 512), d.host))
}
