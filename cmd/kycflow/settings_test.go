package main

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The README's configuration table and the settings table name the same
// variables, and every setting is read through the table.
func TestSettingsDocumented(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	// Variables the README documents that belong to Go or to the tests.
	outside := []string{"GOGC", "GOMEMLIMIT", "TEMPORAL_BIN", "TEMPORAL_SERVER_DIR", "TEMPORAL_SCHEMA_DIR", "SSL_CERT_FILE"}
	documented := map[string]bool{}
	for _, row := range regexp.MustCompile(`(?m)^\|[^|]*\|`).FindAllString(string(readme), -1) {
		for _, m := range regexp.MustCompile("`([A-Z][A-Z0-9_]{2,})`").FindAllStringSubmatch(row, -1) {
			documented[m[1]] = true
		}
	}
	names := map[string]bool{}
	for _, s := range settings {
		if names[s.name] {
			t.Errorf("%s is in the settings table twice", s.name)
		}
		names[s.name] = true
		if !documented[s.name] {
			t.Errorf("%s is not in the README's configuration table", s.name)
		}
		if len(s.commands) == 0 || s.help == "" || groupTitles[s.group] == "" {
			t.Errorf("%s: commands, help and group are required", s.name)
		}
	}
	for name := range documented {
		if !names[name] && !slices.Contains(outside, name) && strings.Contains(name, "_") {
			t.Errorf("the README documents %s, which kycflow does not read", name)
		}
	}
}

// Every command's --help lists its flags with their defaults, and names
// the environment it reads.
func TestCommandHelp(t *testing.T) {
	for _, c := range commands {
		var b bytes.Buffer
		if err := commandHelp(&b, strings.Fields(c.name)); err != nil {
			t.Fatalf("kycflow %s --help: %v", c.name, err)
		}
		help := b.String()
		fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
		c.setup(fs)
		fs.VisitAll(func(f *flag.Flag) {
			if !strings.Contains(help, "-"+f.Name) {
				t.Errorf("kycflow %s --help does not list -%s:\n%s", c.name, f.Name, help)
			}
			if d := f.DefValue; d != "" && d != "0" && d != "false" && d != "0s" && f.Name != "seed" && !strings.Contains(help, "(default "+d) && !strings.Contains(help, "(default \""+d) {
				t.Errorf("kycflow %s --help does not give -%s's default %s:\n%s", c.name, f.Name, d, help)
			}
		})
		if !strings.Contains(help, "Environment (kycflow ") {
			t.Errorf("kycflow %s --help lists no settings:\n%s", c.name, help)
		}
	}
	for _, cmd := range []string{"dev", "api", "worker", "migrate", "tenant", "check", "watchlist", "sandbox"} {
		var b bytes.Buffer
		printSettings(&b, cmd)
		if strings.Count(b.String(), "\n") < 3 {
			t.Errorf("kycflow %s --help lists no settings:\n%s", cmd, b.String())
		}
	}
	var b bytes.Buffer
	printSettings(&b, "api")
	if !strings.Contains(b.String(), "RATE_LIMIT") || !strings.Contains(b.String(), "SMTP_HOST") || strings.Contains(b.String(), "KVK_API_KEY") {
		t.Errorf("the api's settings:\n%s", b.String())
	}
	// A command's help is found by its first words too, and an unknown
	// one is a usage error.
	var b2 bytes.Buffer
	if err := commandHelp(&b2, []string{"tenant"}); err != nil || !strings.Contains(b2.String(), "kycflow tenant update [flags]") || !strings.Contains(b2.String(), "-aml-threshold") {
		t.Errorf("kycflow tenant --help: %v\n%s", err, b2.String())
	}
	if err := commandHelp(&b2, []string{"nosuch"}); !errors.Is(err, errUsage) {
		t.Errorf("kycflow nosuch --help: %v", err)
	}
}
