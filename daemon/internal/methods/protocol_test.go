package methods

import (
	"strings"
	"testing"
	"time"

	"agentrun.dev/computerd/internal/rpctest"
	"agentrun.dev/computerd/internal/version"
)

func TestHelloReportsTheBuildVersionKindAndGroups(t *testing.T) {
	c := connect(t)
	var h HelloResult
	c.Must(t, "hello", map[string]any{"client": "me"}, &h)
	if h.Version != version.Version || h.OS != "linux" || h.Kind != "linux" || h.Arch == "" || strings.Join(h.Groups, ",") != "exec,files,processes" {
		t.Fatalf("hello: %+v", h)
	}
	c.Must(t, "ping", nil, nil)
}

func TestRequestsRunAtOnceAndReplyInAnyOrder(t *testing.T) {
	c := connect(t)
	_, slow := c.Start("exec.run", map[string]any{"argv": []string{"sleep", "1"}})
	_, fast := c.Start("ping", nil)
	select {
	case <-slow:
		t.Fatal("the slow run replied before the ping")
	case r := <-fast:
		if r.Error != nil {
			t.Fatal(r.Error)
		}
	case <-time.After(900 * time.Millisecond):
		t.Fatal("ping waited for the run before it")
	}
	<-slow
}

func TestALineOver1MiBGetsAnErrorAndTheConnectionGoesOn(t *testing.T) {
	c := connect(t)
	c.Send(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("a", 1<<20) + `"}}`)
	r := c.Orphan(t)
	if r.Error == nil || r.Error.Data.Kind != "limit" || !strings.Contains(r.Error.Message, "1 MiB") {
		t.Fatalf("a long line: %+v", r)
	}
	c.Send("this is not json")
	r = c.Orphan(t)
	if r.Error == nil || r.Error.Code != -32700 || r.Error.Data.Kind != "invalid" {
		t.Fatalf("a line that is not JSON: %+v", r)
	}
	c.Must(t, "ping", nil, nil)
}

func TestUnknownMethodIsUnsupported(t *testing.T) {
	c := connect(t)
	if e := c.Fails(t, "apps.list", nil); e.Data.Kind != "unsupported" || e.Code != -32601 {
		t.Fatalf("unknown method: %+v", e)
	}
}

func TestDeadlineExtendWithoutInitIsUnsupported(t *testing.T) {
	c := connect(t)
	if e := c.Fails(t, "deadline.extend", map[string]any{"at": "2099-01-01T00:00:00Z"}); e.Data.Kind != "unsupported" {
		t.Fatalf("deadline.extend: %+v", e)
	}
}

func TestHelloOfABrowsersInitSaysKindBrowserWithTheDaemonsGroups(t *testing.T) {
	d := New(nil, nil)
	d.Browser = true
	c := rpctest.Connect(t, d)
	var h HelloResult
	c.Must(t, "hello", nil, &h)
	if h.Kind != "browser" || strings.Join(h.Groups, ",") != "exec,files,processes" {
		t.Fatalf("hello: %+v", h)
	}
}
