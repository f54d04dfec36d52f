package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ontoindex/ontoindex/internal/testkit/apidemo"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
	"github.com/ontoindex/ontoindex/objects"
)

// mustInterfaceWarehouse writes the demo and shop tables (apidemo) into
// dir/warehouse and a config that serves them with apidemo's interfaces,
// with edit applied to its object types; it returns the config's path.
func mustInterfaceWarehouse(tb testing.TB, dir string, edit func(types []objects.TypeSpec, ifaces []objects.InterfaceSpec)) string {
	tb.Helper()
	ctx := context.Background()
	w, err := icebergtest.NewWarehouse(filepath.Join(dir, "warehouse"))
	if err != nil {
		tb.Fatal(err)
	}
	if err := apidemo.Create(ctx, w); err != nil {
		tb.Fatal(err)
	}
	if err := apidemo.CreateShop(ctx, w); err != nil {
		tb.Fatal(err)
	}
	types := apidemo.WithInterfaces(append(apidemo.Specs("warehouse"), apidemo.ShopSpecs("warehouse")...))
	ifaces := apidemo.InterfaceSpecs()
	if edit != nil {
		edit(types, ifaces)
	}
	typesJSON, err := json.Marshal(types)
	if err != nil {
		tb.Fatal(err)
	}
	ifacesJSON, err := json.Marshal(ifaces)
	if err != nil {
		tb.Fatal(err)
	}
	return mustFile(tb, filepath.Join(dir, "ontology.yaml"), `ontology: {apiName: demo}
dataDir: ./data
catalogs:
  warehouse: {type: hadoop, warehouse: ./warehouse}
interfaces: `+string(ifacesJSON)+`
objectTypes: `+string(typesJSON)+"\n")
}

