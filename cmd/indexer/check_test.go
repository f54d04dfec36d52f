package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/ontoindex/ontoindex/api"
	"github.com/ontoindex/ontoindex/cowguard"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/config"
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
