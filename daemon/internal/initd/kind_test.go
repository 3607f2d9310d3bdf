package initd

import (
	"strings"
	"testing"
)

func TestKindBrowserIsTheOneKindInitTakes(t *testing.T) {
	dl := "2030-01-02T15:04:05Z"
	o, err := ParseArgs([]string{"--deadline", dl, "--kind", "browser"})
	if err != nil || !o.Browser {
		t.Fatalf("--kind browser: %+v %v", o, err)
	}
	if o, err := ParseArgs([]string{"--deadline", dl}); err != nil || o.Browser {
		t.Fatalf("no --kind: %+v %v", o, err)
	}
	if _, err := ParseArgs([]string{"--deadline", dl, "--kind", "desktop"}); err == nil || !strings.Contains(err.Error(), "--kind browser alone") {
		t.Fatalf("--kind desktop: %v", err)
	}
}
