package egress

import (
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"agentrun.dev/computerd/internal/egress/allow"
)

// A proxy's settings files as a Kubernetes sidecar mounts them: a change of rules, hint or
// credentials is held with the list and said by digest and version; a file the check refuses
// holds nothing (said once, in the list's line) until it is fixed; no line holds a value.
func TestSettingsReload(t *testing.T) {
	dir := t.TempDir()
	list, rules, hint, keys := filepath.Join(dir, "allow"), filepath.Join(dir, "rules"), filepath.Join(dir, "hint"), filepath.Join(dir, "credentials")
	write(t, list, "api.example\n")
	write(t, rules, "api.example GET /v1/items\n")
	write(t, hint, "ask the operator")
	h := &holder{}
	var log strings.Builder
	r := &listReload{path: list, settings: settingsFiles{rules, hint, keys}, p: h, log: &log}
	r.once()
	if len(h.settings) != 1 || len(h.settings[0].Rules) != 1 || h.settings[0].Hint != "ask the operator" || len(h.settings[0].Credentials) != 0 {
		t.Fatalf("%+v", h.settings)
	}
	if want := fmt.Sprintf("its settings hold 1 rules (fnv64a %s), the hint fnv64a %s and 0 credentials (version none)", digestOf("api.example GET /v1/items"), digestOf("ask the operator")); !strings.Contains(log.String(), want) {
		t.Fatalf("%q lacks %q", log.String(), want)
	}
	r.once() // the same bytes: nothing held anew
	write(t, keys, `{"version":"v2","credentials":[{"host":"api.example","header":"Authorization","value":"Bearer s3cret-2"}]}`)
	write(t, rules, "api.example GET,POST /v1/items\n")
	r.once()
	if len(h.settings) != 2 || h.settings[1].Credentials[0].Value != "Bearer s3cret-2" || strings.Join(h.settings[1].Rules[0].Methods, ",") != "GET,POST" {
		t.Fatalf("%+v", h.settings)
	}
	if !strings.Contains(log.String(), "and 1 credentials (version v2)") {
		t.Fatalf("%q", log.String())
	}
	// A credential for a host off the list, and a rule line that is not one: nothing held, said once, no value in the words.
	write(t, keys, `{"version":"v3","credentials":[{"host":"other.example","header":"Authorization","value":"Bearer s3cret-3"}]}`)
	write(t, rules, "api.example\n")
	r.once()
	r.once()
	held := h.held()
	if len(held) != 3 || held[2] != "" || len(h.settings) != 2 {
		t.Fatalf("held %q, %d settings", held, len(h.settings))
	}
	failed := strings.Split(strings.TrimSpace(log.String()), "\n")
	last := failed[len(failed)-1]
	if strings.Count(log.String(), "cannot be held") != 1 || !strings.Contains(last, keys+": credential 0:") || !strings.Contains(last, rules+": rule") {
		t.Fatalf("%q", log.String())
	}
	// Fixed: held again, the list's line after the settings' line. A credentials file gone holds none.
	os.Remove(keys)
	write(t, rules, "api.example GET /v1/items\n")
	r.once()
	if held := h.held(); len(held) != 4 || held[3] != "api.example" || len(h.settings) != 3 || len(h.settings[2].Credentials) != 0 {
		t.Fatalf("held %q, %+v", held, h.settings)
	}
	if strings.Contains(log.String(), "s3cret") {
		t.Fatalf("the log holds a credential's value: %s", log.String())
	}
}

func TestParseArgsSettingsFiles(t *testing.T) {
	dir := t.TempDir()
	list := writeTo(t, dir, "allow", "api.example\n")
	rules := writeTo(t, dir, "rules", "api.example GET /v1\n")
	hint := writeTo(t, dir, "hint", "ask the test")
	keys := writeTo(t, dir, "credentials", `{"version":"k1","credentials":[{"host":"api.example","header":"X-Key","value":"k"}]}`)
	base := []string{"--socket", "/e.sock", "--deadline", "2030-01-02T03:04:05Z"}
	with := func(more ...string) []string { return append(append([]string{}, base...), more...) }
	o, err := ParseArgs(with("--allow-file", list, "--rules-file", rules, "--hint-file", hint, "--credentials-file", keys), "")
	if err != nil || len(o.Rules) != 1 || o.Hint != "ask the test" || len(o.Credentials) != 1 || o.held.version != "k1" {
		t.Fatalf("%+v %v", o, err)
	}
	// A credentials file not there is a proxy with none (its Secret not made yet).
	if o, err := ParseArgs(with("--allow-file", list, "--credentials-file", filepath.Join(dir, "none")), ""); err != nil || len(o.Credentials) != 0 {
		t.Fatalf("%+v %v", o, err)
	}
	for name, tc := range map[string]struct {
		args        []string
		credentials string
		words       string
	}{
		"no list file":      {with("--allow", "api.example", "--rules-file", rules), "", "with --allow-file alone"},
		"rules twice":       {with("--allow-file", list, "--rules-file", rules, "--rule", "api.example GET /"), "", "--rule or by --rules-file, not both"},
		"hint twice":        {with("--allow-file", list, "--hint-file", hint, "--hint", "x"), "", "--hint or by --hint-file, not both"},
		"credentials twice": {with("--allow-file", list, "--credentials-file", keys), `[]`, "or by --credentials-file, not both"},
		"relative":          {with("--allow-file", list, "--rules-file", "rules"), "", `--rules-file "rules" is not an absolute path`},
		"rules not there":   {with("--allow-file", list, "--rules-file", filepath.Join(dir, "none")), "", "none is not there"},
		"a bad version":     {with("--allow-file", list, "--credentials-file", writeTo(t, dir, "v", `{"version":"A B","credentials":[]}`)), "", "its version is not"},
		"not JSON":          {with("--allow-file", list, "--credentials-file", writeTo(t, dir, "j", `[{"host":"api.example","header":"X-Key","value":"k"}]`)), "", `it is not {"version"`},
	} {
		if _, err := ParseArgs(tc.args, tc.credentials); err == nil || !strings.Contains(err.Error(), tc.words) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// FuzzSettingsFiles: whatever the files hold, they are refused in words naming no value, or held
// within the bounds, every rule and credential on the list.
func FuzzSettingsFiles(f *testing.F) {
	f.Add([]byte("api.example GET /v1\n"), []byte("ask"), []byte(`{"version":"v1","credentials":[{"host":"api.example","header":"X-Key","value":"zz-value"}]}`))
	f.Add([]byte("other GET /\n\n"), []byte("a\x00"), []byte(`{"version":"","credentials":null}`))
	f.Fuzz(func(t *testing.T, rules, hint, keys []byte) {
		dir := t.TempDir()
		l, _ := allow.Parse([]string{"api.example"}, netip.Prefix{})
		files := settingsFiles{writeTo(t, dir, "r", string(rules)), writeTo(t, dir, "h", string(hint)), writeTo(t, dir, "c", string(keys))}
		_, s, err := files.read(l)
		if err != nil {
			if err.Error() == "" || (len(keys) > 8 && strings.Contains(err.Error(), "zz-value")) {
				t.Fatalf("refused in words %q", err)
			}
			return
		}
		if len(s.Rules) > allow.MaxRules || len(s.Credentials) > allow.MaxCredentials || s.version == "" {
			t.Fatalf("%+v", s)
		}
		for _, c := range s.Credentials {
			if c.Host != "api.example" {
				t.Fatalf("a credential off the list: %+v", c)
			}
		}
	})
}
