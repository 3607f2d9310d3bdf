package initd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"agentrun.dev/computerd/internal/deadline"
	"agentrun.dev/computerd/internal/egress/relay"
	"agentrun.dev/computerd/internal/egress/trust"
	"agentrun.dev/computerd/internal/isolate"
	"agentrun.dev/computerd/internal/launch"
	"agentrun.dev/computerd/internal/methods"
	"agentrun.dev/computerd/internal/procctl"
	"agentrun.dev/computerd/internal/ptree"
	"agentrun.dev/computerd/internal/reaper"
	"agentrun.dev/computerd/internal/x11"
)

// Options are init's flags.
type Options struct {
	Deadline    time.Time
	MaxDeadline time.Time // zero: none
	User        string    // "uid:gid", or empty
	// OwnNetwork puts init and its programs in a network namespace of their own, under the
	// seccomp filter (package isolate).
	OwnNetwork bool
	// LoopbackAlone: the network is the runtime's, one init cannot make a namespace in (a gVisor
	// sandbox run with none of its own); init makes nothing and reads back that lo alone is up
	// or addressed, refusing to start otherwise.
	LoopbackAlone bool
	// Egress is the egress proxy's socket: init relays 127.0.0.1:3128 to it (package relay).
	// With OwnNetwork the relay listens on the namespace's own loopback and the socket, a path
	// on a volume shared with a proxy outside the namespace, is its one way out (Kubernetes).
	Egress string
	// Stdio serves one client over init's own stdin and stdout (a container attached), beside the socket.
	Stdio bool
	// Browser: the computer is a browser (its provider starts Chromium through the daemon), and
	// hello says kind browser; the methods are a linux computer's.
	Browser bool
}

const initUsage = "usage: computerd init --deadline <time> [--max-deadline <time>] [--user uid:gid [--own-network | --loopback-alone]] [--egress <sock>] [--stdio] [--kind browser]"

// ParseArgs reads `init --deadline <time> [--max-deadline <time>] [--user uid:gid [--own-network | --loopback-alone]] [--egress <sock>] [--stdio] [--kind browser]`.
func ParseArgs(args []string) (Options, error) {
	fs := flag.NewFlagSet("computerd init", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	dl := fs.String("deadline", "", "")
	max := fs.String("max-deadline", "", "")
	user := fs.String("user", "", "")
	own := fs.Bool("own-network", false, "")
	alone := fs.Bool("loopback-alone", false, "")
	egress := fs.String("egress", "", "")
	stdio := fs.Bool("stdio", false, "")
	kind := fs.String("kind", "", "")
	if err := fs.Parse(args); err != nil {
		return Options{}, fmt.Errorf("%v; %s", err, initUsage)
	}
	if fs.NArg() > 0 {
		return Options{}, fmt.Errorf("unexpected argument %q; %s", fs.Arg(0), initUsage)
	}
	if *dl == "" {
		return Options{}, fmt.Errorf("--deadline <time> is required (an ISO time such as 2026-01-02T15:04:05Z)")
	}
	var o Options
	var err error
	if o.Deadline, err = time.Parse(time.RFC3339Nano, *dl); err != nil {
		return Options{}, fmt.Errorf("--deadline %q is not an ISO time such as 2026-01-02T15:04:05Z", *dl)
	}
	if *max != "" {
		if o.MaxDeadline, err = time.Parse(time.RFC3339Nano, *max); err != nil {
			return Options{}, fmt.Errorf("--max-deadline %q is not an ISO time such as 2026-01-02T15:04:05Z", *max)
		}
	}
	o.User, o.OwnNetwork, o.LoopbackAlone, o.Stdio = *user, *own, *alone, *stdio
	if o.OwnNetwork && o.User == "" {
		return Options{}, fmt.Errorf("--own-network needs --user <uid:gid>, the computer's programs' own uid (not 0); %s", initUsage)
	}
	if o.LoopbackAlone && (o.OwnNetwork || *egress != "") {
		return Options{}, fmt.Errorf("--loopback-alone is a network of none, read back, so it takes neither --own-network nor --egress; %s", initUsage)
	}
	if *egress != "" && !filepath.IsAbs(*egress) {
		return Options{}, fmt.Errorf("--egress %q is not an absolute path: give the egress proxy's socket, such as /opt/agentrun/egress/egress.sock", *egress)
	}
	o.Egress = *egress
	switch *kind {
	case "":
	case "browser":
		o.Browser = true
	default:
		return Options{}, fmt.Errorf("--kind %q: init takes --kind browser alone (a desktop is said by its display); %s", *kind, initUsage)
	}
	return o, nil
}

// Main runs init to its end and returns its exit code: 0 after a shutdown, 1 when it refuses
// to start (the reason on stderr).
func Main(args []string) int {
	o, err := ParseArgs(args)
	if err != nil {
		fmt.Fprintln(os.Stderr, "computerd init:", err)
		return 1
	}
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "computerd init:", err)
		return 1
	}
	return 0
}

