//go:build ignore

// refresh copies from a checkout of the Go vulnerability database
// (github.com/golang/vulndb, its data/osv directory) the entries that concern
// this module's dependencies or the Go standard library and toolchain, into
// .ci/vulndb/osv: the database `make vulncheck` reads on machines that cannot
// reach vuln.go.dev.
//
//	go run .ci/vulndb/refresh.go /path/to/vulndb
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: go run .ci/vulndb/refresh.go /path/to/vulndb")
		os.Exit(2)
	}
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Path}}", "all").Output()
	check(err)
	modules := map[string]bool{"stdlib": true, "toolchain": true}
	for _, m := range strings.Fields(string(out)) {
		modules[m] = true
	}
	src := filepath.Join(os.Args[1], "data", "osv")
	dst := filepath.Join(".ci", "vulndb", "osv")
	check(os.RemoveAll(dst))
	check(os.MkdirAll(dst, 0o755))
	files, err := filepath.Glob(filepath.Join(src, "*.json"))
	check(err)
	kept := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		check(err)
		var e struct {
			Affected []struct {
				Package struct{ Name string } `json:"package"`
			} `json:"affected"`
		}
		check(json.Unmarshal(b, &e))
		for _, a := range e.Affected {
			if modules[a.Package.Name] {
				check(os.WriteFile(filepath.Join(dst, filepath.Base(f)), b, 0o644))
				kept++
				break
			}
		}
	}
	fmt.Printf("%d of %d entries kept in %s\n", kept, len(files), dst)
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
