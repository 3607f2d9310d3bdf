package allow

import (
	"fmt"
	"strings"
)

// The cases an allowlist is held to, here and in TypeScript (test/vectors/egress.json).

// EntryCase is one entry, with the test network's range when the case gives one.
type EntryCase struct {
	Entry     string `json:"entry"`
	Reachable string `json:"reachable,omitempty"`
}

// EntryCases are single entries, good and bad.
var EntryCases = []EntryCase{
	{Entry: "pypi.org"}, {Entry: "PyPI.org"}, {Entry: "*.pythonhosted.org"}, {Entry: "files.pythonhosted.org"},
	{Entry: "a-b.example.co.uk"}, {Entry: "xn--bcher-kva.example"}, {Entry: "1.2.3.example"},
	{Entry: "93.184.215.0/24"}, {Entry: "8.8.8.8/32"}, {Entry: "2606:4700::/32"}, {Entry: "2606:4700::1111/128"},
	{Entry: ""}, {Entry: "com"}, {Entry: "*.com"}, {Entry: "localhost"}, {Entry: "pypi.org."},
	{Entry: "https://pypi.org"}, {Entry: "http://pypi.org/simple"}, {Entry: "//pypi.org"}, {Entry: "pypi.org/simple"},
	{Entry: "pypi.org:443"}, {Entry: "[2606:4700::1]:443"}, {Entry: "93.184.215.14:80"},
	{Entry: "93.184.215.14"}, {Entry: "2606:4700::1"}, {Entry: "0x5db8d70e"}, {Entry: "127.1"}, {Entry: "1572395790"},
	{Entry: "93.184.215.1/24"}, {Entry: "2606:4700::1/32"}, {Entry: "1.2.3.4/33"}, {Entry: "01.2.3.0/24"},
	{Entry: "0x5d.0.0.0/8"}, {Entry: "1.2.3.0/024"}, {Entry: "fe80::/64%eth0"},
	{Entry: "10.0.0.0/8"}, {Entry: "10.1.0.0/16"}, {Entry: "0.0.0.0/0"}, {Entry: "::/0"}, {Entry: "2000::/3"},
	{Entry: "127.0.0.0/8"}, {Entry: "169.254.169.254/32"}, {Entry: "169.254.0.0/16"}, {Entry: "168.63.0.0/16"},
	{Entry: "100.64.0.0/10"}, {Entry: "100.100.100.200/32"}, {Entry: "fc00::/7"}, {Entry: "fd00::/8"},
	{Entry: "::ffff:8.8.8.0/120"}, {Entry: "64:ff9b::/96"}, {Entry: "2002::/16"}, {Entry: "224.0.0.0/4"},
	{Entry: "240.0.0.0/4"}, {Entry: "fe80::/10"}, {Entry: "ff00::/8"}, {Entry: "1.0.0.0/8"},
	{Entry: "pypi..org"}, {Entry: "-pypi.org"}, {Entry: "pyp_i.org"}, {Entry: "a b.org"}, {Entry: "pypï.org"},
	{Entry: "*.*.org"}, {Entry: "py*.org"}, {Entry: "*pypi.org"}, {Entry: "*."}, {Entry: "*"},
	{Entry: strings.Repeat("a", 64) + ".org"}, {Entry: "example.123"}, {Entry: "a:b:c"},
	{Entry: "10.213.0.0/24", Reachable: "10.213.0.0/24"}, {Entry: "10.213.0.128/25", Reachable: "10.213.0.0/24"},
	{Entry: "10.213.0.0/16", Reachable: "10.213.0.0/24"}, {Entry: "10.214.0.0/24", Reachable: "10.213.0.0/24"},
	{Entry: "10.213.0.5", Reachable: "10.213.0.0/24"},
}

// ReachableCases are test networks' ranges, good and bad.
var ReachableCases = []string{
	"10.213.0.0/24", "172.30.0.0/16", "192.168.77.0/24", "127.0.2.0/24", "fd12:3456:789a::/48",
	"10.0.0.0/8", "172.16.0.0/12", "8.8.8.0/24", "169.254.169.0/24", "100.100.100.0/24",
	"fd00:ec2::/48", "10.213.0.1/24", "x", "0.0.0.0/16", "fe80::/64",
}

// ListCases are whole lists: the empty list, duplicates, and one past each bound.
func ListCases() [][]string {
	names := make([]string, MaxEach+1)
	cidrs := make([]string, MaxEach+1)
	for i := range names {
		names[i] = fmt.Sprintf("h%d.example.org", i)
		cidrs[i] = fmt.Sprintf("8.%d.%d.0/24", i/256, i%256)
	}
	return [][]string{
		{},
		{"pypi.org", "PYPI.org", "*.pythonhosted.org", "*.PythonHosted.org", "8.8.8.0/24", "8.8.8.0/24"},
		names[:MaxEach], names, cidrs[:MaxEach], cidrs,
		append(append([]string{}, names[:MaxEach]...), cidrs[:MaxEach]...),
		{"pypi.org", "10.0.0.0/8", "pypi.org:443"},
	}
}

// TargetList is the list every TargetCase is judged against.
var TargetList = []string{"93.184.215.0/24", "2606:4700::/32", "pypi.org", "*.pythonhosted.org"}

// TargetCases are targets' hosts as a client writes them: a listed IPv4 address in each of
// its forms, the IPv6 forms that embed it (none of them listed: an IPv6 literal is held to
// the IPv6 CIDRs), names on and off the list, and refused addresses.
var TargetCases = []string{
	"93.184.215.14", "1572394766", "0x5db8d70e", "0135.0270.0327.016",
	"[::ffff:93.184.215.14]", "::ffff:93.184.215.14", "[::ffff:5db8:d70e]", "[0:0:0:0:0:ffff:5db8:d70e]",
	"[64:ff9b::5db8:d70e]", "[2002:5db8:d70e::1]", "[2606:4700::1111]", "[2606:4701::1]", "8.8.8.8",
	"10.0.0.1", "[::ffff:10.0.0.1]", "[::ffff:169.254.169.254]", "127.1", "[::1]",
	"pypi.org", "PyPI.org.", "files.pythonhosted.org", "pythonhosted.org", "evil.org",
}
