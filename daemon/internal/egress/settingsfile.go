package egress

// What a proxy holds beside its list, read from files rather than the argv and the environment
// (--rules-file, --hint-file, --credentials-file, each with --allow-file), as a Kubernetes
// sidecar mounts its proxy's ConfigMap and Secret: read again with the list (listfile.go), all
// checked together, so a change of rules, hint or credentials holds from the next request on
// with no restart. Each change is one line on the log naming the rules and hint by digest and the
// credentials by the version their file gives, never a value.

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
	"regexp"
	"strings"

	"agentrun.dev/computerd/internal/egress/allow"
	"agentrun.dev/computerd/internal/egress/proxy"
)

// settingsFiles are the files given; "" is a file not given.
type settingsFiles struct{ rules, hint, credentials string }

func (f settingsFiles) given() bool { return f.rules != "" || f.hint != "" || f.credentials != "" }

// credentialsFile is a credentials file's JSON: CredentialsEnv's array, and the version its
// writer names it by (the log says which it holds with no value in the line).
type credentialsFile struct {
	Version     string             `json:"version"`
	Credentials []allow.Credential `json:"credentials"`
}

var versionPattern = regexp.MustCompile(`^[0-9a-z-]{1,64}$`)

// heldSettings are the settings files read: what the proxy holds, and the words of its log line.
type heldSettings struct {
	proxy.Settings
	rulesDigest, hintDigest, version string
}

// readBounded reads a file of at most MaxListFile bytes; os.Open's error as it is (a missing
// file's among them), and what was read of a file too large beside its error.
func readBounded(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, MaxListFile+1))
	if err == nil && len(raw) > MaxListFile {
		err = fmt.Errorf("%s is larger than %d KiB", path, MaxListFile>>10)
	}
	return raw, err
}

// linesOf is a file's lines, spaces around each and blank lines passed over.
func linesOf(raw []byte) []string {
	var lines []string
	for _, line := range strings.Split(string(raw), "\n") {
		if l := strings.TrimSpace(line); l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

// read reads and checks the files against the list: their bytes (for the next comparison) and
// what they hold, or why they cannot be held. A rules or hint file given must be there; a
// credentials file may be missing (a proxy with none), which holds none.
func (f settingsFiles) read(l allow.List) ([]byte, heldSettings, error) {
	var all []byte
	var s heldSettings
	var problems []string
	for _, part := range []struct {
		path     string
		optional bool
		parse    func([]byte) error
	}{
		{f.rules, false, func(raw []byte) error { return s.parseRules(raw, l) }},
		{f.hint, false, s.parseHint},
		{f.credentials, true, func(raw []byte) error { return s.parseCredentials(raw, l) }},
	} {
		if part.path == "" {
			continue
		}
		raw, err := readBounded(part.path)
		there := !errors.Is(err, fs.ErrNotExist)
		switch {
		case !there:
			if !part.optional {
				problems = append(problems, fmt.Sprintf("%s is not there", part.path))
			}
		case err != nil:
			problems = append(problems, err.Error())
		default:
			if err := part.parse(raw); err != nil {
				problems = append(problems, fmt.Sprintf("%s: %v", part.path, err))
			}
		}
		all = fmt.Appendf(all, "%d:%t:", len(raw), there)
		all = append(all, raw...)
	}
	if s.version == "" {
		s.version = "none"
	}
	if s.hintDigest == "" {
		s.hintDigest = digestOf(s.Hint)
	}
	if len(problems) > 0 {
		return nil, heldSettings{}, errors.New(strings.Join(problems, "; "))
	}
	return all, s, nil
}

// parseRules reads one rule a line (the argv's form), blank lines passed over.
func (s *heldSettings) parseRules(raw []byte, l allow.List) error {
	var problems []string
	lines := linesOf(raw)
	if len(lines) > allow.MaxRules {
		problems = append(problems, fmt.Sprintf("%d rules, more than %d", len(lines), allow.MaxRules))
	}
	for _, line := range lines {
		r, err := allow.ParseRule(line, l)
		if err != nil {
			problems = append(problems, err.Error())
		}
		s.Rules = append(s.Rules, r)
	}
	s.rulesDigest = digestOf(strings.Join(lines, "\n"))
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	return nil
}

// parseHint reads the hint as written, whole.
func (s *heldSettings) parseHint(raw []byte) error {
	if err := allow.HintProblem(string(raw)); err != nil {
		return fmt.Errorf("%v (printable ASCII of at most %d bytes)", err, allow.MaxHint)
	}
	s.Hint, s.hintDigest = string(raw), digestOf(string(raw))
	return nil
}

// parseCredentials reads a credentials file; its words name a credential by its index and host, never its value.
func (s *heldSettings) parseCredentials(raw []byte, l allow.List) error {
	var c credentialsFile
	if err := json.Unmarshal(raw, &c); err != nil {
		return errors.New(`it is not {"version": "<id>", "credentials": [{host, header, value}...]}`)
	}
	if !versionPattern.MatchString(c.Version) {
		return errors.New("its version is not 1 to 64 of a-z, 0-9 and -")
	}
	if words := allow.CheckCredentials(c.Credentials, l); len(words) > 0 {
		return errors.New(strings.Join(words, "; "))
	}
	s.Credentials, s.version = c.Credentials, c.Version
	return nil
}

// digestOf is FNV-1a 64 of text in 16 hex digits, as listDigest names a list.
func digestOf(text string) string {
	h := fnv.New64a()
	h.Write([]byte(text))
	return fmt.Sprintf("%016x", h.Sum64())
}

// settingsLine says what the proxy holds beside its list; a reader who knows the rules, the hint
// and the credentials' version (never their values) can tell whether it holds them.
func settingsLine(s heldSettings) string {
	return fmt.Sprintf("computerd egress: its settings hold %d rules (fnv64a %s), the hint fnv64a %s and %d credentials (version %s)\n", len(s.Rules), s.rulesDigest, s.hintDigest, len(s.Credentials), s.version)
}
