package egress

import (
	"context"
	"crypto/sha256"
	"crypto/x509"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"agentrun.dev/computerd/internal/egress/allow"
	"agentrun.dev/computerd/internal/egress/ca"
	"agentrun.dev/computerd/internal/egress/proxy"
	"agentrun.dev/computerd/internal/sockfile"
)

// Usage is the subcommand's line in computerd's usage.
const Usage = "computerd egress --socket <path> --deadline <time> (--allow <entry>... | --allow-file <path> [--rules-file <path>] [--hint-file <path>] [--credentials-file <path>]) [--rule <host> <methods> <path>...]... [--host-address <ip>]... [--hint <words>] [--ca-file <path>]"

// CredentialsEnv names the variable the proxy reads its credentials from (a JSON array of
// {host, header, value}): never the argv, which docker inspect and the read-back show.
const CredentialsEnv = "AGENTRUN_EGRESS_CREDENTIALS"

// Options are the proxy's argv, checked.
type Options struct {
	Socket      string
	Deadline    time.Time
	List        allow.List
	HostAddrs   []netip.Addr
	Hint        string
	Reachable   netip.Prefix
	Rules       []allow.Rule
	Credentials []allow.Credential
	// ListFile is where the list is read, and read again while the proxy runs (listfile.go);
	// listRaw its bytes as first read.
	ListFile string
	listRaw  []byte
	// Settings are the files the rules, hint and credentials are read from with the list, and
	// read again with it (settingsfile.go); held is what they held at the start.
	Settings settingsFiles
	held     heldSettings
	// CAFile is where the proxy writes its own CA's certificate (PEM), made at its start: given, it
	// opens the tunnels to hosts with rules or credentials (their TLS ends at the proxy), else it
	// refuses them. The CA's key never leaves the proxy.
	CAFile string
	// TestRoots is the test-only seam: the system's roots and a test upstream's CA (PEM).
	TestRoots *x509.CertPool
	// TestNames is the test-only seam beside Reachable: names answered with an address in its
	// range, where a bench on this machine's loopback has no resolver that knows them.
	TestNames map[string]netip.Addr
}

type many []string

func (m *many) String() string     { return strings.Join(*m, ",") }
func (m *many) Set(s string) error { *m = append(*m, s); return nil }

