// Command kycflow runs the kycflow API, the worker, the admin tasks and the
// development stack. It only parses commands: what each does is in a
// library package (app, devstack, proxy, chaos, loadtest, screening, store).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/kycflow/kycflow/app"
	"github.com/kycflow/kycflow/chaos"
	"github.com/kycflow/kycflow/devstack"
	"github.com/kycflow/kycflow/loadtest"
	"github.com/kycflow/kycflow/proxy"
)

// runFunc runs a command with the configuration and its arguments (those
// left after its flags).
type runFunc func(ctx context.Context, cfg app.Config, args []string) error

// command is one line of `kycflow help`: its words, its arguments, what it
// does, and setup, which declares its flags on fs and returns what runs
// it. `kycflow <words> --help` prints its flags with their defaults.
type command struct {
	name, args, about string
	setup             func(fs *flag.FlagSet) runFunc
}

// noFlags is the setup of a command without flags.
func noFlags(run runFunc) func(*flag.FlagSet) runFunc {
	return func(*flag.FlagSet) runFunc { return run }
}

var commands = []command{
	{"dev", "", "the whole stack on this machine (PostgreSQL, Temporal, API, worker); --cluster: the production topology, 2 api and 3 worker processes behind a proxy", func(fs *flag.FlagSet) runFunc {
		cluster := fs.Bool("cluster", false, "the production topology: the Temporal server on PostgreSQL, 2 api and 3 worker processes behind a proxy")
		return func(ctx context.Context, cfg app.Config, _ []string) error {
			if *cluster {
				return devstack.RunCluster(ctx, cfg)
			}
			return devstack.RunDev(ctx, cfg)
		}
	}},
	{"api", "", "HTTP API", noFlags(runAPI)},
	{"worker", "", "Temporal worker and outbox relay", noFlags(runWorker)},
	{"proxy", "", "round-robin HTTP proxy in front of several api processes", noFlags(func(ctx context.Context, cfg app.Config, _ []string) error {
		b, err := proxy.NewBalancer(cfg.ProxyUpstreams)
		if err != nil {
			return err
		}
		return proxy.Serve(ctx, cfg.HTTPAddrFor(false), b)
	})},
	{"migrate", "", "create or upgrade the database schema (as the owner role)", noFlags(runMigrate)},
	{"tenant create", "", "a tenant and its first API key", tenantCreate},
	{"tenant update", "", "a tenant's settings", tenantUpdate},
	{"tenant list", "", "every tenant", noFlags(tenantList)},
	{"tenant key create", "", "a new API key", tenantKey("create")},
	{"tenant key list", "", "a tenant's keys", tenantKey("list")},
	{"tenant key revoke", "KEY_ID_OR_PREFIX", "revoke a key (within a second on every api)", tenantKey("revoke")},
	{"check retry", "CHECK_ID", "resume a failed check", noFlags(checkRetry)},
	{"check review", "CHECK_ID", "decide an aml hit awaiting review", checkReview},
	{"staff create", "", "a console account of a tenant's, invited (the link printed)", staffCmd("create")},
	{"staff list", "", "a tenant's console accounts", staffCmd("list")},
	{"staff disable", "", "a console account, for good (signed out everywhere)", staffCmd("disable")},
	{"staff invite", "", "a new invitation link for an account not yet signed in", staffCmd("invite")},
	{"webhook create", "", "an endpoint of a tenant's", webhookCmd("create")},
	{"webhook list", "", "a tenant's endpoints", webhookCmd("list")},
	{"webhook delete", "ENDPOINT_ID", "delete an endpoint", webhookCmd("delete")},
	{"webhook rotate-secret", "ENDPOINT_ID", "a new signing secret (the old one signs for 24 h)", webhookCmd("rotate-secret")},
	{"webhook deliveries", "ENDPOINT_ID", "an endpoint's deliveries and attempts", webhookCmd("deliveries")},
	{"webhook redeliver", "EVENT_ID", "deliver an event again", webhookCmd("redeliver")},
	{"sandbox", "", "KvK, VIES and iDIN sandboxes (for docker compose or your own setup)", noFlags(devstack.RunSandbox)},
	{"watchlist import", "FILE|URL...", "a list file as a new version of its list", watchlistImport},
	{"watchlist list", "", "list versions, content hashes, rescreening state", noFlags(watchlistList)},
	{"watchlist eval", "", "matcher quality and speed on a generated list", watchlistEval},
	{"watchlist tune", "", "matcher quality on the real lists' tuning cases of many seeds, with what it misses", watchlistTune},
	{"watchlist generate", "", "a fictional list as FtM JSON lines, to import", watchlistGenerate},
	{"idscan generate", "", "labelled photos of generated passports and ID cards, to upload or evaluate", idscanGenerate},
	{"idscan eval", "", "document reader accuracy and speed on generated photos", idscanEval},
	{"face eval", "", "face matcher error rates and speed on labelled face photos", faceEval},
	{"face liveness", "", "the liveness rules on challenges answered by labelled photos of people in several poses, and on spoofs made from them", faceLiveness},
	{"bench", "", "load test against a running API", func(fs *flag.FlagSet) runFunc {
		var o loadtest.Options
		o.Flags(fs)
		return func(ctx context.Context, _ app.Config, _ []string) error { return loadtest.Run(ctx, o) }
	}},
	{"chaos", "", "a fault campaign on a stack of its own: load, then kills, pauses, restarts, outages; then verification", func(fs *flag.FlagSet) runFunc {
		var o chaos.Options
		o.Flags(fs)
		return func(ctx context.Context, cfg app.Config, _ []string) error { return chaos.Run(ctx, cfg, o) }
	}},
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:])
	stop()
	if errors.Is(err, errUsage) {
		usage(os.Stderr)
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "kycflow:", err)
		os.Exit(1)
	}
}

