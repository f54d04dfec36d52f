package api

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestErrorTable_Names checks that the errorName constants and errorTable
// agree: each constant has a row, each row a constant, and each constant
// is its wire name with the name prefix, so that reading one tells the
// other.
func TestErrorTable_Names(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "errors.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	consts := map[errorName]bool{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "errorName" {
				continue
			}
			for i, n := range vs.Names {
				lit, ok := vs.Values[i].(*ast.BasicLit)
				if !ok || lit.Value != `"`+strings.TrimPrefix(n.Name, "name")+`"` || !strings.HasPrefix(n.Name, "name") {
					t.Errorf("constant %s is not name + its wire name", n.Name)
					continue
				}
				name := errorName(strings.Trim(lit.Value, `"`))
				consts[name] = true
				if _, ok := errorTable[name]; !ok {
					t.Errorf("%s has no row in errorTable", n.Name)
				}
			}
		}
	}
	for name := range errorTable {
		if !consts[name] {
			t.Errorf("errorTable row %s has no constant", name)
		}
	}
}

// TestErrorTable_NoLiteralNames checks that errors are made from the
// constants: errorName is a string type, so a string literal would still
// compile, and a misspelt one would be a 500 INTERNAL.
func TestErrorTable_NoLiteralNames(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, file := range files {
		f, err := parser.ParseFile(fset, file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			var lit ast.Expr
			switch x := n.(type) {
			case *ast.CallExpr:
				if id, ok := x.Fun.(*ast.Ident); ok && id.Name == "apiErr" && len(x.Args) > 0 {
					lit = x.Args[0]
				}
			case *ast.CompositeLit:
				if id, ok := x.Type.(*ast.Ident); ok && id.Name == "Error" {
					for _, e := range x.Elts {
						if kv, ok := e.(*ast.KeyValueExpr); ok {
							if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "Name" {
								lit = kv.Value
							}
						}
					}
				}
			}
			if bl, ok := lit.(*ast.BasicLit); ok && bl.Kind == token.STRING {
				t.Errorf("%s: error name %s is a literal, not an errorName constant", fset.Position(bl.Pos()), bl.Value)
			}
			return true
		})
	}
}
