package layering

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// allowedProbes are the anonymous-interface assertions that are the
// standard library's own contracts, not Loam's: an error joining others.
var allowedProbes = map[string]bool{"Unwrap() []error": true}

// A type assertion to an anonymous interface (x.(interface{ M() })) is a
// hidden contract: the caller needs a method its interface does not state.
// Loam states such methods on the interface the caller holds, or passes
// the value explicitly, so none may appear outside tests.
func TestNoOptionalInterfaceProbes(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); n == "node_modules" || n == "testdata" || (strings.HasPrefix(n, ".") && path != root) {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		if _, ok := floors[strings.Split(filepath.ToSlash(rel), "/")[0]]; !ok || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			var it *ast.InterfaceType
			switch n := n.(type) {
			case *ast.TypeAssertExpr:
				it, _ = n.Type.(*ast.InterfaceType)
			case *ast.CaseClause: // a type switch's case interface{ … }
				for _, e := range n.List {
					if i, ok := e.(*ast.InterfaceType); ok {
						it = i
					}
				}
			}
			if it != nil && !allowedProbes[methods(it)] {
				t.Errorf("%s: a probe for interface{ %s }: state the method on the interface the caller holds", fset.Position(n.Pos()), methods(it))
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// methods prints an interface's methods as written, "M() T; N()".
func methods(it *ast.InterfaceType) string {
	var out []string
	for _, m := range it.Methods.List {
		ft, ok := m.Type.(*ast.FuncType)
		if !ok || len(m.Names) == 0 {
			out = append(out, "embedded")
			continue
		}
		s := m.Names[0].Name + "()"
		if ft.Results != nil {
			var rs []string
			for _, r := range ft.Results.List {
				rs = append(rs, types(r.Type))
			}
			if len(rs) == 1 {
				s += " " + rs[0]
			} else {
				s += " (" + strings.Join(rs, ", ") + ")"
			}
		}
		out = append(out, s)
	}
	return strings.Join(out, "; ")
}

// types prints a result type as far as the allow-list needs.
func types(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.ArrayType:
		return "[]" + types(e.Elt)
	case *ast.StarExpr:
		return "*" + types(e.X)
	case *ast.SelectorExpr:
		return types(e.X) + "." + e.Sel.Name
	}
	return "?"
}
