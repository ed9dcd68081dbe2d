package workflows

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Search attribute keys are made in one place, keyword, so the names the
// server registers (SearchAttributeNames) are every key's own: a key made
// anywhere else in the package fails here.
func TestSearchAttributeKeysMadeOnce(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var made []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok && strings.HasPrefix(sel.Sel.Name, "NewSearchAttributeKey") {
				made = append(made, fset.Position(sel.Pos()).String())
			}
			return true
		})
	}
	if len(made) != 1 || !strings.HasPrefix(made[0], "names.go:") {
		t.Fatalf("search attribute keys made at %v; make them through keyword (names.go)", made)
	}
	names := SearchAttributeNames()
	want := []string{SATenantID.GetName(), SASubjectKind.GetName(), SASubjectID.GetName(), SACheckType.GetName(),
		SACheckStatus.GetName(), SAWebhookEndpointID.GetName(), SADeliveryStatus.GetName()}
	if !slices.Equal(names, want) {
		t.Fatalf("SearchAttributeNames() = %v, want %v", names, want)
	}
}
