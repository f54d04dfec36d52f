package typescript

import (
	"strings"
	"testing"

	"github.com/ontoindex/ontoindex/internal/testkit/tsctest"
	"github.com/ontoindex/ontoindex/objects"
)

// depot is an object type with a struct property, resolved from columns
// as a build resolves it (the struct's fields are hidden properties).
func depot(tb testing.TB) *objects.Type {
	tb.Helper()
	spec := objects.TypeSpec{APIName: "Depot", Table: "w.s.depots", PrimaryKey: []string{"id"}}
	typ, err := spec.Resolve([]objects.Column{
		{Name: "id", FieldID: 1, Type: objects.DataType{Kind: objects.KindString}, Required: true},
		{Name: "address", FieldID: 2, Type: objects.DataType{Kind: objects.KindStruct}, Fields: []objects.Column{
			{Name: "city", FieldID: 3, Type: objects.DataType{Kind: objects.KindString}},
			{Name: "zip", FieldID: 4, Type: objects.DataType{Kind: objects.KindInteger}},
			{Name: "opened", FieldID: 5, Type: objects.DataType{Kind: objects.KindDate}},
		}},
	}, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return typ
}

// TestGenerate_struct writes a struct property as the record of its
// fields' types, leaves the fields' hidden properties out, and the
// definitions type-check with tsc against @osdk/client 2.22.0.
func TestGenerate_struct(t *testing.T) {
	files, err := Generate(Ontology{RID: "ri.ontology.main.ontology.depots", ObjectTypes: []*objects.Type{depot(t)}, UserAgent: "test"})
	if err != nil {
		t.Fatal(err)
	}
	var text string
	for _, f := range files {
		if f.Path == "ontology/objects/Depot.ts" {
			text = string(f.Text)
		}
	}
	for _, want := range []string{
		`address: $PropertyDef<{ city: 'string'; zip: 'integer'; opened: 'datetime' }, 'nullable', 'single'>;`,
		`readonly address: { city?: $PropType['string']; zip?: $PropType['integer']; opened?: $PropType['datetime'] } | undefined;`,
		`export type PropertyKeys = 'id' | 'address';`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("Depot.ts lacks %s:\n%s", want, text)
		}
	}
	if strings.Contains(text, "address.") {
		t.Errorf("Depot.ts names a hidden field property:\n%s", text)
	}
	tsc := tsctest.Find(t)
	dir := t.TempDir()
	if err := Write(dir, files); err != nil {
		t.Fatal(err)
	}
	tsc.Project(t, dir, `{"strict": true, "noUnusedLocals": true, "noEmit": true, "skipLibCheck": true,
		"target": "ES2022", "module": "NodeNext", "moduleResolution": "NodeNext", "types": []}`, "**/*.ts")
	for _, e := range tsc.Check(t, dir) {
		t.Errorf("%s", e)
	}
}
