package allow

import (
	"net/netip"
	"testing"

	"agentrun.dev/computerd/internal/egress/addr"
	"agentrun.dev/computerd/internal/vectortest"
)

func TestEntries(t *testing.T) {
	for entry, want := range map[string]Kind{
		"pypi.org": "", "*.pythonhosted.org": "", "93.184.215.0/24": "", "2606:4700::/32": "",
		"": BadName, "*.com": OneLabel, "localhost": OneLabel, "https://pypi.org": URL, "pypi.org/simple": URL,
		"pypi.org:443": Port, "93.184.215.14": NoPrefix, "0x5db8d70e": NoPrefix, "93.184.215.1/24": HostBits,
		"10.0.0.0/8": Range, "169.254.169.254/32": Range, "::ffff:8.8.8.0/120": Range, "py*.org": Wildcard,
		"01.2.3.0/24": BadCIDR,
	} {
		_, refusals := Parse([]string{entry}, netip.Prefix{})
		got := Kind("")
		if len(refusals) > 0 {
			got = refusals[0].Kind
		}
		if got != want {
			t.Errorf("%q: %q (%v), want %q", entry, got, refusals, want)
		}
	}
}

func TestARefusalNamesTheEntryAndTheRange(t *testing.T) {
	_, r := Parse([]string{"169.254.0.0/16"}, netip.Prefix{})
	if len(r) != 1 || r[0].Message != `"169.254.0.0/16" is over 169.254.0.0/16, a link-local range the proxy never reaches` {
		t.Fatalf("%+v", r)
	}
}

func TestEveryRefusalTogether(t *testing.T) {
	_, r := Parse([]string{"pypi.org", "10.0.0.0/8", "pypi.org:443", "https://x.org"}, netip.Prefix{})
	if len(r) != 3 {
		t.Fatalf("%+v", r)
	}
}

func TestMatch(t *testing.T) {
	l, r := Parse([]string{"pypi.org", "*.pythonhosted.org", "93.184.215.0/24", "2606:4700::/32"}, netip.Prefix{})
	if r != nil {
		t.Fatal(r)
	}
	for name, want := range map[string]bool{
		"pypi.org": true, "www.pypi.org": false, "files.pythonhosted.org": true, "a.b.pythonhosted.org": true,
		"pythonhosted.org": false, "evilpythonhosted.org": false, "pypi.org.evil": false,
	} {
		if l.HasName(name) != want {
			t.Errorf("%s: %v", name, !want)
		}
	}
	for a, want := range map[string]bool{"93.184.215.14": true, "93.184.216.1": false, "2606:4700::1": true, "::ffff:93.184.215.14": false} {
		if l.HasAddr(netip.MustParseAddr(a)) != want {
			t.Errorf("%s: %v", a, !want)
		}
	}
}

func TestReachable(t *testing.T) {
	for _, s := range []string{"10.213.0.0/24", "172.30.0.0/16", "127.0.2.0/24", "fd12:3456:789a::/48"} {
		if _, err := ParseReachable(s); err != nil {
			t.Errorf("%s: %v", s, err)
		}
	}
	for _, s := range []string{"10.0.0.0/8", "8.8.8.0/24", "169.254.169.0/24", "100.100.100.0/24", "fd00:ec2::/48", "10.213.0.1/24", "x"} {
		if _, err := ParseReachable(s); err == nil {
			t.Errorf("%s: taken", s)
		}
	}
}

// The vectors the TypeScript check is held to: test/vectors/egress.json, made from the Go
// table and the Go verdicts. UPDATE_VECTORS=1 go test ./internal/egress/allow writes it.
const vectorPath = "../../../../test/vectors/egress.json"

type entryVerdict struct {
	EntryCase
	OK    bool       `json:"ok"`
	As    string     `json:"as,omitempty"`
	Kind  Kind       `json:"kind,omitempty"`
	Class addr.Class `json:"class,omitempty"`
}

type listVerdict struct {
	Entries []string `json:"entries"`
	OK      bool     `json:"ok"`
	As      []string `json:"as,omitempty"`
	Kinds   []Kind   `json:"kinds,omitempty"`
}

type targetVerdict struct {
	List   []string `json:"list"`
	Target string   `json:"target"`
	Verdict
}

type reachableVerdict struct {
	Range string `json:"range"`
	OK    bool   `json:"ok"`
}

type vectors struct {
	Comment   string             `json:"comment"`
	Ports     []uint16           `json:"ports"`
	MaxEach   int                `json:"maxEach"`
	Classes   []addr.Class       `json:"classes"`
	Table     []tableRow         `json:"table"`
	Written   []addr.WrittenForm `json:"written"`
	Addresses []addr.Classified  `json:"addresses"`
	Entries   []entryVerdict     `json:"entries"`
	Lists     []listVerdict      `json:"lists"`
	Targets   []targetVerdict    `json:"targets"`
	Reachable []reachableVerdict `json:"reachable"`
	Hint      hintRule           `json:"hint"`
}

type hintRule struct {
	Default string `json:"default"`
	Max     int    `json:"max"`
}

type tableRow struct {
	Prefix string     `json:"prefix"`
	Class  addr.Class `json:"class"`
}

func makeVectors(t *testing.T) vectors {
	v := vectors{
		Comment: "Written by daemon/internal/egress/allow (UPDATE_VECTORS=1 go test ./internal/egress/allow): the egress address table and the allowlist's verdicts, which src/egress/ is held to by test/unit/egress-vectors.test.ts.",
		Ports:   Ports, MaxEach: MaxEach, Classes: addr.Classes,
		Written: addr.WrittenForms, Addresses: addr.ClassifiedAddresses,
		Hint: hintRule{DefaultHint, MaxHint},
	}
	for _, r := range addr.Table {
		v.Table = append(v.Table, tableRow{r.Prefix.String(), r.Class})
	}
	for _, c := range EntryCases {
		var reach netip.Prefix
		if c.Reachable != "" {
			var err error
			if reach, err = ParseReachable(c.Reachable); err != nil {
				t.Fatal(err)
			}
		}
		l, r := Parse([]string{c.Entry}, reach)
		ev := entryVerdict{EntryCase: c, OK: r == nil}
		if r == nil {
			ev.As = l.Entries()[0]
		} else {
			ev.Kind, ev.Class = r[0].Kind, r[0].Class
		}
		v.Entries = append(v.Entries, ev)
	}
	for _, entries := range ListCases() {
		l, r := Parse(entries, netip.Prefix{})
		lv := listVerdict{Entries: entries, OK: r == nil}
		if r == nil {
			lv.As = l.Entries()
		}
		for _, x := range r {
			lv.Kinds = append(lv.Kinds, x.Kind)
		}
		v.Lists = append(v.Lists, lv)
	}
	l, r := Parse(TargetList, netip.Prefix{})
	if r != nil {
		t.Fatalf("the targets' list is refused: %v", r)
	}
	for _, target := range TargetCases {
		h, err := addr.ParseHost(target)
		if err != nil {
			t.Fatalf("%s: %v", target, err)
		}
		v.Targets = append(v.Targets, targetVerdict{TargetList, target, l.Target(h, addr.Classify)})
	}
	for _, s := range ReachableCases {
		_, err := ParseReachable(s)
		v.Reachable = append(v.Reachable, reachableVerdict{s, err == nil})
	}
	return v
}

func TestVectorsAreTheGoVerdicts(t *testing.T) {
	vectortest.Match(t, vectorPath, makeVectors(t), "what the Go table and verdicts make", "go test ./internal/egress/allow")
}
