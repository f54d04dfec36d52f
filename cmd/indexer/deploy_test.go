package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/ontoindex/ontoindex/cowguard"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/daemon"
	"github.com/ontoindex/ontoindex/internal/testkit/daemontest"
	"github.com/ontoindex/ontoindex/internal/testkit/deploytest"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
	"github.com/ontoindex/ontoindex/internal/testkit/peopletest"
)

// deploySections are the config sections of the deployment tests besides
// dataDir and catalogs: the serve tests' tokens and a fast daemon.
const deploySections = `ontology: {apiName: serve}
build: {chunkRows: 700, batchRows: 500}
daemon: {pollInterval: 50ms, retryBackoff: 50ms, maxRetryBackoff: 500ms}
auth:
  tokens:
    - {name: app, token: ` + serveAppToken + `, objectTypes: ["*"]}
    - {name: ops, token: ` + serveAdminToken + `, objectTypes: ["*"], admin: true}
objectTypes:
`

// mustDeployBuild runs `indexer build --json` and returns the results by
// object type; the exit code must be want.
func mustDeployBuild(tb testing.TB, cfg string, want int) map[string]indexer.BuildResult {
	tb.Helper()
	code, out, errOut := run("build", "--config", cfg, "--json")
	if code != want {
		tb.Fatalf("build exit %d, want %d: %s%s", code, want, out, errOut)
	}
	var res []indexer.BuildResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		tb.Fatalf("build --json: %v\n%s", err, out)
	}
	m := map[string]indexer.BuildResult{}
	for _, r := range res {
		m[r.ObjectType] = r
	}
	return m
}

// mustCheck runs `indexer check --json` and returns the verdicts by object
// type; the exit code must be want.
func mustCheck(tb testing.TB, cfg string, want int) map[string]cowguard.Verdict {
	tb.Helper()
	code, out, errOut := run("check", "--config", cfg, "--json")
	if code != want {
		tb.Fatalf("check exit %d, want %d: %s%s", code, want, out, errOut)
	}
	var rep indexer.WriteModeReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		tb.Fatalf("check --json: %v\n%s", err, out)
	}
	m := map[string]cowguard.Verdict{}
	for _, c := range rep.ObjectTypes {
		m[c.ObjectType] = c.Verdict
	}
	return m
}

// mustExport returns `indexer export` of a type as objects by primary key.
func mustExport(tb testing.TB, cfg, typ string) map[string]map[string]any {
	tb.Helper()
	code, out, errOut := run("export", "--config", cfg, "--type", typ)
	if code != exitOK {
		tb.Fatalf("export exit %d: %s", code, errOut)
	}
	m := map[string]map[string]any{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var o map[string]any
		if err := json.Unmarshal([]byte(line), &o); err != nil {
			tb.Fatalf("export line %q: %v", line, err)
		}
		m[fmt.Sprint(o["__primaryKey"])] = o
	}
	return m
}

// summaryInt reads a number of the current snapshot's summary.
func summaryInt(tb testing.TB, t *icebergtest.Table, key string) int64 {
	tb.Helper()
	if err := t.Refresh(context.Background()); err != nil {
		tb.Fatal(err)
	}
	var n int64
	if _, err := fmt.Sscan(t.T.CurrentSnapshot().Summary.Properties[key], &n); err != nil {
		tb.Fatalf("summary %s of snapshot %d: %v", key, t.T.CurrentSnapshot().SnapshotID, err)
	}
	return n
}