func run(o Options) error {
	clock, err := deadline.New(o.Deadline, o.MaxDeadline)
	if err != nil {
		return err
	}
	if o.OwnNetwork {
		if err := enterOwnNetwork(o.User); err != nil {
			return err
		}
	}
	if o.LoopbackAlone {
		if err := loopbackAlone(); err != nil {
			return err
		}
	}
	if err := dropPrivileges(o.User, SocketPath()); err != nil {
		return err
	}
	if err := procctl.NotDumpable(); err != nil {
		return fmt.Errorf("keeping the computer's programs out of init: %v", err)
	}
	if o.OwnNetwork {
		if err := isolate.InstallFilter(); err != nil {
			return err
		}
	}
	// Signals are caught before the socket is there: a client that can connect can be answered by a stop.
	stop := make(chan os.Signal, 2)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	l, err := listen(SocketPath())
	if err != nil {
		return err
	}
	var store *trust.Store
	if o.Egress != "" {
		rl, err := net.Listen("tcp", relay.Addr)
		if err != nil {
			l.Close()
			return fmt.Errorf("--egress: cannot listen on %s for the computer's programs, so none could reach the egress proxy: %w", relay.Addr, err)
		}
		defer rl.Close()
		store = trust.New(o.Egress, filepath.Dir(SocketPath()))
		// A CA that changes (the proxy made again) is taken as the next connection passes.
		go relay.Serve(rl, o.Egress, func() { store.Refresh() })
	}
	if err := procctl.ChildSubreaper(); err != nil {
		return fmt.Errorf("becoming a child subreaper: %v", err)
	}
	reaper.ReapAll(sweep)

	// The display DISPLAY names at start, reached when first asked for (an X server started
	// later through process.start is found then).
	d := methods.New(clock, x11.NewDisplay(os.Getenv("DISPLAY"), x11.AuthPath(os.Getenv("XAUTHORITY"), os.Getenv("HOME"))))
	d.Browser = o.Browser
	// An allowlisted computer starts beside its proxy: until the proxy answers, init serves no
	// client, so nothing of the agent's runs before its one way out is there.
	if o.Egress != "" && !waitForProxy(o.Egress, stop, clock.Fired()) {
		l.Close()
		os.Remove(SocketPath())
		return nil
	}
	// A proxy that opens TLS for hosts with rules or credentials has written its CA by the time it
	// answers: every program is pointed at the relay and at a bundle that holds the CA.
	if store != nil {
		if err := store.Refresh(); err != nil {
			l.Close()
			os.Remove(SocketPath())
			return fmt.Errorf("--egress: %w", err)
		}
		vars := relay.Env(relay.Addr)
		maps.Copy(vars, store.Env())
		launch.UseRelay(vars)
	}

	// The first exec.run's guard, started while the first client connects.
	d.Runs.Prime()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// --stdio: one client over init's own stdin and stdout, served as a socket's connection is.
	// Docker gives a container's stdin to the first attach that takes it and closes it when that
	// attach ends (StdinOnce): so this is the computer's first client, reached with no exec, its
	// end is stdin's, and every later client comes through the socket. No program init starts
	// holds these descriptors (a guard gets /dev/null), so none reads the requests or writes a reply.
	if o.Stdio {
		go d.Serve(ctx, os.Stdin, os.Stdout)
	}
	var conns sync.WaitGroup
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				if errors.Is(err, net.ErrClosed) {
					return
				}
				time.Sleep(10 * time.Millisecond)
				continue
			}
			conns.Add(1)
			go func() {
				defer conns.Done()
				defer c.Close()
				d.Serve(ctx, c, c)
			}()
		}
	}()

	select {
	case <-stop:
	case <-clock.Fired():
	}
	// Connections stay open until init exits, so reads, waits and lists still answer.
	d.Runs.Shutdown()
	killAllUnder(os.Getpid())
	l.Close()
	os.Remove(SocketPath())
	return nil
}

// sweep kills every child of init that is not one of its guards: an orphan whose guard died,
// or one left by something run with docker exec. Everything under it goes with it.
func sweep() {
	reaper.Unwatched(func(watched func(int) bool) {
		all := ptree.All()
		for _, c := range ptree.Children(all, os.Getpid()) {
			if watched(c.Pid) || c.State == 'Z' {
				continue
			}
			under := ptree.Descendants(all, c.Pid)
			syscall.Kill(c.Pid, syscall.SIGKILL)
			for _, s := range under {
				syscall.Kill(s.Pid, syscall.SIGKILL)
			}
		}
	})
}

// killAllUnder is init's last step: nothing it started outlives it.
func killAllUnder(pid int) {
	for i := 0; i < 100; i++ {
		left := ptree.Descendants(ptree.All(), pid)
		if len(left) == 0 {
			return
		}
		for _, s := range left {
			syscall.Kill(s.Pid, syscall.SIGKILL)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
