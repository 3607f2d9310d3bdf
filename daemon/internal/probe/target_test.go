package probe

import (
	"strings"
	"testing"
)

func TestParseTarget(t *testing.T) {
	for in, want := range map[string]string{
		"1.1.1.1:443":                          "1.1.1.1:443",
		"1.1.1.1:53/udp":                       "1.1.1.1:53/udp",
		"[2606:4700:4700::1111]:443":           "[2606:4700:4700::1111]:443",
		"[2606:4700:4700:0:0:0:0:1111]:53/udp": "[2606:4700:4700::1111]:53/udp",
		"Example.COM:80":                       "example.com:80",
		"localhost:2280":                       "localhost:2280",
		"[::1]:49983":                          "[::1]:49983",
		"a-b.c9:65535":                         "a-b.c9:65535",
		"127.0.0.1:1":                          "127.0.0.1:1",
	} {
		got, err := ParseTarget(in)
		if err != nil || got.String() != want {
			t.Errorf("%q: %q %v, want %q", in, got.String(), err, want)
		}
	}
	for in, words := range map[string]string{
		"1.1.1.1":                            "not host:port",
		"1.1.1.1:":                           "not a number",
		"1.1.1.1:0":                          "out of range",
		"1.1.1.1:65536":                      "out of range",
		"1.1.1.1:99999":                      "out of range",
		"1.1.1.1:-1":                         "not a number",
		"1.1.1.1:+80":                        "not a number",
		"1.1.1.1:443/tcp":                    "the one suffix is /udp",
		"1.1.1.1:53/UDP":                     "the one suffix is /udp",
		":443":                               "the host is empty",
		"2606:4700::1111:443":                "not host:port",
		"[fe80::1%eth0]:443":                 "without a zone",
		"[1.1.1.1]:443":                      "only an IPv6 address goes in brackets",
		"[example.com]:443":                  "only an IPv6 address goes in brackets",
		"1.2.3:80":                           "does not end in a number",
		"01.1.1.1:80":                        "does not end in a number",
		"-a.com:80":                          "neither starts nor ends with '-'",
		"a..com:80":                          "each label is 1 to 63",
		"exa mple.com:80":                    "letters, digits",
		"example.com.:80":                    "each label is 1 to 63",
		"ex/ample.com:80":                    "is no protocol",
		strings.Repeat("a", 64) + ".com:80":  "each label is 1 to 63",
		strings.Repeat("a.", 127) + "com:80": "longer than 253",
		"":                                   "not host:port",
	} {
		if _, err := ParseTarget(in); err == nil || !strings.Contains(err.Error(), words) {
			t.Errorf("%q: %v, want %q", in, err, words)
		}
	}
}

// Whatever the input, the parser answers without a panic; a target it takes prints back as
// one it takes again, the same, with a port in range and a host.
func FuzzParseTarget(f *testing.F) {
	for _, s := range []string{"1.1.1.1:443", "[::1]:53/udp", "example.com:80", "a:b:c", "[]:1", "[::ffff:1.2.3.4]:9", "x:0/udp", "\xff:1", "1.1.1.1:443//udp"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseTarget(s)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "--connect ") {
				t.Fatalf("%q: the refusal %q does not name --connect", s, err)
			}
			return
		}
		if got.Port < 1 || got.Port > 65535 || got.Host == "" {
			t.Fatalf("%q read as %+v", s, got)
		}
		again, err := ParseTarget(got.String())
		if err != nil || again != got {
			t.Fatalf("%q read as %+v, which prints %q and reads back %+v (%v)", s, got, got.String(), again, err)
		}
	})
}
