package isolate

import (
	"fmt"
	"sort"
	"strings"
)

// CheckThreads holds the read-back of every thread's network namespace (tid to the link
// /proc/self/task/<tid>/ns/net reads, such as net:[4026532281]) to one namespace that is not
// before, the one the process started in. It returns that namespace.
func CheckThreads(links map[string]string, before string) (string, error) {
	if len(links) == 0 {
		return "", fmt.Errorf("the read-back found no thread in /proc/self/task")
	}
	byNS := map[string][]string{}
	for tid, ns := range links {
		byNS[ns] = append(byNS[ns], tid)
	}
	if len(byNS) == 1 {
		for ns := range byNS {
			if ns == "" || ns == before {
				return "", fmt.Errorf("every thread is still in the network namespace it started in (%s)", before)
			}
			return ns, nil
		}
	}
	var parts []string
	for ns, tids := range byNS {
		sort.Strings(tids)
		where := ns
		if ns == before {
			where += ", the one it started in"
		}
		parts = append(parts, fmt.Sprintf("threads %s in %s", strings.Join(tids, " "), where))
	}
	sort.Strings(parts)
	return "", fmt.Errorf("the threads are in %d network namespaces, not one: %s", len(byNS), strings.Join(parts, "; "))
}
