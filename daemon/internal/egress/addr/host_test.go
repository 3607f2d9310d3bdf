package addr

import (
	"net/netip"
	"strings"
	"testing"
)

func TestParseHostReadsEveryWrittenFormOfAnAddress(t *testing.T) {
	for _, c := range WrittenForms {
		h, err := ParseHost(c.Written)
		switch {
		case c.Address == "":
			if err == nil {
				t.Errorf("%q: read as %v, want malformed", c.Written, h)
			}
		case err != nil || h.Addr.Unmap().String() != c.Address:
			t.Errorf("%q: %v %v, want %s", c.Written, h.Addr, err, c.Address)
		}
	}
}

func TestParseHostNames(t *testing.T) {
	for in, want := range map[string]string{
		"PyPI.org": "pypi.org", "pypi.org.": "pypi.org", "a-b.c0.example": "a-b.c0.example",
		"1.2.3.example": "1.2.3.example", "0x7f.example": "0x7f.example", "localhost": "localhost",
	} {
		if h, err := ParseHost(in); err != nil || h.Name != want || h.Addr.IsValid() {
			t.Errorf("%q: %+v %v, want the name %s", in, h, err, want)
		}
	}
	for _, bad := range []string{"", ".", "a..b", "-a.b", "a-.b", "a_b.c", "a b.c", "é.fr", "a.b/c", strings.Repeat("a", 64) + ".b", strings.Repeat("a.", 127) + "bc", "[pypi.org]", "[1.2.3.4]", "1.2.3.4:80", "fe80::1%lo"} {
		if h, err := ParseHost(bad); err == nil {
			t.Errorf("%q: read as %+v", bad, h)
		}
	}
}

func TestClassify(t *testing.T) {
	for _, c := range ClassifiedAddresses {
		if got := Classify(netip.MustParseAddr(c.Address)); got != c.Class {
			t.Errorf("%s: %s, want %s", c.Address, got, c.Class)
		}
	}
}

func TestOverlap(t *testing.T) {
	for p, want := range map[string]Class{
		"10.0.0.0/8": Private, "0.0.0.0/0": Reserved, "::/0": Reserved, "169.254.0.0/16": LinkLocal,
		"169.254.169.254/32": Metadata, "64:ff9b::/96": Reserved, "2000::/3": Reserved, "fd00::/8": Private,
	} {
		if r, ok := Overlap(netip.MustParsePrefix(p)); !ok || r.Class != want {
			t.Errorf("%s: %v %v, want %s", p, r, ok, want)
		}
	}
	for _, p := range []string{"8.8.8.0/24", "2606:4700::/32", "93.184.215.0/24", "1.0.0.0/8"} {
		if r, ok := Overlap(netip.MustParsePrefix(p)); ok {
			t.Errorf("%s overlaps %v", p, r)
		}
	}
}

// Every row's prefix is masked, and the table's classes are the ones Classes names.
func TestTheTableIsWellFormed(t *testing.T) {
	for _, r := range Table {
		if r.Prefix.Masked() != r.Prefix || r.Class == Public || !containsClass(r.Class) {
			t.Errorf("row %v", r)
		}
	}
}

func containsClass(c Class) bool {
	for _, x := range Classes {
		if x == c {
			return true
		}
	}
	return false
}

// Whatever a client writes, ParseHost never panics; an address it reads is one netip reads
// back the same, and a name it reads is lower case letters, digits, hyphens and dots whose
// last label is no number.
func FuzzParseHost(f *testing.F) {
	for _, c := range WrittenForms {
		f.Add(c.Written)
	}
	for _, s := range []string{"pypi.org", "PyPI.org.", "[::1]", "a..b", "0x", "00", "1.2.3.4.5", "[fe80::1%25lo]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		h, err := ParseHost(s)
		if err != nil {
			return
		}
		if h.Addr.IsValid() == (h.Name != "") {
			t.Fatalf("%q: both or neither: %+v", s, h)
		}
		if h.Addr.IsValid() {
			if back, err := netip.ParseAddr(h.Addr.String()); err != nil || back != h.Addr || h.Addr.Zone() != "" {
				t.Fatalf("%q: %v does not read back", s, h.Addr)
			}
			_ = Classify(h.Addr)
			return
		}
		if h.Name != strings.ToLower(h.Name) || len(h.Name) > MaxName {
			t.Fatalf("%q: name %q", s, h.Name)
		}
		labels := strings.Split(h.Name, ".")
		if numeric(labels[len(labels)-1]) {
			t.Fatalf("%q: a name whose last label is a number: %q", s, h.Name)
		}
		for _, l := range labels {
			if !label(l) {
				t.Fatalf("%q: label %q", s, l)
			}
		}
	})
}
