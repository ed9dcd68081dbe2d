// Package archtest holds tests of the code base's shape: the import rules
// docs/ARCHITECTURE.md states, read from the document itself, so the two
// cannot drift apart.
package archtest

import (
	"go/build"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/kycflow/kycflow"

// rule is a row of ARCHITECTURE.md's table: a package and what it may
// import ("*": anything).
type rule struct {
	pkg     string
	imports []string
}

// rules reads the table under "## Packages and what they may import".
func rules(t *testing.T) []rule {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join("..", "docs", "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "## Packages and what they may import")
	if !ok {
		t.Fatal("ARCHITECTURE.md has no import rules section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	row := regexp.MustCompile("^\\| `([a-z/]+)` \\|.*\\| ([^|]+) \\|$")
	names := regexp.MustCompile("`([a-z/]+)`")
	var out []rule
	for _, line := range strings.Split(section, "\n") {
		m := row.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		r := rule{pkg: m[1]}
		switch last := strings.TrimSpace(m[2]); last {
		case "anything":
			r.imports = []string{"*"}
		case "—":
		default:
			for _, n := range names.FindAllStringSubmatch(last, -1) {
				r.imports = append(r.imports, n[1])
			}
		}
		out = append(out, r)
	}
	if len(out) < 15 {
		t.Fatalf("read only %d rules from ARCHITECTURE.md", len(out))
	}
	return out
}

// within reports whether pkg is name or below it.
func within(pkg, name string) bool { return pkg == name || strings.HasPrefix(pkg, name+"/") }

// ruleOf is the rule of the nearest row that covers pkg.
func ruleOf(rs []rule, pkg string) (rule, bool) {
	var best rule
	found := false
	for _, r := range rs {
		if within(pkg, r.pkg) && (!found || len(r.pkg) > len(best.pkg)) {
			best, found = r, true
		}
	}
	return best, found
}

// Every package imports only what its row allows; every package has a
// row, and every row names a package.
func TestImportRules(t *testing.T) {
	rs := rules(t)
	used := map[string]bool{}
	checked := 0
	err := filepath.WalkDir("..", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if name := d.Name(); path != ".." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
			return filepath.SkipDir
		}
		p, err := build.ImportDir(path, 0)
		if err != nil { // no Go files, or only tests
			return nil
		}
		rel := strings.TrimPrefix(filepath.ToSlash(path), "../")
		r, ok := ruleOf(rs, rel)
		if !ok {
			t.Errorf("%s has no row in ARCHITECTURE.md's import rules", rel)
			return nil
		}
		used[r.pkg] = true
		checked++
		for _, imp := range p.Imports {
			dep, ok := strings.CutPrefix(imp, module+"/")
			if !ok || within(dep, r.pkg) || slices.Contains(r.imports, "*") {
				continue
			}
			if !slices.ContainsFunc(r.imports, func(allowed string) bool { return within(dep, allowed) }) {
				t.Errorf("%s imports %s, which ARCHITECTURE.md does not allow it (its row %s allows %v)", rel, dep, r.pkg, r.imports)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if !used[r.pkg] && r.pkg != "archtest" {
			t.Errorf("ARCHITECTURE.md has a row for %s, which is no package", r.pkg)
		}
	}
	if checked < 40 {
		t.Fatalf("only %d packages checked", checked)
	}
}
