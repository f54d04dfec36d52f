package typescript

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ontoindex/ontoindex/internal/testkit/tsctest"
	"github.com/ontoindex/ontoindex/objects"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/golden from Generate")

// fleetSpecs is a small ontology with what the definitions must carry:
// Pilot (a string key, a date, an array, a long, a self link ONE with its
// reverse MANY, texts that need escaping), Plane (an integer key, a
// decimal, a timestamp, a link to Pilot), Crew (a composite key, no
// links) and the interfaces Named, Flyer extends Named (a link to an
// object type), Fleet (a link to an interface, MANY) and Empty (nothing).
func fleetSpecs() ([]objects.TypeSpec, []objects.InterfaceSpec) {
	props := func(names ...string) map[string]objects.PropertySpec {
		m := map[string]objects.PropertySpec{}
		for _, n := range names {
			m[n] = objects.PropertySpec{Column: n}
		}
		return m
	}
	types := []objects.TypeSpec{
		{APIName: "Pilot", Table: "c.ns.pilots", Properties: props("pilotId", "name", "licensed", "ratings", "hours", "mentorId"),
			Links: []objects.LinkSpec{{APIName: "mentor", Target: "Pilot", ForeignKey: "mentorId", ReverseAPIName: "mentees"}},
			Implements: map[string]objects.ImplementationSpec{
				"Flyer": {Properties: map[string]string{"label": "name", "since": "licensed"}, Links: map[string]string{"mentor": "mentor"}},
			}},
		{APIName: "Plane", Table: "c.ns.planes", Properties: props("tail", "price", "seen", "captainId", "Model", "model_2", "_row"),
			Links: []objects.LinkSpec{{APIName: "captain", Target: "Pilot", ForeignKey: "captainId", ReverseAPIName: "planes"}},
			Implements: map[string]objects.ImplementationSpec{
				"Named": {Properties: map[string]string{"label": "tail"}},
				"Fleet": {Properties: map[string]string{}, Links: map[string]string{"flyers": "captain"}},
			}},
		{APIName: "Crew", Table: "c.ns.crews", Properties: props("pilotId", "flight", "seat")},
	}
	ifaces := []objects.InterfaceSpec{
		{APIName: "Named", DisplayName: "Named thing", Description: "It's named: a */ in a comment",
			Properties: map[string]objects.InterfacePropertySpec{"label": {DataType: "string", DisplayName: "Label", Description: "What it's called"}}},
		{APIName: "Flyer", Extends: []string{"Named"},
			Properties: map[string]objects.InterfacePropertySpec{"since": {DataType: "date"}},
			Links:      []objects.InterfaceLinkSpec{{APIName: "mentor", Target: objects.InterfaceLinkTarget{ObjectType: "Pilot"}, Cardinality: "ONE"}}},
		{APIName: "Fleet",
			Links: []objects.InterfaceLinkSpec{{APIName: "flyers", Target: objects.InterfaceLinkTarget{Interface: "Flyer"}, Cardinality: "ONE"}}},
		{APIName: "Empty"},
	}
	return types, ifaces
}

// fleetTypes are the object types of fleetSpecs as a table would resolve
// them.
func fleetTypes() []*objects.Type {
	dt := func(k objects.Kind) objects.DataType { return objects.DataType{Kind: k} }
	p := func(name string, t objects.DataType) objects.Property {
		return objects.Property{APIName: name, Column: name, Type: t, Search: objects.DefaultRole(t)}
	}
	str := dt(objects.KindString)
	pilotName := p("name", str)
	pilotName.DisplayName, pilotName.Description = "Name", "The pilot's name,\nas on the licence"
	return []*objects.Type{
		objects.NewType(objects.Type{APIName: "Pilot", DisplayName: "Pilot", PluralDisplayName: "Pilots", Description: "Flies 'planes'",
			PrimaryKey: []string{"pilotId"}, TitleProperty: "name",
			Properties: []objects.Property{p("pilotId", str), pilotName, p("licensed", dt(objects.KindDate)),
				p("ratings", objects.DataType{Kind: objects.KindList, Elem: &objects.DataType{Kind: objects.KindString}}),
				p("hours", dt(objects.KindLong)), p("mentorId", str)}}),
		objects.NewType(objects.Type{APIName: "Plane", DisplayName: "Plane", PluralDisplayName: "Planes",
			PrimaryKey: []string{"tail"}, TitleProperty: "tail",
			Properties: []objects.Property{p("tail", dt(objects.KindInteger)), p("price", objects.DataType{Kind: objects.KindDecimal, Precision: 10, Scale: 2}),
				p("seen", dt(objects.KindTimestampTZ)), p("captainId", str), p("Model", dt(objects.KindUUID)), p("model_2", dt(objects.KindFloat)),
				p("_row", dt(objects.KindBoolean))}}),
		objects.NewType(objects.Type{APIName: "Crew", DisplayName: "Crew", PluralDisplayName: "Crews",
			PrimaryKey: []string{"pilotId", "flight"}, TitleProperty: "pilotId",
			Properties: []objects.Property{p("pilotId", str), p("flight", dt(objects.KindTimestamp)), p("seat", dt(objects.KindDouble))}}),
	}
}

