package wire

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestErrorTable_Names checks that the Name constants and table
// agree: each constant has a row, each row a constant, and each constant
// is its wire name with the Name prefix, so that reading one tells the
// other.
func TestErrorTable_Names(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "errors.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	consts := map[Name]bool{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "Name" {
				continue
			}
			for i, n := range vs.Names {
				lit, ok := vs.Values[i].(*ast.BasicLit)
				if !ok || lit.Value != `"`+strings.TrimPrefix(n.Name, "Name")+`"` || !strings.HasPrefix(n.Name, "Name") {
					t.Errorf("constant %s is not Name + its wire name", n.Name)
					continue
				}
				name := Name(strings.Trim(lit.Value, `"`))
				consts[name] = true
				if _, ok := table[name]; !ok {
					t.Errorf("%s has no row in table", n.Name)
				}
			}
		}
	}
	for name := range table {
		if !consts[name] {
			t.Errorf("table row %s has no constant", name)
		}
	}
}

// TestErrorTable_NoLiteralNames checks that errors are made from the
// constants: Name is a string type, so a string literal would still
// compile, and a misspelt one would be a 500 INTERNAL.
func TestErrorTable_NoLiteralNames(t *testing.T) {
	// This package's files and the api package's, which makes most errors.
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	more, err := filepath.Glob("../*.go")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, more...)
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
				if name := calleeName(x.Fun); (name == "Err" || name == "Wrap") && len(x.Args) > 0 {
					lit = x.Args[0]
				}
			case *ast.CompositeLit:
				if calleeName(x.Type) == "Error" {
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
				t.Errorf("%s: error name %s is a literal, not a Name constant", fset.Position(bl.Pos()), bl.Value)
			}
			return true
		})
	}
}

// calleeName is the name of a function or type, qualified or not: Err for
// Err and wire.Err.
func calleeName(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name
	case *ast.SelectorExpr:
		return x.Sel.Name
	}
	return ""
}

func TestErrorTable(t *testing.T) {
	for name, k := range table {
		status, ok := conjureStatus[k.code]
		if !ok || status == 0 {
			t.Errorf("%s: code %s has no status", name, k.code)
		}
		if k.doc == "" {
			t.Errorf("%s: no description", name)
		}
		if e := Err(name, nil); e.Status() != status || e.Code() != k.code {
			t.Errorf("%s: %d %s", name, e.Status(), e.Code())
		}
	}
	if e := Err(Name("NoSuchError"), nil); e.Code() != codeInternal || e.Status() != 500 {
		t.Errorf("unknown names are internal: %s %d", e.Code(), e.Status())
	}
	want := map[Name]int{NameObjectTypeNotFound: 404, NameObjectNotFound: 404, NameOntologyNotFound: 404, NamePropertiesNotFound: 404,
		NamePropertiesNotSearchable: 400, NamePropertiesNotSortable: 400, NameMalformedPropertyFilters: 400, NameInvalidRangeQuery: 400,
		NameDuplicateOrderBy: 400, NameInvalidPageSize: 400, NameInvalidPageToken: 400, NameObjectTypeNotSynced: 409,
		NameMissingCredentials: 401, NameInvalidCredentials: 401, NamePermissionDenied: 403, NameRequestEntityTooLarge: 413}
	for name, status := range want {
		if got := Err(name, nil).Status(); got != status {
			t.Errorf("%s: status %d, want %d", name, got, status)
		}
	}
}