// ParseArgs reads the argv and refuses, all together, what it cannot hold; credentials is
// CredentialsEnv's value ("" for none).
func ParseArgs(args []string, credentials string) (Options, error) {
	fs := flag.NewFlagSet("computerd egress", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var entries, hosts, rules many
	socket := fs.String("socket", "", "")
	dl := fs.String("deadline", "", "")
	hint := fs.String("hint", "", "")
	reach := fs.String("reachable-for-tests", "", "")
	testRoot := fs.String("upstream-root-for-tests", "", "")
	caFile := fs.String("ca-file", "", "")
	var testNames many
	fs.Var(&testNames, "resolve-for-tests", "")
	listFile := fs.String("allow-file", "", "")
	var files settingsFiles
	fs.StringVar(&files.rules, "rules-file", "", "")
	fs.StringVar(&files.hint, "hint-file", "", "")
	fs.StringVar(&files.credentials, "credentials-file", "", "")
	fs.Var(&entries, "allow", "")
	fs.Var(&hosts, "host-address", "")
	fs.Var(&rules, "rule", "")
	if err := fs.Parse(args); err != nil {
		return Options{}, fmt.Errorf("%v; usage: %s", err, Usage)
	}
	if fs.NArg() > 0 {
		return Options{}, fmt.Errorf("unexpected argument %q; usage: %s", fs.Arg(0), Usage)
	}
	var o Options
	var problems []string
	if !filepath.IsAbs(*socket) {
		problems = append(problems, "--socket is the absolute path of the Unix socket the computer reaches the proxy on")
	}
	o.Socket = *socket
	var err error
	if o.Deadline, err = time.Parse(time.RFC3339Nano, *dl); err != nil {
		problems = append(problems, fmt.Sprintf("--deadline %q is not an ISO time such as 2026-01-02T15:04:05Z: the proxy stops forwarding then", *dl))
	}
	if *reach != "" {
		if o.Reachable, err = allow.ParseReachable(*reach); err != nil {
			problems = append(problems, err.Error())
		}
	}
	for _, f := range []struct{ flag, path string }{{"--rules-file", files.rules}, {"--hint-file", files.hint}, {"--credentials-file", files.credentials}} {
		if f.path != "" && !filepath.IsAbs(f.path) {
			problems = append(problems, fmt.Sprintf("%s %q is not an absolute path", f.flag, f.path))
		}
	}
	switch {
	case files.given() && *listFile == "":
		problems = append(problems, "--rules-file, --hint-file and --credentials-file are read with --allow-file alone")
	case files.rules != "" && len(rules) > 0:
		problems = append(problems, "the rules are given by --rule or by --rules-file, not both")
	case files.hint != "" && *hint != "":
		problems = append(problems, "the hint is given by --hint or by --hint-file, not both")
	case files.credentials != "" && credentials != "":
		problems = append(problems, "the credentials are given by "+CredentialsEnv+" or by --credentials-file, not both")
	}
	switch {
	case *listFile != "" && len(entries) > 0:
		problems = append(problems, "the list is given by --allow or by --allow-file, not both")
	case *listFile != "" && !filepath.IsAbs(*listFile):
		problems = append(problems, fmt.Sprintf("--allow-file %q is not an absolute path", *listFile))
	case *listFile != "":
		r := listReload{path: *listFile, settings: files, reachable: o.Reachable}
		raw, list, held, err := r.read()
		if err != nil {
			problems = append(problems, "--allow-file: "+err.Error())
		}
		o.ListFile, o.listRaw, o.List, o.Settings, o.held = *listFile, raw, list, files, held
		o.Rules, o.Credentials = held.Rules, held.Credentials
	default:
		list, refusals := allow.Parse(entries, o.Reachable)
		for _, r := range refusals {
			problems = append(problems, "--allow: "+r.Message)
		}
		o.List = list
	}
	// Rules and credentials with --allow-file are checked against the file's list at the start and
	// held while it changes (a host the file drops is refused as off the list).
	if len(rules) > allow.MaxRules {
		problems = append(problems, fmt.Sprintf("--rule: %d rules, more than %d", len(rules), allow.MaxRules))
	}
	for _, r := range rules {
		rule, err := allow.ParseRule(r, o.List)
		if err != nil {
			problems = append(problems, "--rule: "+err.Error())
		}
		o.Rules = append(o.Rules, rule)
	}
	if credentials != "" {
		if err := json.Unmarshal([]byte(credentials), &o.Credentials); err != nil {
			problems = append(problems, CredentialsEnv+" is not a JSON array of {host, header, value}")
		}
		for _, w := range allow.CheckCredentials(o.Credentials, o.List) {
			problems = append(problems, CredentialsEnv+": "+w)
		}
	}
	for _, n := range testNames {
		name, at, _ := strings.Cut(n, "=")
		a, err := netip.ParseAddr(at)
		if err != nil || !o.Reachable.IsValid() || !o.Reachable.Contains(a) {
			problems = append(problems, fmt.Sprintf("--resolve-for-tests %q is not <name>=<address> with the address in --reachable-for-tests", n))
			continue
		}
		if o.TestNames == nil {
			o.TestNames = map[string]netip.Addr{}
		}
		o.TestNames[strings.ToLower(name)] = a
	}
	if *caFile != "" && !filepath.IsAbs(*caFile) {
		problems = append(problems, fmt.Sprintf("--ca-file %q is not an absolute path", *caFile))
	}
	o.CAFile = *caFile
	if *testRoot != "" {
		o.TestRoots = systemRoots()
		if !o.TestRoots.AppendCertsFromPEM([]byte(*testRoot)) {
			problems = append(problems, "--upstream-root-for-tests is not a PEM certificate")
		}
	}
	for _, h := range hosts {
		a, err := netip.ParseAddr(h)
		if err != nil || a.Zone() != "" {
			problems = append(problems, fmt.Sprintf("--host-address %q is not an IP address", h))
			continue
		}
		o.HostAddrs = append(o.HostAddrs, a.Unmap())
	}
	if err := allow.HintProblem(*hint); err != nil {
		problems = append(problems, fmt.Sprintf("--hint: %v (printable ASCII of at most %d bytes)", err, allow.MaxHint))
	}
	o.Hint = *hint
	if files.hint != "" {
		o.Hint = o.held.Hint
	}
	if len(problems) > 0 {
		return Options{}, errors.New(strings.Join(problems, "; "))
	}
	return o, nil
}

// Main runs the proxy to its deadline or SIGTERM and returns its exit code: 0 then, 1 when it
// refuses to start (the reason on stderr).
func Main(args []string, stdout, stderr io.Writer) int {
	o, err := ParseArgs(args, os.Getenv(CredentialsEnv))
	if err != nil {
		fmt.Fprintln(stderr, "computerd egress:", err)
		return 1
	}
	if !time.Now().Before(o.Deadline) {
		fmt.Fprintf(stderr, "computerd egress: its deadline %s has passed\n", o.Deadline.Format(time.RFC3339))
		return 1
	}
	cfg := proxy.Config{List: o.List, HostAddrs: o.HostAddrs, Hint: o.Hint, Deadline: o.Deadline, Reachable: o.Reachable, Log: stdout, Rules: o.Rules, Credentials: o.Credentials, UpstreamRoots: o.TestRoots}
	if o.TestNames != nil {
		cfg.Lookup = func(ctx context.Context, name string) ([]netip.Addr, error) {
			if a, ok := o.TestNames[name]; ok {
				return []netip.Addr{a}, nil
			}
			return net.DefaultResolver.LookupNetIP(ctx, "ip", name)
		}
	}
	// The CA's certificate is there before the socket is: a computer that reaches the proxy finds it.
	if o.CAFile != "" {
		if cfg.CA, err = publishCA(o.CAFile, o.Deadline); err != nil {
			fmt.Fprintln(stderr, "computerd egress:", err)
			return 1
		}
	}
	l, err := sockfile.Listen(o.Socket, "another proxy is listening on %s")
	if err != nil {
		fmt.Fprintln(stderr, "computerd egress:", err)
		return 1
	}
	defer os.Remove(o.Socket)
	p := proxy.New(cfg)
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		<-stop
		p.Close()
	}()
	fmt.Fprintf(stdout, "computerd egress: ready on %s until %s (%d entries, %d rules, %d credentials)\n", o.Socket, o.Deadline.UTC().Format(time.RFC3339), len(o.List.Entries()), len(o.Rules), len(o.Credentials))
	if cfg.CA != nil {
		fmt.Fprintf(stdout, "computerd egress: its CA (sha256 %x) is at %s\n", sha256.Sum256(cfg.CA.Certificate().Raw), o.CAFile)
	}
	if o.ListFile != "" {
		if o.Settings.given() {
			io.WriteString(stdout, settingsLine(o.held))
		}
		io.WriteString(stdout, heldLine(o.ListFile, o.List))
		tick := time.NewTicker(reloadEvery)
		defer tick.Stop()
		watching := make(chan struct{})
		defer close(watching)
		go watchListFile(watching, tick.C, &listReload{path: o.ListFile, settings: o.Settings, reachable: o.Reachable, last: o.listRaw, p: p, log: stdout})
	}
	p.Serve(l)
	return 0
}

// publishCA makes the proxy's CA and writes its certificate (never its key) to path, whole or
// not at all: a computer reads it at its start.
func publishCA(path string, deadline time.Time) (*ca.Authority, error) {
	a, err := ca.New("agentrun egress proxy CA", deadline.Add(24*time.Hour))
	if err != nil {
		return nil, fmt.Errorf("making its CA: %w", err)
	}
	tmp := path + ".partial"
	if err := os.WriteFile(tmp, a.PEM(), 0o644); err != nil {
		return nil, fmt.Errorf("writing its CA's certificate: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return nil, fmt.Errorf("writing its CA's certificate: %w", err)
	}
	return a, nil
}

// systemRoots are the system's roots, or none where the system has none to read.
func systemRoots() *x509.CertPool {
	if pool, err := x509.SystemCertPool(); err == nil {
		return pool
	}
	return x509.NewCertPool()
}
