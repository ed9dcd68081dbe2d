// Command kycflow runs the kycflow API, the worker, the admin tasks and the
// embedded development stack.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

const usage = `kycflow — identity and compliance verification service

Usage:
  kycflow dev                       whole stack on this machine (PostgreSQL, Temporal, API, worker)
  kycflow dev --cluster             the production topology on this machine: Temporal server on PostgreSQL, 2 api and 3 worker processes behind a proxy
  kycflow api                       HTTP API
  kycflow worker                    Temporal worker and outbox relay
  kycflow proxy                     round-robin HTTP proxy in front of several api processes
  kycflow migrate                   create or upgrade the database schema (as the owner role)
  kycflow tenant create --name N --host H [--host H2] [--sandbox] [--link-ttl 168h]
  kycflow tenant update --tenant ID [--link-ttl DURATION] [--aml-threshold SCORE] [--aml-hard-conflict on|off]
                        [--aml-review-window DURATION] [--aml-lists NAME,...|all]
  kycflow tenant list
  kycflow tenant key create --tenant ID
  kycflow tenant key list --tenant ID
  kycflow tenant key revoke --tenant ID KEY_ID_OR_PREFIX
  kycflow check retry CHECK_ID      resume a failed check
  kycflow check review CHECK_ID --reviewer NAME --entity ENTITY_ID --decision false_positive|true_match [--note TEXT]
                                    decide an aml hit awaiting review
  kycflow webhook create --tenant ID --url URL [--event TYPE]... [--description D]
  kycflow webhook list --tenant ID
  kycflow webhook delete --tenant ID ENDPOINT_ID
  kycflow webhook rotate-secret --tenant ID ENDPOINT_ID
  kycflow webhook deliveries --tenant ID ENDPOINT_ID
  kycflow webhook redeliver --tenant ID [--endpoint ID] EVENT_ID
  kycflow sandbox                   KvK, VIES and iDIN sandboxes (for docker compose or your own setup)
  kycflow watchlist import --format ftm|eu-fsf|eu-xml|ofac-sdn|un-xml [--list NAME] [--max-size BYTES] [--timeout 10m] FILE|URL...
  kycflow watchlist list
  kycflow watchlist eval [flags]    matcher quality and speed on a generated list (see --help)
  kycflow watchlist generate [--entities N] [--seed S] [--out FILE]
                                    a fictional list as FtM JSON lines, to import
  kycflow bench [flags]             load test against a running API (see --help)
  kycflow chaos [--topology cluster|dev] [--duration 60s] [--rate 8] [--kills 4] [--pauses 2] [--pg-restarts 1] [--outages 1]
                                    a fault campaign on a stack of its own: load, then kills, pauses, restarts, outages; then verification

Configuration comes from environment variables; see README.md.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:])
	stop()
	if errors.Is(err, errUsage) {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "kycflow:", err)
		os.Exit(1)
	}
}

var errUsage = errors.New("usage")

func run(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return errUsage
	}
	if len(args) == 2 && (args[1] == "--help" || args[1] == "-h" || args[1] == "help") && args[0] != "help" {
		return commandHelp(args[0])
	}
	cfg, err := loadConfig()
	if err != nil {
		return err
	}
	switch args[0] {
	case "dev":
		if len(args) > 1 && args[1] == "--cluster" {
			return runCluster(ctx, cfg)
		}
		return runDev(ctx, cfg)
	case "proxy":
		return runProxy(ctx, cfg)
	case "api":
		return runAPI(ctx, cfg)
	case "worker":
		return runWorker(ctx, cfg)
	case "migrate":
		return runMigrate(ctx, cfg)
	case "tenant":
		return runTenant(ctx, cfg, args[1:])
	case "check":
		return runCheck(ctx, cfg, args[1:])
	case "webhook":
		return runWebhook(ctx, cfg, args[1:])
	case "watchlist":
		return runWatchlist(ctx, cfg, args[1:])
	case "sandbox":
		return runSandbox(ctx, cfg)
	case "bench":
		return runBench(ctx, args[1:])
	case "chaos":
		return runChaos(ctx, cfg, args[1:])
	case "help", "-h", "--help":
		fmt.Print(usage)
		return nil
	}
	return errUsage
}

// commandHelp prints a command's usage lines and the environment variables
// it reads.
func commandHelp(command string) error {
	var lines []string
	for _, l := range strings.Split(usage, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "kycflow "+command+" ") || strings.TrimSpace(l) == "kycflow "+command {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		return errUsage
	}
	fmt.Println("Usage:")
	fmt.Println(strings.Join(lines, "\n"))
	fmt.Println()
	printSettings(os.Stdout, command)
	return nil
}
