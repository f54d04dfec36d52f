package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/ontoindex/ontoindex/api"
	"github.com/ontoindex/ontoindex/cowguard"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
)

// TestMain_checkJSON: `indexer check --json` prints the report that
// GET /api/indexer/v1/checks/write-modes answers, {verdict, objectTypes},
// byte for byte the same JSON values over the same tables: a table that
// fails the check and one that cannot be loaded.
func TestMain_checkJSON(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	cfgPath, tbl := mustWarehouse(t, dir, iceberg.Properties{"write.delete.mode": "merge-on-read"})
	if err := tbl.Delete(ctx, iceberg.EqualTo(iceberg.Reference("id"), int64(1))); err != nil {
		t.Fatal(err)
	}
	// A second object type whose table does not exist.
	mustFile(t, cfgPath, `
dataDir: ./data
catalogs:
  lake: {type: hadoop, warehouse: ./warehouse}
objectTypes:
  - apiName: Person
    table: lake.ns.people
    titleProperty: name
  - apiName: Ghost
    table: lake.ns.ghosts
    primaryKey: [id]
`)

	code, out, errOut := run("check", "--config", cfgPath, "--json")
	if code != exitUsage {
		t.Fatalf("check exit %d, want %d (a table could not be checked): %s%s", code, exitUsage, out, errOut)
	}
	var rep indexer.WriteModeReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("check --json is not the report object: %v\n%s", err, out)
	}
	if rep.Verdict != indexer.VerdictError || len(rep.ObjectTypes) != 2 {
		t.Fatalf("report = %+v", rep)
	}
	person, ghost := rep.ObjectTypes[0], rep.ObjectTypes[1]
	if person.ObjectType != "Person" || person.Verdict != cowguard.VerdictFail || person.LiveDeleteFiles.Position != 1 ||
		person.SnapshotID != tbl.T.CurrentSnapshot().SnapshotID || person.Error != nil {
		t.Errorf("Person = %+v", person)
	}
	if ghost.ObjectType != "Ghost" || ghost.Verdict != indexer.VerdictError || ghost.Error == nil || ghost.Error.Code != indexer.CodeTableNotAvailable {
		t.Errorf("Ghost = %+v", ghost)
	}

	// The same tables through the endpoint.
	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := indexer.Open(ctx, cfg, indexer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	srv, err := api.New(ix, api.Options{})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	resp, err := http.Get(hs.URL + "/api/indexer/v1/checks/write-modes")
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET checks: %d %v: %s", resp.StatusCode, err, body)
	}
	var fromCLI, fromHTTP any
	if err := json.Unmarshal([]byte(out), &fromCLI); err != nil {
		t.Fatal(err)
	}
	if got := fromCLI.(map[string]any)["objectTypes"].([]any)[0].(map[string]any)["snapshotId"]; got != strconv.FormatInt(person.SnapshotID, 10) {
		t.Errorf("snapshotId = %#v, want the string %d", got, person.SnapshotID)
	}
	if err := json.Unmarshal(body, &fromHTTP); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fromCLI, fromHTTP) {
		t.Errorf("check --json and the endpoint differ:\ncli:  %s\nhttp: %s", out, body)
	}
}

