package isolate

import (
	"fmt"
	"os"

	"agentrun.dev/computerd/internal/privdrop"
)

// holds reports whether any of a thread's four uids is uid.
func holds(s privdrop.Status, uid int) bool {
	for _, u := range s.UIDs {
		if u == uid {
			return true
		}
	}
	return false
}

// CheckFiltered holds a thread's status to seccomp mode 2 with one filter more than before
// (when the kernel counts them: 5.9 and later).
func CheckFiltered(s privdrop.Status, before int) error {
	if s.Seccomp != 2 {
		return fmt.Errorf("Seccomp is %d, not 2 (filter)", s.Seccomp)
	}
	if before >= 0 && s.SeccompFilters != before+1 {
		return fmt.Errorf("Seccomp_filters is %d, not %d", s.SeccompFilters, before+1)
	}
	return nil
}

// readStatus reads one task's status file.
func readStatus(path string) (privdrop.Status, error) {
	f, err := os.Open(path)
	if err != nil {
		return privdrop.Status{}, err
	}
	defer f.Close()
	s, err := privdrop.ParseStatus(f)
	if err != nil {
		return privdrop.Status{}, fmt.Errorf("reading %s: %w", path, err)
	}
	return s, nil
}
