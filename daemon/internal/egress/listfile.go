package egress

// A list read from a file (--allow-file) rather than the argv: one entry a line, blank lines
// passed over, as a Kubernetes ConfigMap mounts one. The proxy reads the file again every
// reloadEvery and checks what it reads exactly as the argv's list is checked; a new list holds
// for every request from then on, and a connection already forwarded goes on. A file that cannot
// be read, is too large, or holds a list the check refuses leaves the proxy forwarding nothing
// (fail closed) until the file holds a list again. Each change is one line on the log, with the
// list's digest, so what the proxy holds can be read back from outside.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"strings"
	"time"

	"agentrun.dev/computerd/internal/egress/allow"
	"agentrun.dev/computerd/internal/egress/proxy"
)

// MaxListFile bounds the file: 256 names of at most 253 bytes and 256 CIDRs fit with room.
const MaxListFile = 256 << 10

// reloadEvery is how often the file is read again; a ConfigMap's kubelet takes longer to write it.
const reloadEvery = time.Second

// readListFile reads and checks the list at path: its bytes (for the next comparison) and the
// list, or why it cannot be held, every refused entry named.
func readListFile(path string, reachable netip.Prefix) ([]byte, allow.List, error) {
	raw, err := readBounded(path)
	if err != nil {
		return nil, allow.List{}, err
	}
	list, err := parseListFile(raw, reachable)
	return raw, list, err
}

// parseListFile checks a file's bytes: one entry a line, spaces around it and blank lines passed over.
func parseListFile(raw []byte, reachable netip.Prefix) (allow.List, error) {
	list, refusals := allow.Parse(linesOf(raw), reachable)
	if len(refusals) > 0 {
		words := make([]string, len(refusals))
		for i, r := range refusals {
			words[i] = r.Message
		}
		return allow.List{}, errors.New(strings.Join(words, "; "))
	}
	return list, nil
}

// listDigest names a list as held: FNV-1a (64 bits) of its entries, normalized, one a line. It
// says which list the proxy holds to a reader who knows the list (no secret is in it); crypto's
// sha256 would add 180 KB to the daemon.
func listDigest(l allow.List) string { return digestOf(strings.Join(l.Entries(), "\n")) }

func heldLine(path string, l allow.List) string {
	return fmt.Sprintf("computerd egress: the list at %s holds %d entries (fnv64a %s)\n", path, len(l.Entries()), listDigest(l))
}

// listHolder is what the reload changes: the proxy's list and settings (proxy.Proxy).
type listHolder interface {
	SetList(allow.List)
	SetSettings(proxy.Settings)
}

// listReload is the files' reader while the proxy runs: what it last held and why it last failed.
type listReload struct {
	path      string
	settings  settingsFiles // none given: the argv's and the environment's, held from the start
	reachable netip.Prefix
	last      []byte // the bytes of the list (and settings) held now; nil after a failure
	failed    string // the last failure's words, said once
	p         listHolder
	log       io.Writer
}

// read reads the list and the settings files, checked together: their bytes and what they hold.
func (r *listReload) read() ([]byte, allow.List, heldSettings, error) {
	raw, list, err := readListFile(r.path, r.reachable)
	if err != nil || !r.settings.given() {
		return raw, list, heldSettings{}, err
	}
	more, s, err := r.settings.read(list)
	if err != nil {
		return nil, allow.List{}, heldSettings{}, err
	}
	return append(fmt.Appendf(nil, "%d:", len(raw)), append(raw, more...)...), list, s, nil
}

// once reads the files: a new list and settings are held and said; a failure holds the empty
// list and is said once, in the list's line (what the list holds is what the proxy forwards).
func (r *listReload) once() {
	raw, list, s, err := r.read()
	switch {
	case err != nil:
		if r.failed == err.Error() {
			return
		}
		r.failed, r.last = err.Error(), nil
		r.p.SetList(allow.List{})
		fmt.Fprintf(r.log, "computerd egress: the list at %s cannot be held (%v), so the proxy forwards nothing until it can\n", r.path, err)
	case r.failed == "" && bytes.Equal(raw, r.last):
	default:
		r.failed, r.last = "", raw
		if r.settings.given() {
			r.p.SetSettings(s.Settings)
			io.WriteString(r.log, settingsLine(s))
		}
		r.p.SetList(list)
		io.WriteString(r.log, heldLine(r.path, list))
	}
}

// watchListFile reads the file again at every tick until stop closes.
func watchListFile(stop <-chan struct{}, tick <-chan time.Time, r *listReload) {
	for {
		select {
		case <-stop:
			return
		case <-tick:
			r.once()
		}
	}
}