func mustRead(tb testing.TB, path string) string {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// TestRunOSDKTypes generates the definitions of the demo with Customer
// built (its type from the checkpoint) and the rest never built (from
// their tables), and checks what the metadata says of each.
func TestRunOSDKTypes(t *testing.T) {
	dir := t.TempDir()
	cfg := mustInterfaceWarehouse(t, dir, nil)
	if code, _, errOut := run("build", "--config", cfg, "--type", "Customer"); code != exitOK {
		t.Fatalf("build exit %d: %s", code, errOut)
	}
	out := filepath.Join(dir, "generated")
	code, stdout, errOut := run("osdk-types", "--config", cfg, "--out", out)
	if code != exitOK {
		t.Fatalf("osdk-types exit %d: %s", code, errOut)
	}
	if !strings.Contains(stdout, "6 object types and 4 interfaces") {
		t.Errorf("stdout: %q", stdout)
	}
	for _, c := range []struct {
		file string
		want []string
	}{
		{"index.ts", []string{
			"export * as $Objects from './ontology/objects.js';",
			"export { $ontologyRid, $osdkMetadata } from './OntologyMetadata.js';",
		}},
		{"OntologyMetadata.ts", []string{"export const $ontologyRid = 'ri.ontology.main.ontology.demo';"}},
		{"ontology/objects/Customer.ts", []string{
			"primaryKeyApiName: 'customerId';", "primaryKeyType: 'string';", "titleProperty: 'name';",
			"implements: ['Member', 'Named', 'Party'];",
			"customerId: $PropertyDef<'string', 'non-nullable', 'single'>;",
			"since: $PropertyDef<'datetime', 'nullable', 'single'>;",
			"visits: $PropertyDef<'long', 'nullable', 'single'>;",
			"orders: $ObjectMetadata.Link<Order, true>;",
			"readonly orders: Order.ObjectSet;",
			"joined: 'since';", "since: 'joined';",
		}},
		{"ontology/objects/Order.ts", []string{
			"primaryKeyType: 'integer';", "implements: ['Billable', 'Named'];",
			"amount: $PropertyDef<'decimal', 'nullable', 'single'>;",
			"placedAt: $PropertyDef<'timestamp', 'nullable', 'single'>;",
			"customer: $ObjectMetadata.Link<Customer, false>;",
			"readonly customer: $SingleLinkAccessor<Customer>;",
			"tags: $ObjectMetadata.Link<Tag, true>;",
		}},
		{"ontology/objects/Employee.ts", []string{
			"primaryKeyType: 'long';", "tags: $PropertyDef<'string', 'nullable', 'array'>;",
			"readonly tags: $PropType['string'][] | undefined;",
			"salary: $PropertyDef<'decimal', 'nullable', 'single'>;", "rating: $PropertyDef<'double', 'nullable', 'single'>;",
			"age: $PropertyDef<'integer', 'nullable', 'single'>;", "active: $PropertyDef<'boolean', 'nullable', 'single'>;",
			"description: 'People of the demo airline';", "export type Links = {};",
		}},
		{"ontology/objects/Ghost.ts", []string{"id: $PropertyDef<'long', 'non-nullable', 'single'>;", "implements: [];"}},
		{"ontology/interfaces/Billable.ts", []string{
			"implementedBy: ['Order'];", "implements: ['Named'];",
			"payer: $InterfaceMetadata.Link<Customer, false>;", "readonly payer: $SingleLinkAccessor<Customer>;",
			"label: $PropertyDef<'string', 'nullable', 'single'>;", "import type { Customer } from '../objects/Customer.js';",
		}},
		{"ontology/interfaces/Named.ts", []string{"implementedBy: ['Customer', 'Employee', 'Order', 'Tag'];", "displayName: 'Named';"}},
		{"ontology/interfaces/Party.ts", []string{"bills: $InterfaceMetadata.Link<Billable, true>;", "readonly bills: Billable.ObjectSet;"}},
		{"ontology/interfaces/Member.ts", []string{"joined: $PropertyDef<'datetime', 'nullable', 'single'>;"}},
	} {
		text := mustRead(t, filepath.Join(out, filepath.FromSlash(c.file)))
		for _, w := range c.want {
			if !strings.Contains(text, w) {
				t.Errorf("%s lacks %q:\n%s", c.file, w, text)
			}
		}
	}

	// A type removed from the config loses its definition on the next run.
	stale := filepath.Join(out, "ontology", "objects", "Removed.ts")
	mustFile(t, stale, strings.Replace(mustRead(t, filepath.Join(out, "ontology", "objects", "Ghost.ts")), "Ghost", "Removed", -1))
	mine := mustFile(t, filepath.Join(out, "ontology", "objects", "Mine.ts"), "export const mine = 1;\n")
	if code, _, errOut := run("osdk-types", "--config", cfg, "--out", out); code != exitOK {
		t.Fatalf("osdk-types exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the definition of a type no longer in the config is still there: %v", err)
	}
	if _, err := os.Stat(mine); err != nil {
		t.Errorf("a file the command did not write was removed: %v", err)
	}
}

func TestRunOSDKTypes_errors(t *testing.T) {
	for _, c := range []struct {
		name     string
		edit     func(types []objects.TypeSpec, ifaces []objects.InterfaceSpec)
		args     []string // after --config
		wantCode int
		wantErr  string
	}{
		{name: "no --out", wantCode: exitUsage, wantErr: "--out is required"},
		{name: "a mapped property of another type", args: []string{"--out", "OUT"}, wantCode: exitFailed,
			edit: func(types []objects.TypeSpec, _ []objects.InterfaceSpec) {
				types[0].Implements["Named"] = objects.ImplementationSpec{Properties: map[string]string{"label": "age"}}
			},
			wantErr: "Employee.implements.Named.properties.label: property age of Employee is integer, interface property Named.label is string"},
		{name: "a table that is not there", args: []string{"--out", "OUT"}, wantCode: exitFailed,
			edit:    func(types []objects.TypeSpec, _ []objects.InterfaceSpec) { types[2].Table = "warehouse.demo.nosuch" },
			wantErr: "Ghost"},
		{name: "a key the client cannot type", args: []string{"--out", "OUT"}, wantCode: exitFailed,
			edit: func(types []objects.TypeSpec, _ []objects.InterfaceSpec) {
				types[0].PrimaryKey = []string{"salary"}
			},
			wantErr: "object type Employee: primary key salary is decimal; @osdk/client takes integer, long, string, date and timestamp keys only"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			cfg := mustInterfaceWarehouse(t, dir, c.edit)
			args := []string{"osdk-types", "--config", cfg}
			for _, a := range c.args {
				args = append(args, strings.ReplaceAll(a, "OUT", filepath.Join(dir, "out")))
			}
			code, _, errOut := run(args...)
			if code != c.wantCode || !strings.Contains(errOut, c.wantErr) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, errOut, c.wantCode, c.wantErr)
			}
			if _, err := os.Stat(filepath.Join(dir, "out")); code != exitOK && !os.IsNotExist(err) {
				t.Errorf("a failed run wrote definitions: %v", err)
			}
		})
	}
}
