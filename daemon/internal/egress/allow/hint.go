package allow

import "fmt"

// DefaultHint is what a refusal adds when the provider gives no hint of its own.
const DefaultHint = "only the hosts and ranges on this computer's network allowlist are reached, on ports 80 and 443"

// MaxHint bounds the hint, the words every refusal adds.
const MaxHint = 512

// HintProblem refuses a hint that is not printable ASCII of at most MaxHint bytes: it goes into
// every refusal the proxy answers.
func HintProblem(hint string) error {
	if len(hint) > MaxHint {
		return fmt.Errorf("the hint is %d bytes, more than %d", len(hint), MaxHint)
	}
	for i := 0; i < len(hint); i++ {
		if hint[i] < 0x20 || hint[i] > 0x7e {
			return fmt.Errorf("the hint is printable ASCII alone, and byte %d is not", i)
		}
	}
	return nil
}