// TestDeploy runs ontoindex end to end in each deployment: hadoop+local,
// sql/postgres+s3 and sql/sqlite+local. A full build; an incremental build
// after a copy-on-write edit committed by another process, reading only
// the file it added; a merge-on-read delete refused, and the recovery
// after compaction; `indexer check` before and after; and a real
// `indexer serve` that keeps up with the commits of another process.
func TestDeploy(t *testing.T) {
	for _, kind := range deploytest.Kinds() {
		t.Run(string(kind), func(t *testing.T) {
			d := deploytest.Must(t, kind, deploytest.Options{})
			tables := peopletest.Must(t, d.Warehouse, peopletest.Options{People: peopletest.Files(6, 20), Planes: peopletest.Rows(1, 5, "plane")})
			d.Setenv(t)
			cfg := d.MustConfig(t, "ontology.yaml", deploySections+peopletest.PeopleType+peopletest.PlaneType)

			full := mustDeployBuild(t, cfg, exitOK)
			if r := full["People"]; r.Kind != indexer.KindFull || r.Upserts != 120 || r.FilesRead != 6 || r.BytesRead <= 0 {
				t.Fatalf("full build of People: %+v", r)
			}
			if r := full["Plane"]; r.Kind != indexer.KindFull || r.Upserts != 5 {
				t.Fatalf("full build of Plane: %+v", r)
			}
			if v := mustCheck(t, cfg, exitOK); v["People"] != cowguard.VerdictOK || v["Plane"] == cowguard.VerdictFail {
				t.Errorf("check before the merge-on-read delete: %v", v)
			}

			// A copy-on-write edit by another process: the build reads the
			// file it added, and nothing else.
			snap := d.Write(t, deploytest.Op{Table: peopletest.People, Kind: "overwrite", IDs: []int64{7}, Rows: []icebergtest.Row{peopletest.Row(7, "edited")}})
			added, addedBytes := summaryInt(t, tables.People, "added-data-files"), summaryInt(t, tables.People, "added-files-size")
			inc := mustDeployBuild(t, cfg, exitOK)
			r := inc["People"]
			if r.Kind != indexer.KindIncremental || r.ToSnapshotID != snap || r.Upserts != 1 || r.Deletes != 0 ||
				int64(r.FilesRead) != added || r.BytesRead <= 0 || r.BytesRead > addedBytes {
				t.Fatalf("incremental build after the edit (added %d files, %d bytes): %+v", added, addedBytes, r)
			}
			if inc["Plane"].Kind != indexer.KindNone {
				t.Errorf("Plane: %+v", inc["Plane"])
			}
			if objs := mustExport(t, cfg, "People"); len(objs) != 120 || objs["7"]["name"] != "edited 7" {
				t.Fatalf("export after the edit: %d objects, 7 = %v", len(objs), objs["7"])
			}
			t.Logf("incremental: %d of %d files read, %d bytes of the %d added", r.FilesRead, 6, r.BytesRead, addedBytes)

			// A merge-on-read delete: refused, the last good state kept.
			d.Write(t, deploytest.Op{Table: peopletest.Planes, Kind: "delete", IDs: []int64{2}})
			refused := mustDeployBuild(t, cfg, exitFailed)
			if e := refused["Plane"].Error; e == nil || e.Code != indexer.CodeMergeOnRead || !strings.Contains(e.Message, peopletest.PlanesTable) {
				t.Fatalf("merge-on-read build: %+v", refused["Plane"])
			}
			if v := mustCheck(t, cfg, exitFailed); v["Plane"] != cowguard.VerdictFail || v["People"] != cowguard.VerdictOK {
				t.Errorf("check after the merge-on-read delete: %v", v)
			}
			if objs := mustExport(t, cfg, "Plane"); len(objs) != 5 {
				t.Errorf("Plane after the refusal: %d objects, want the last good 5", len(objs))
			}
			// Compaction by another process: the next build recovers.
			d.Write(t, deploytest.Op{Table: peopletest.Planes, Kind: "compact"})
			if r := mustDeployBuild(t, cfg, exitOK)["Plane"]; r.Error != nil || r.Kind == indexer.KindNone {
				t.Fatalf("build after compaction: %+v", r)
			}
			if objs := mustExport(t, cfg, "Plane"); len(objs) != 4 || objs["2"] != nil {
				t.Errorf("Plane after compaction: %d objects (2: %v)", len(objs), objs["2"])
			}
			if v := mustCheck(t, cfg, exitOK); v["Plane"] == cowguard.VerdictFail {
				t.Errorf("check after compaction: %v", v)
			}

			// serve keeps up with another process's commits.
			p := startServe(t, cfg)
			p.waitStatus(t, "People", "served", daemontest.UpToDate(tables.People))
			snap = d.Write(t, deploytest.Op{Table: peopletest.People, Kind: "overwrite", IDs: []int64{11}, Rows: []icebergtest.Row{peopletest.Row(11, "served")}})
			p.waitStatus(t, "People", "the edit", func(st daemon.TypeStatus) bool {
				return st.CheckpointSnapshotID == snap && st.State == daemon.StateIdle
			})
			if o := p.ok(t, http.MethodGet, "/api/v2/ontologies/serve/objects/People/11", ""); o["name"] != "served 11" {
				t.Errorf("People 11 after the edit: %v", o)
			}
			snap = d.Write(t, deploytest.Op{Table: peopletest.People, Kind: "append", Rows: peopletest.Rows(1000, 3, "new")})
			st := p.waitStatus(t, "People", "the append", func(st daemon.TypeStatus) bool {
				return st.CheckpointSnapshotID == snap && st.State == daemon.StateIdle
			})
			if n := p.count(t, "People"); n != 123 || st.Objects != 123 || st.LastBuild.Kind != indexer.KindIncremental {
				t.Errorf("after the append: count %v, status %+v", n, st)
			}
			p.stop(t)
		})
	}
}
