// Package layering guards the direction data flows in (../shared/DESIGN.md,
// and docs/design.md for the floors as built):
// wire → sql → exec → storage, with meta beside them. A package may import
// its own floor and the floors below it, never one above.
package layering

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/loamdb/loam/"

// floors, top first. meta sits beside the floors: sql and storage may use
// it, and it uses none of them. pgerr is every floor's error type, and
// types (SQL types, values and their PostgreSQL text and binary formats)
// is every floor's vocabulary; types uses only pgerr. auth (password
// verifiers, SCRAM) is the floor at the bottom that anyone may use: wire
// checks logins with it, meta stores its verifiers, sql makes them for
// CREATE ROLE; it uses only pgerr.
var floors = map[string]int{"cmd": 0, "wire": 1, "sql": 2, "exec": 3, "storage": 4, "meta": 5, "types": 6, "pgerr": 7, "auth": 8}

// allowed says whether a package under floor from may import one under to.
func allowed(from, to string) bool {
	if from == to || to == "pgerr" || (to == "types" && from != "pgerr" && from != "auth") {
		return true
	}
	if to == "auth" {
		return from != "pgerr" && from != "types"
	}
	f, okf := floors[from]
	t, okt := floors[to]
	if !okf || !okt {
		return true // tests, benchmarks and tools sit outside the floors
	}
	if to == "meta" {
		return from == "cmd" || from == "sql" || from == "storage"
	}
	if from == "meta" {
		return false
	}
	return t > f
}

func TestImportsFlowDown(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
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
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		from := strings.Split(filepath.ToSlash(rel), "/")[0]
		if _, ok := floors[from]; !ok {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		checked++
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if !strings.HasPrefix(p, module) {
				continue
			}
			to := strings.Split(strings.TrimPrefix(p, module), "/")[0]
			if !allowed(from, to) {
				t.Errorf("%s imports %s: %s may not reach up (or across) to %s", rel, p, from, to)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("checked only %d files: is the test run from regress/layering?", checked)
	}
}

// The rule itself, so a loosened table shows here.
func TestAllowed(t *testing.T) {
	for _, c := range []struct {
		from, to string
		ok       bool
	}{
		{"wire", "sql", true}, {"sql", "exec", true}, {"exec", "storage", true}, {"wire", "exec", true},
		{"sql", "wire", false}, {"exec", "sql", false}, {"storage", "exec", false}, {"storage", "sql", false},
		{"storage", "meta", true}, {"sql", "meta", true}, {"exec", "meta", false}, {"meta", "storage", false},
		{"meta", "pgerr", true}, {"exec", "pgerr", true},
		{"wire", "types", true}, {"storage", "types", true}, {"types", "exec", false}, {"types", "wire", false}, {"pgerr", "types", false},
		{"wire", "auth", true}, {"meta", "auth", true}, {"sql", "auth", true}, {"cmd", "auth", true},
		{"auth", "pgerr", true}, {"auth", "types", false}, {"auth", "meta", false}, {"auth", "wire", false},
	} {
		if got := allowed(c.from, c.to); got != c.ok {
			t.Errorf("allowed(%s, %s) = %v, want %v", c.from, c.to, got, c.ok)
		}
	}
}