func mustFleet(tb testing.TB) Ontology {
	tb.Helper()
	specs, ifaces := fleetSpecs()
	set, errs := objects.ResolveInterfaces(ifaces, specs)
	if len(errs) > 0 {
		tb.Fatalf("the fleet's interfaces do not resolve: %v", errs)
	}
	return Ontology{RID: "ri.ontology.main.ontology.fleet", ObjectTypes: fleetTypes(), Links: objects.Links(specs),
		Interfaces: set, UserAgent: "ontoindex-osdk-types/test"}
}

// TestGenerate compares the definitions of the fleet, and of the fleet
// without interfaces, with testdata/golden (go test -update rewrites it;
// cmd/indexer's TestRunOSDKTypes_tsc type-checks such definitions).
func TestGenerate(t *testing.T) {
	plain := mustFleet(t)
	plain.Interfaces = nil
	for _, c := range []struct {
		name string
		o    Ontology
	}{{"fleet", mustFleet(t)}, {"plain", plain}} {
		t.Run(c.name, func(t *testing.T) {
			files, err := Generate(c.o)
			if err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join("testdata", "golden", c.name)
			if *update {
				if err := os.RemoveAll(dir); err != nil {
					t.Fatal(err)
				}
				if err := Write(dir, files); err != nil {
					t.Fatal(err)
				}
			}
			var paths []string
			for _, f := range files {
				paths = append(paths, f.Path)
				want, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.Path)))
				if err != nil {
					t.Errorf("%s: %v (go test -update writes it)", f.Path, err)
					continue
				}
				if string(want) != string(f.Text) {
					t.Errorf("%s differs from the golden file (go test -update rewrites it):\n%s", f.Path, f.Text)
				}
			}
			var golden []string
			err = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					rel, _ := filepath.Rel(dir, path)
					golden = append(golden, filepath.ToSlash(rel))
				}
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(sortedNames(golden), " ") != strings.Join(sortedNames(paths), " ") {
				t.Errorf("Generate wrote %v, the golden files are %v", paths, golden)
			}
		})
	}
}

func TestGenerate_errors(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(o *Ontology)
		want string
	}{
		{"a reserved word", func(o *Ontology) { o.ObjectTypes[2] = renamed(o.ObjectTypes[2], "delete") },
			`object type delete: TypeScript definitions cannot take the name "delete"`},
		{"a namespace member", func(o *Ontology) { o.ObjectTypes[2] = renamed(o.ObjectTypes[2], "Props") },
			`object type Props: TypeScript definitions cannot take the name "Props"`},
		{"a boolean key", func(o *Ontology) { o.ObjectTypes[1] = keyed(o.ObjectTypes[1], "_row") },
			"object type Plane: primary key _row is boolean; @osdk/client takes integer, long, string, date and timestamp keys only"},
		{"a decimal key", func(o *Ontology) { o.ObjectTypes[1] = keyed(o.ObjectTypes[1], "price") },
			"object type Plane: primary key price is decimal"},
		{"a link to a type left out", func(o *Ontology) { o.ObjectTypes = o.ObjectTypes[1:] },
			"object type Plane: link captain leads to Pilot, which is not an object type of the ontology"},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := mustFleet(t)
			c.edit(&o)
			files, err := Generate(o)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Generate: %d files, error %v; want %q", len(files), err, c.want)
			}
		})
	}
}

// renamed returns a copy of t named name.
func renamed(t *objects.Type, name string) *objects.Type {
	c := *t
	c.APIName = name
	return objects.NewType(c)
}

// keyed returns a copy of t keyed by key.
func keyed(t *objects.Type, key string) *objects.Type {
	c := *t
	c.PrimaryKey = []string{key}
	return objects.NewType(c)
}

// TestGenerate_tsc type-checks the golden definitions with tsc in strict
// mode, unused names included, against @osdk/client 2.22.0: interfaces
// without properties or links, a link from an interface to an interface,
// a composite key, names that differ only in case.
func TestGenerate_tsc(t *testing.T) {
	tsc := tsctest.Find(t)
	for _, name := range []string{"fleet", "plain"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.CopyFS(dir, os.DirFS(filepath.Join("testdata", "golden", name))); err != nil {
				t.Fatal(err)
			}
			tsc.Project(t, dir, `{"strict": true, "noUnusedLocals": true, "noEmit": true, "skipLibCheck": true,
				"target": "ES2022", "module": "NodeNext", "moduleResolution": "NodeNext", "types": []}`, "**/*.ts")
			for _, e := range tsc.Check(t, dir) {
				t.Errorf("%s", e)
			}
		})
	}
}
