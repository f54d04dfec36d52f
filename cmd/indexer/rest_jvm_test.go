//go:build integration_jvm

package main

import (
	"strings"
	"testing"

	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/internal/testkit/deploytest"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
	"github.com/ontoindex/ontoindex/internal/testkit/peopletest"
)

// TestREST runs ontoindex through a real Iceberg REST catalog server
// (Iceberg's REST catalog fixture, internal/testkit/restcatalog): tables on
// local disk; in S3 with the keys in the config; in S3 with the keys the
// catalog vends and none in the config; and behind a gate that wants OAuth2
// client credentials (credential, oauth2-server-uri, scope). Each does a
// full build, an incremental build after a copy-on-write edit committed
// by another process, and refuses a merge-on-read delete.
func TestREST(t *testing.T) {
	for _, c := range []struct {
		name string
		o    deploytest.RESTOptions
	}{
		{"local", deploytest.RESTOptions{}},
		{"s3", deploytest.RESTOptions{S3: true}},
		{"s3 vended credentials", deploytest.RESTOptions{S3: true, Vend: true}},
		{"oauth2 client credentials", deploytest.RESTOptions{Gate: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := deploytest.MustREST(t, c.o)
			tables := peopletest.Must(t, d.Warehouse, peopletest.Options{People: peopletest.Files(4, 20), Planes: peopletest.Rows(1, 5, "plane")})
			d.Setenv(t)
			cfg := d.MustConfig(t, "ontology.yaml", deploySections+peopletest.PeopleType+peopletest.PlaneType)

			full := mustDeployBuild(t, cfg, exitOK)
			if r := full["People"]; r.Kind != indexer.KindFull || r.Upserts != 80 || r.FilesRead != 4 {
				t.Fatalf("full build of People: %+v", r)
			}
			snap := d.Write(t, deploytest.Op{Table: peopletest.People, Kind: "overwrite", IDs: []int64{7}, Rows: []icebergtest.Row{peopletest.Row(7, "edited")}})
			added := summaryInt(t, tables.People, "added-data-files")
			r := mustDeployBuild(t, cfg, exitOK)["People"]
			if r.Kind != indexer.KindIncremental || r.ToSnapshotID != snap || r.Upserts != 1 || r.Deletes != 0 || int64(r.FilesRead) != added {
				t.Fatalf("incremental build after the edit (added %d files): %+v", added, r)
			}
			if objs := mustExport(t, cfg, "People"); len(objs) != 80 || objs["7"]["name"] != "edited 7" {
				t.Fatalf("export after the edit: %d objects, 7 = %v", len(objs), objs["7"])
			}
			d.Write(t, deploytest.Op{Table: peopletest.Planes, Kind: "delete", IDs: []int64{2}})
			refused := mustDeployBuild(t, cfg, exitFailed)
			if e := refused["Plane"].Error; e == nil || e.Code != indexer.CodeMergeOnRead || !strings.Contains(e.Message, peopletest.PlanesTable) {
				t.Fatalf("merge-on-read build: %+v", refused["Plane"])
			}
			if d.Gate != nil {
				granted := d.Gate.Granted()
				if len(granted) == 0 || granted[0].Get("scope") != deploytest.RESTScope || granted[0].Get("client_id") != deploytest.RESTClientID {
					t.Errorf("token requests granted: %v", granted)
				}
				if n := d.Gate.Refused(); n != 0 {
					t.Errorf("the gate refused %d requests", n)
				}
			}
		})
	}
}