// TestMain_checkMapping: `indexer check` resolves each type's mapping
// against the current schema of its table, with the function builds
// resolve it with, and the links a type declares with the check of the
// queries that follow them: a mapping that does not fit fails the check
// (exit 1), naming the type, the property and the column, and the
// closest column when one is near.
func TestMain_checkMapping(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	mustWarehouse(t, dir, nil) // ns.people: id long (identifier), name string
	w, err := icebergtest.NewWarehouse(filepath.Join(dir, "warehouse"))
	if err != nil {
		t.Fatal(err)
	}
	mustTable := func(ident string, fields ...iceberg.NestedField) *icebergtest.Table {
		tbl, err := w.CreateTable(ctx, ident, iceberg.NewSchema(1, fields...), nil)
		if err != nil {
			t.Fatal(err)
		}
		return tbl
	}
	long := func(id int, name string) iceberg.NestedField {
		return iceberg.NestedField{ID: id, Name: name, Type: iceberg.PrimitiveTypes.Int64, Required: true}
	}
	mustTable("ns.orders", long(1, "id"), iceberg.NestedField{ID: 2, Name: "person", Type: iceberg.PrimitiveTypes.String})
	mustTable("ns.friends", long(1, "person_id"), long(2, "frend_id"))

	tests := []struct {
		name        string
		objectTypes string
		want        int    // exit status
		failing     string // the type whose mapping fails ("": none)
		message     string // what its failure says
		buildFails  bool   // a build fails with the same message
	}{
		{name: "fits", want: exitOK, objectTypes: `
  - apiName: Person
    table: lake.ns.people
    titleProperty: fullName
    properties: {id: {column: id}, fullName: {column: name}}`},
		{name: "property of a missing column", want: exitFailed, failing: "Person", buildFails: true,
			message: `object type Person: Person.properties.name.column: table lake.ns.people has no column "nmae" (did you mean "name"?)`,
			objectTypes: `
  - apiName: Person
    table: lake.ns.people
    properties: {id: {column: id}, name: {column: nmae}}`},
		{name: "primary key of a missing column", want: exitFailed, failing: "Person", buildFails: true,
			message: `object type Person: Person.primaryKey: table lake.ns.people has no column "idd" (did you mean "id"?)`,
			objectTypes: `
  - apiName: Person
    table: lake.ns.people
    primaryKey: [idd]`},
		{name: "title not a property", want: exitFailed, failing: "Person", buildFails: true,
			message: `object type Person: Person.titleProperty: "nmae" is not a property of Person (did you mean "name"?)`,
			objectTypes: `
  - apiName: Person
    table: lake.ns.people
    titleProperty: nmae`},
		{name: "foreign key of another kind", want: exitFailed, failing: "Order",
			message: `object type Order: link buyer of Order (objectTypes[1].links[0]): Order.person is string, but Person.id is long`,
			objectTypes: `
  - apiName: Person
    table: lake.ns.people
  - apiName: Order
    table: lake.ns.orders
    primaryKey: [id]
    links: [{apiName: buyer, target: Person, foreignKey: person, reverseApiName: orders}]`},
		{name: "join table key of a missing column", want: exitFailed, failing: "Person.friends", buildFails: true,
			message: `object type Person.friends: Person.friends.properties.friend_id.column: table lake.ns.friends has no column "friend_id" (did you mean "frend_id"?)`,
			objectTypes: `
  - apiName: Person
    table: lake.ns.people
    links:
      - apiName: friends
        target: Person
        through: {table: lake.ns.friends, sourceKey: person_id, targetKey: friend_id}`},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := mustFile(t, filepath.Join(dir, fmt.Sprintf("case%d.yaml", i)), fmt.Sprintf(`
dataDir: ./data%d
catalogs:
  lake: {type: hadoop, warehouse: ./warehouse}
objectTypes:%s
`, i, tt.objectTypes))
			code, out, errOut := run("check", "--config", cfg)
			if code != tt.want {
				t.Errorf("check exit %d, want %d:\n%s%s", code, tt.want, out, errOut)
			}
			if tt.failing != "" && !strings.Contains(out, fmt.Sprintf("\n%s (mapping fail): %s (table ", tt.failing, tt.message)) {
				t.Errorf("check does not say %q:\n%s", tt.message, out)
			}
			if tt.failing == "" && strings.Contains(out, "mapping") {
				t.Errorf("check reports a mapping problem:\n%s", out)
			}

			code, out, errOut = run("check", "--config", cfg, "--json")
			if code != tt.want {
				t.Errorf("check --json exit %d, want %d:\n%s%s", code, tt.want, out, errOut)
			}
			var rep indexer.WriteModeReport
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatalf("check --json: %v\n%s", err, out)
			}
			wantVerdict := cowguard.VerdictOK
			if tt.failing != "" {
				wantVerdict = cowguard.VerdictFail
			}
			if rep.Verdict != wantVerdict {
				t.Errorf("verdict %s, want %s", rep.Verdict, wantVerdict)
			}
			var failure *indexer.ErrorInfo
			for _, r := range rep.ObjectTypes {
				switch {
				case r.Mapping == nil:
					t.Errorf("%s: no mapping check: %+v", r.ObjectType, r)
				case r.ObjectType == tt.failing:
					failure = r.Mapping.Error
					if r.Mapping.Verdict != cowguard.VerdictFail || failure == nil || failure.Code != indexer.CodeSchemaMismatch ||
						!strings.HasPrefix(failure.Message, tt.message+" (table ") {
						t.Errorf("%s: mapping %+v %+v, want fail: %s", r.ObjectType, r.Mapping, failure, tt.message)
					}
				case r.Mapping.Verdict != cowguard.VerdictOK || r.Mapping.Error != nil:
					t.Errorf("%s: mapping %+v, want ok", r.ObjectType, r.Mapping)
				}
			}
			if !tt.buildFails || failure == nil {
				return
			}
			// The build of the type fails with the very same error.
			code, out, errOut = run("build", "--config", cfg, "--json")
			var results []indexer.BuildResult
			if err := json.Unmarshal([]byte(out), &results); err != nil {
				t.Fatalf("build --json (exit %d): %v\n%s%s", code, err, out, errOut)
			}
			for _, r := range results {
				if r.ObjectType == tt.failing && (r.Error == nil || *r.Error != *failure) {
					t.Errorf("build of %s: %+v, want the error of check: %+v", r.ObjectType, r.Error, failure)
				}
			}
		})
	}

	// A column dropped after a build: the served index is fine, the next
	// build would fail, and check says so from the current schema.
	t.Run("column dropped after a build", func(t *testing.T) {
		planes := mustTable("ns.planes", long(1, "id"), iceberg.NestedField{ID: 2, Name: "model", Type: iceberg.PrimitiveTypes.String})
		if err := planes.Append(ctx, []icebergtest.Row{{"id": 1, "model": "A320"}}); err != nil {
			t.Fatal(err)
		}
		cfg := mustFile(t, filepath.Join(dir, "planes.yaml"), `
dataDir: ./data-planes
catalogs:
  lake: {type: hadoop, warehouse: ./warehouse}
objectTypes:
  - apiName: Plane
    table: lake.ns.planes
    primaryKey: [id]
    properties: {id: {column: id}, model: {column: model}}
`)
		if code, out, errOut := run("build", "--config", cfg); code != exitOK {
			t.Fatalf("build exit %d: %s%s", code, out, errOut)
		}
		if code, out, errOut := run("check", "--config", cfg); code != exitOK {
			t.Fatalf("check before the drop: exit %d: %s%s", code, out, errOut)
		}
		if err := planes.DropColumn(ctx, "model"); err != nil {
			t.Fatal(err)
		}
		code, out, errOut := run("check", "--config", cfg)
		if want := `Plane (mapping fail): object type Plane: Plane.properties.model.column: table lake.ns.planes has no column "model" (table lake.ns.planes, schema id 1)`; code != exitFailed || !strings.Contains(out, want) {
			t.Errorf("check after the drop: exit %d, want %d and %q:\n%s%s", code, exitFailed, want, out, errOut)
		}
	})
}
