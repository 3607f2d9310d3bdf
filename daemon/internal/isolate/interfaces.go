package isolate

import (
	"fmt"
	"net"
	"sort"
	"strings"
)

// Iface is one network interface as the namespace holds it.
type Iface struct {
	Name  string
	Up    bool
	Addrs []string
}

// Interfaces reads the interfaces of the calling thread's network namespace (by netlink).
func Interfaces() ([]Iface, error) {
	ifs, err := net.Interfaces()
	if err != nil {
		return nil, fmt.Errorf("reading the network interfaces: %w", err)
	}
	out := make([]Iface, 0, len(ifs))
	for _, i := range ifs {
		addrs, err := i.Addrs()
		if err != nil {
			return nil, fmt.Errorf("reading the addresses of %s: %w", i.Name, err)
		}
		f := Iface{Name: i.Name, Up: i.Flags&net.FlagUp != 0}
		for _, a := range addrs {
			f.Addrs = append(f.Addrs, a.String())
		}
		out = append(out, f)
	}
	return out, nil
}

// Live names the interfaces that are up or hold an address, sorted: under --own-network, lo
// alone. A fallback tunnel, down with no address, is not live.
func Live(ifs []Iface) []string {
	out := []string{}
	for _, i := range ifs {
		if i.Up || len(i.Addrs) > 0 {
			out = append(out, i.Name)
		}
	}
	sort.Strings(out)
	return out
}

// CheckLoopbackAlone holds a new namespace's interfaces to its rule: lo up with 127.0.0.1, and
// every other interface down with no address (the fallback tunnels, tunl0, gre0, sit0 and the
// rest, that a kernel with the tunnel modules loaded gives every new namespace). It returns
// those others' names.
func CheckLoopbackAlone(ifs []Iface) (down []string, err error) {
	var short []string
	sawLo := false
	for _, i := range ifs {
		if i.Name == "lo" {
			sawLo = true
			if !i.Up {
				short = append(short, "lo is down")
			}
			if !hasAddr(i.Addrs, "127.0.0.1") {
				short = append(short, fmt.Sprintf("lo holds no 127.0.0.1 (it holds %s)", listOr(i.Addrs, "no address")))
			}
			continue
		}
		switch {
		case i.Up && len(i.Addrs) > 0:
			short = append(short, fmt.Sprintf("%s is up with %s", i.Name, strings.Join(i.Addrs, ", ")))
		case i.Up:
			short = append(short, fmt.Sprintf("%s is up", i.Name))
		case len(i.Addrs) > 0:
			short = append(short, fmt.Sprintf("%s holds %s", i.Name, strings.Join(i.Addrs, ", ")))
		default:
			down = append(down, i.Name)
		}
	}
	if !sawLo {
		short = append(short, "there is no lo")
	}
	if len(short) > 0 {
		return nil, fmt.Errorf("the new network namespace is not the loopback alone: %s", strings.Join(short, "; "))
	}
	sort.Strings(down)
	return down, nil
}

func hasAddr(addrs []string, ip string) bool {
	for _, a := range addrs {
		if a == ip || strings.HasPrefix(a, ip+"/") {
			return true
		}
	}
	return false
}

func listOr(xs []string, none string) string {
	if len(xs) == 0 {
		return none
	}
	return strings.Join(xs, ", ")
}