var errUsage = errors.New("usage")

// lookupCommand is the command args start with (the longest name that
// matches), and the words after its name.
func lookupCommand(args []string) (*command, []string) {
	var best *command
	for i := range commands {
		words := strings.Fields(commands[i].name)
		if len(words) <= len(args) && slices.Equal(words, args[:len(words)]) && (best == nil || len(words) > len(strings.Fields(best.name))) {
			best = &commands[i]
		}
	}
	if best == nil {
		return nil, nil
	}
	return best, args[len(strings.Fields(best.name)):]
}

func run(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return errUsage
	}
	if args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(os.Stdout)
		return nil
	}
	if h := slices.IndexFunc(args, func(a string) bool { return a == "--help" || a == "-h" }); h > 0 {
		return commandHelp(os.Stdout, args[:h])
	}
	cmd, rest := lookupCommand(args)
	if cmd == nil {
		return errUsage
	}
	fs := flag.NewFlagSet(cmd.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	runCmd := cmd.setup(fs)
	positional, err := parse(fs, rest)
	if err != nil {
		return fmt.Errorf("kycflow %s: %w (kycflow %s --help lists its flags)", cmd.name, err, cmd.name)
	}
	cfg, err := loadConfig()
	if err != nil {
		return err
	}
	return runCmd(ctx, cfg, positional)
}

// parse parses flags before, between and after the arguments (`check
// review ID --note …`), and returns the arguments.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return positional, nil
		}
		positional, args = append(positional, fs.Arg(0)), fs.Args()[1:]
	}
}

// usage is `kycflow help`: every command, a line each.
func usage(w io.Writer) {
	fmt.Fprint(w, "kycflow — identity and compliance verification service\n\nUsage:\n")
	for _, c := range commands {
		line := "  kycflow " + c.name
		if c.args != "" {
			line += " " + c.args
		}
		fmt.Fprintf(w, "%-46s %s\n", line, c.about)
	}
	fmt.Fprint(w, "\n`kycflow <command> --help` lists a command's flags and the environment it reads;\nconfiguration comes from environment variables (README.md).\n")
}

// commandHelp prints the usage and flags (with their defaults) of the
// commands whose names start with words, and the environment variables
// they read.
func commandHelp(w io.Writer, words []string) error {
	var matched []command
	for _, c := range commands {
		name := strings.Fields(c.name)
		if len(name) >= len(words) && slices.Equal(name[:len(words)], words) {
			matched = append(matched, c)
		}
	}
	if len(matched) == 0 {
		return errUsage
	}
	for _, c := range matched {
		fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
		c.setup(fs)
		line := "kycflow " + c.name
		if n := countFlags(fs); n > 0 {
			line += " [flags]"
		}
		if c.args != "" {
			line += " " + c.args
		}
		fmt.Fprintf(w, "Usage: %s\n  %s\n", line, c.about)
		if countFlags(fs) > 0 {
			fmt.Fprintln(w, "Flags:")
			fs.SetOutput(w)
			fs.PrintDefaults()
		}
		fmt.Fprintln(w)
	}
	printSettings(w, words[0])
	return nil
}

func countFlags(fs *flag.FlagSet) int {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n
}
