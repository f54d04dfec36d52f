package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/ontoindex/ontoindex/api"
	"github.com/ontoindex/ontoindex/cowguard"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/indexer/daemon"
	"github.com/ontoindex/ontoindex/internal/testkit/daemontest"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
	"github.com/ontoindex/ontoindex/internal/testkit/indexertest"
	"github.com/ontoindex/ontoindex/internal/testkit/peopletest"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// peopleAdminToken is an admin token that sees People only.
const peopleAdminToken = "people-admin-token-0123456789"

// opsEnv is a real server with a real daemon over real tables: People
// (copy-on-write) and Plane (merge-on-read deletes), configured by a YAML
// file that reloads read.
type opsEnv struct {
	*testEnv
	w       *icebergtest.Warehouse
	people  *icebergtest.Table
	planes  *icebergtest.Table
	cfgPath string
	d       *daemon.Daemon
	reg     *prometheus.Registry
	rows    int // rows of People
	files   int // data files of People
}

// opsTypes is the objectTypes section with People and Plane.
const opsTypes = "objectTypes:\n" + peopletest.PeopleType + peopletest.PlaneType

// opsConfig writes the config file: the given objectTypes section, after
// the sections every test shares.
func (e *opsEnv) opsConfig(tb testing.TB, types string) {
	tb.Helper()
	text := fmt.Sprintf(`ontology: {apiName: demo}
dataDir: %s
catalogs:
  warehouse: {type: hadoop, warehouse: %s}
build: {chunkRows: 2000}
daemon: {pollInterval: 20ms, retryBackoff: 20ms, maxRetryBackoff: 200ms}
auth:
  tokens:
    - {name: app, token: %s, objectTypes: ["*"]}
    - {name: limited, token: %s, objectTypes: [People]}
    - {name: ops, token: %s, objectTypes: ["*"], admin: true}
    - {name: peopleops, token: %s, objectTypes: [People], admin: true}
`, filepath.Join(filepath.Dir(e.cfgPath), "data"), e.w.Dir, appToken, limitedToken, adminToken, peopleAdminToken) + types
	if err := os.WriteFile(e.cfgPath, []byte(text), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// mustOpsEnv creates the tables (People: files files of perFile rows) and
// serves them; the daemon starts with start, or at once unless noDaemon.
func mustOpsEnv(tb testing.TB, files, perFile int, withDaemon bool) *opsEnv {
	tb.Helper()
	w := icebergtest.MustWarehouse(tb)
	tables := peopletest.Must(tb, w, peopletest.Options{People: peopletest.Files(files, perFile), Planes: peopletest.Rows(1, 3, "person")})
	e := &opsEnv{w: w, people: tables.People, planes: tables.Planes, cfgPath: filepath.Join(tb.TempDir(), "ontology.yaml"), rows: files * perFile, files: files}
	e.opsConfig(tb, opsTypes)
	cfg, err := config.Load(e.cfgPath)
	if err != nil {
		tb.Fatal(err)
	}
	ix := indexertest.Open(tb, cfg)
	e.reg = prometheus.NewRegistry()
	opts := api.Options{Registry: e.reg, ConfigPath: e.cfgPath}
	if withDaemon {
		e.d, err = daemon.New(ix, daemon.Options{Registerer: e.reg})
		if err != nil {
			tb.Fatal(err)
		}
		opts.Daemon = e.d
	}
	logs := &bytes.Buffer{}
	opts.Logger = slog.New(slog.NewTextHandler(&lockedWriter{w: logs}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	s, err := api.New(ix, opts)
	if err != nil {
		tb.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	tb.Cleanup(srv.Close)
	e.testEnv = &testEnv{ix: ix, cfg: cfg, srv: srv, api: s, logs: logs}
	return e
}

// lockedWriter serializes writes of concurrent requests to the log buffer.
type lockedWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// start runs the daemon until the test ends (stopped before the indexer
// is closed: cleanups run last-in first-out).
func (e *opsEnv) start(tb testing.TB) {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.d.Run(ctx) }()
	tb.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			tb.Errorf("daemon: %v", err)
		}
	})
}

// status gets the status of one object type as the admin sees it.
func (e *opsEnv) status(tb testing.TB, name string) daemon.TypeStatus {
	tb.Helper()
	r := e.do(tb, http.MethodGet, "/api/indexer/v1/status/"+name, adminToken, nil)
	if r.status != http.StatusOK {
		tb.Fatalf("status %s: %d %s", name, r.status, r.body)
	}
	var st daemon.TypeStatus
	if err := json.Unmarshal(r.body, &st); err != nil {
		tb.Fatal(err)
	}
	return st
}

// waitStatus waits until cond holds for the status of a type, as the
// admin gets it over HTTP.
func (e *opsEnv) waitStatus(tb testing.TB, name, what string, cond func(daemon.TypeStatus) bool) daemon.TypeStatus {
	tb.Helper()
	get := func(name string) (daemon.TypeStatus, error) { return e.status(tb, name), nil }
	return daemontest.WaitStatus(tb, daemontest.StatusFunc(get), name, what, cond)
}

func (e *opsEnv) count(tb testing.TB, name string) int64 {
	tb.Helper()
	m := e.ok(tb, http.MethodPost, ontologyPath+"/objects/"+name+"/count", nil)
	n, err := m["count"].(json.Number).Int64()
	if err != nil {
		tb.Fatal(err)
	}
	return n
}

func decode[T any](tb testing.TB, r response) T {
	tb.Helper()
	var v T
	if err := json.Unmarshal(r.body, &v); err != nil {
		tb.Fatalf("decode %s: %v", r.body, err)
	}
	return v
}

// TestOps_status checks readiness and the status fields against real
// builds, and that a token sees only its object types.
func TestOps_status(t *testing.T) {
	e := mustOpsEnv(t, 3, 40, true)

	// Before the daemon runs nothing is built.
	if r := e.do(t, http.MethodGet, "/readyz", "", nil); r.status != http.StatusServiceUnavailable || r.json(t)["ready"] != false {
		t.Fatalf("readyz before any build: %d %s", r.status, r.body)
	}
	if r := e.do(t, http.MethodGet, "/healthz", "", nil); r.status != http.StatusOK {
		t.Fatalf("healthz: %d %s", r.status, r.body)
	}
	rep := decode[daemon.StatusReport](t, e.do(t, http.MethodGet, "/api/indexer/v1/status", appToken, nil))
	if rep.Ready || len(rep.ObjectTypes) != 2 || rep.ObjectTypes[0].Generation != 0 || rep.ObjectTypes[0].LastBuild != nil {
		t.Fatalf("status before any build: %+v", rep)
	}

	e.start(t)
	st := e.waitStatus(t, "People", "built", daemontest.UpToDate(e.people))
	snap := e.people.T.CurrentSnapshot().SnapshotID
	lb := st.LastBuild
	if st.Table != "warehouse.ns.people" || st.Generation != 1 || st.Objects != int64(e.rows) || st.LagSnapshots != 0 || st.LagSeconds != 0 ||
		st.LastError != nil || st.InvalidRows.Count != 0 || st.InvalidRows.Samples == nil {
		t.Errorf("status = %+v", st)
	}
	if lb == nil || lb.Kind != indexer.KindFull || lb.From != 0 || lb.To != snap || lb.FilesRead != e.files || lb.RowsRead != int64(e.rows) ||
		lb.Upserts != int64(e.rows) || lb.Deletes != 0 || lb.BytesRead <= 0 || lb.FinishedAt.IsZero() {
		t.Errorf("lastBuild = %+v", lb)
	}
	e.waitStatus(t, "Plane", "built", daemontest.UpToDate(e.planes))
	if r := e.do(t, http.MethodGet, "/readyz", "", nil); r.status != http.StatusOK || r.json(t)["ready"] != true {
		t.Fatalf("readyz after the builds: %d %s", r.status, r.body)
	}

	// An incremental build: one copy-on-write update, lag counted until it is indexed.
	if err := e.people.Overwrite(context.Background(), iceberg.EqualTo(iceberg.Reference("id"), int64(7)),
		[]icebergtest.Row{{"id": 7, "name": "renamed seven", "city": "Oslo"}}); err != nil {
		t.Fatal(err)
	}
	st = e.waitStatus(t, "People", "updated", daemontest.UpToDate(e.people))
	if lb := st.LastBuild; lb == nil || lb.Kind != indexer.KindIncremental || lb.From != snap || lb.Upserts != 1 || lb.Deletes != 0 || lb.FilesRead != 2 {
		t.Errorf("incremental lastBuild = %+v", st.LastBuild)
	}
	if st.Generation != 1 || st.Objects != int64(e.rows) {
		t.Errorf("after the update: generation %d, objects %d", st.Generation, st.Objects)
	}

	// Visibility: the limited token sees People only.
	rep = decode[daemon.StatusReport](t, e.do(t, http.MethodGet, "/api/indexer/v1/status", limitedToken, nil))
	if !rep.Ready || len(rep.ObjectTypes) != 1 || rep.ObjectTypes[0].ObjectType != "People" {
		t.Errorf("limited status = %+v", rep)
	}
	e.failAs(t, limitedToken, http.MethodGet, "/api/indexer/v1/status/Plane", nil, http.StatusNotFound, "ObjectTypeNotFound")
	e.failAs(t, adminToken, http.MethodGet, "/api/indexer/v1/status/Nope", nil, http.StatusNotFound, "ObjectTypeNotFound")
	e.failAs(t, "", http.MethodGet, "/api/indexer/v1/status", nil, http.StatusUnauthorized, "MissingCredentials")
	e.failAs(t, "wrong-token", http.MethodGet, "/api/indexer/v1/status", nil, http.StatusUnauthorized, "InvalidCredentials")
	rep = decode[daemon.StatusReport](t, e.do(t, http.MethodGet, "/api/indexer/v1/status", appToken, nil))
	if !rep.Ready || len(rep.ObjectTypes) != 2 || rep.ObjectTypes[0].ObjectType != "People" || rep.ObjectTypes[1].ObjectType != "Plane" {
		t.Errorf("app status = %+v", rep)
	}
}

// TestOps_blocked commits a merge-on-read delete: the type is blocked with
// the error in status and in the write-mode check while searches keep
// answering; after compaction it recovers by itself.
func TestOps_blocked(t *testing.T) {
	ctx := context.Background()
	e := mustOpsEnv(t, 2, 10, true)
	e.start(t)
	e.waitStatus(t, "Plane", "built", daemontest.UpToDate(e.planes))
	checks := decode[map[string]any](t, e.do(t, http.MethodGet, "/api/indexer/v1/checks/write-modes", appToken, nil))
	if checks["verdict"] != "warn" {
		t.Errorf("checks before the delete: %v", checks)
	}

	if err := e.planes.Delete(ctx, iceberg.EqualTo(iceberg.Reference("id"), int64(2))); err != nil {
		t.Fatal(err)
	}
	st := e.waitStatus(t, "Plane", "blocked", func(st daemon.TypeStatus) bool { return st.State == daemon.StateBlocked })
	snap := e.planes.T.CurrentSnapshot().SnapshotID
	if st.LastError == nil || st.LastError.Code != indexer.CodeMergeOnRead || !strings.Contains(st.LastError.Message, "merge-on-read") ||
		!strings.Contains(st.LastError.Message, "copy-on-write") || st.LastError.At.IsZero() {
		t.Errorf("lastError = %+v", st.LastError)
	}
	if st.TableSnapshotID != snap || st.CheckpointSnapshotID == snap || st.LagSnapshots != 1 || st.LagSeconds < 0 || st.Objects != 3 {
		t.Errorf("blocked status = %+v", st)
	}
	// Searches keep answering from the last good state.
	if n := e.count(t, "Plane"); n != 3 {
		t.Errorf("count while blocked = %d", n)
	}
	if objs, _ := e.search(t, "Plane", map[string]any{"where": map[string]any{"type": "eq", "field": "id", "value": 2}}); len(objs) != 1 {
		t.Errorf("search while blocked = %v", objs)
	}

	// The write-mode check, live: fail for Plane, ok for People; the limited token sees People only.
	rep := decode[struct {
		Verdict     string `json:"verdict"`
		ObjectTypes []struct {
			cowguard.Report
			Error *indexer.ErrorInfo `json:"error"`
		} `json:"objectTypes"`
	}](t, e.do(t, http.MethodGet, "/api/indexer/v1/checks/write-modes", appToken, nil))
	if rep.Verdict != "fail" || len(rep.ObjectTypes) != 2 {
		t.Fatalf("checks = %+v", rep)
	}
	people, plane := rep.ObjectTypes[0], rep.ObjectTypes[1]
	if people.ObjectType != "People" || people.Verdict != cowguard.VerdictOK || people.Table != "warehouse.ns.people" || people.Error != nil {
		t.Errorf("People check = %+v", people)
	}
	if plane.ObjectType != "Plane" || plane.Verdict != cowguard.VerdictFail || plane.LiveDeleteFiles.Position != 1 || plane.SnapshotID != snap ||
		plane.WriteModes.Delete != cowguard.MergeOnRead || !strings.Contains(plane.Message, "copy-on-write") {
		t.Errorf("Plane check = %+v", plane)
	}
	limited := decode[map[string]any](t, e.do(t, http.MethodGet, "/api/indexer/v1/checks/write-modes", limitedToken, nil))
	if limited["verdict"] != "ok" || len(limited["objectTypes"].([]any)) != 1 {
		t.Errorf("limited checks = %v", limited)
	}

	// Compaction: the type recovers by itself.
	if err := e.planes.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	st = e.waitStatus(t, "Plane", "recovered", daemontest.UpToDate(e.planes))
	if st.LastError != nil || st.Objects != 2 {
		t.Errorf("recovered status = %+v", st)
	}
	if n := e.count(t, "Plane"); n != 2 {
		t.Errorf("count after recovery = %d", n)
	}
	m := scrape(t, e.testEnv, adminToken)
	if v := metricValue(t, m, daemon.MetricMORRefusals, map[string]string{"object_type": "Plane"}); v < 1 {
		t.Errorf("%s = %v", daemon.MetricMORRefusals, v)
	}
}

// TestOps_rebuildUnderLoad requests a full rebuild while 20 clients search:
// every response is complete, none is an error, and status shows the
// build and the swap to the new generation.
func TestOps_rebuildUnderLoad(t *testing.T) {
	const files, perFile = 10, 2000
	e := mustOpsEnv(t, files, perFile, true)
	e.start(t)
	e.waitStatus(t, "People", "built", daemontest.UpToDate(e.people))
	e.waitStatus(t, "Plane", "built", daemontest.UpToDate(e.planes))

	// Who may rebuild.
	e.failAs(t, appToken, http.MethodPost, "/api/indexer/v1/objectTypes/People/rebuild", nil, http.StatusForbidden, "PermissionDenied")
	e.failAs(t, peopleAdminToken, http.MethodPost, "/api/indexer/v1/objectTypes/Plane/rebuild", nil, http.StatusNotFound, "ObjectTypeNotFound")
	e.failAs(t, adminToken, http.MethodPost, "/api/indexer/v1/objectTypes/Nope/rebuild", nil, http.StatusNotFound, "ObjectTypeNotFound")
	e.failAs(t, "", http.MethodPost, "/api/indexer/v1/objectTypes/People/rebuild", nil, http.StatusUnauthorized, "MissingCredentials")

	ctx, stop := context.WithCancel(context.Background())
	var requests, failures atomic.Int64
	var firstFailure sync.Once
	var failure string
	fail := func(format string, args ...any) {
		failures.Add(1)
		firstFailure.Do(func() { failure = fmt.Sprintf(format, args...) })
	}
	client := e.srv.Client()
	post := func(path, body string) (int, map[string]any) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, e.srv.URL+ontologyPath+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+appToken)
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			return 0, nil
		}
		defer resp.Body.Close()
		var m map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&m)
		return resp.StatusCode, m
	}
	var wg sync.WaitGroup
	for c := range 20 {
		wg.Go(func() {
			for i := 0; ctx.Err() == nil; i++ {
				id := (c*7919 + i*104729) % e.rows
				city := peopletest.Cities[id%len(peopletest.Cities)]
				code, m := post("/objects/People/search", fmt.Sprintf(`{"where":{"type":"and","value":[{"type":"eq","field":"city","value":%q},{"type":"gte","field":"id","value":%d}]},"pageSize":5,"orderBy":{"fields":[{"field":"id"}]}}`, city, id))
				if ctx.Err() != nil {
					return
				}
				requests.Add(1)
				// Matches: the ids >= id with id % 4 == id's.
				want := (e.rows - id + 3) / 4
				if code != http.StatusOK || m["totalCount"] != fmt.Sprint(want) {
					fail("search city %s, id >= %d: %d totalCount %v, want %d: %v", city, id, code, m["totalCount"], want, m)
					continue
				}
				data, _ := m["data"].([]any)
				if len(data) != min(5, want) {
					fail("search city %s, id >= %d: %d objects", city, id, len(data))
					continue
				}
				first := data[0].(map[string]any)
				if first["id"] != fmt.Sprint(id) || first["name"] != fmt.Sprintf("person %d", id) || first["city"] != city {
					fail("search city %s, id >= %d: first object %v", city, id, first)
				}
				code, m = post("/objects/People/count", "")
				if ctx.Err() != nil {
					return
				}
				requests.Add(1)
				if code != http.StatusOK || m["count"] != float64(e.rows) {
					fail("count: %d %v", code, m)
				}
			}
		})
	}

	before := e.status(t, "People")
	r := e.do(t, http.MethodPost, "/api/indexer/v1/objectTypes/People/rebuild", adminToken, nil)
	if r.status != http.StatusAccepted {
		t.Fatalf("rebuild: %d %s", r.status, r.body)
	}
	if st := decode[daemon.TypeStatus](t, r); st.ObjectType != "People" || st.Generation != before.Generation {
		t.Errorf("rebuild answered %+v", st)
	}
	sawBuilding, atBuilding := false, int64(0)
	st := e.waitStatus(t, "People", "rebuilt", func(st daemon.TypeStatus) bool {
		if st.State == daemon.StateBuilding {
			if !sawBuilding {
				atBuilding = requests.Load()
			}
			sawBuilding = true
			if st.Generation != before.Generation {
				t.Errorf("generation %d served while building (was %d)", st.Generation, before.Generation)
			}
		}
		return st.Generation == before.Generation+1 && st.State == daemon.StateIdle
	})
	atSwap := requests.Load()
	// Some more searches on the new generation.
	for requests.Load() < atSwap+40 && failures.Load() == 0 {
		time.Sleep(10 * time.Millisecond)
	}
	stop()
	wg.Wait()
	if n := failures.Load(); n > 0 {
		t.Errorf("%d of %d requests failed; the first: %s", n, requests.Load(), failure)
	}
	if !sawBuilding {
		t.Error("status never showed the rebuild running")
	}
	if lb := st.LastBuild; lb == nil || lb.Kind != indexer.KindFull || lb.Generation != before.Generation+1 || lb.Upserts != int64(e.rows) {
		t.Errorf("lastBuild after the rebuild = %+v", st.LastBuild)
	}
	if st.Objects != int64(e.rows) || st.CheckpointSnapshotID != before.CheckpointSnapshotID {
		t.Errorf("status after the rebuild = %+v", st)
	}
	t.Logf("%d requests: %d before the build showed in status, %d until the swap showed", requests.Load(), atBuilding, atSwap-atBuilding)
}

// TestOps_reload reloads the config file: an added object type is served,
// a bad config is rejected with the reason while the old one keeps
// serving, and only admins may reload.
func TestOps_reload(t *testing.T) {
	e := mustOpsEnv(t, 2, 10, true)
	// Start with People only.
	e.opsConfig(t, "objectTypes:\n"+peopletest.PeopleType)
	if _, err := e.api.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	e.start(t)
	e.waitStatus(t, "People", "built", daemontest.UpToDate(e.people))
	e.failAs(t, adminToken, http.MethodGet, "/api/indexer/v1/status/Plane", nil, http.StatusNotFound, "ObjectTypeNotFound")

	e.failAs(t, appToken, http.MethodPost, "/api/indexer/v1/reload", nil, http.StatusForbidden, "PermissionDenied")

	// Added type.
	e.opsConfig(t, opsTypes)
	r := e.do(t, http.MethodPost, "/api/indexer/v1/reload", adminToken, nil)
	if r.status != http.StatusOK {
		t.Fatalf("reload: %d %s", r.status, r.body)
	}
	res := decode[api.ReloadResult](t, r)
	if strings.Join(res.Added, ",") != "Plane" || len(res.Changed) != 0 || len(res.Removed) != 0 || strings.Join(res.Unchanged, ",") != "People" || len(res.RestartNeeded) != 0 {
		t.Errorf("reload = %+v", res)
	}
	e.waitStatus(t, "Plane", "built", daemontest.UpToDate(e.planes))
	if n := e.count(t, "Plane"); n != 3 {
		t.Errorf("Plane count = %d", n)
	}
	// An admin limited to People sees only its part of the change.
	r = e.do(t, http.MethodPost, "/api/indexer/v1/reload", peopleAdminToken, nil)
	if res := decode[api.ReloadResult](t, r); r.status != http.StatusOK || len(res.Added) != 0 || strings.Join(res.Unchanged, ",") != "People" {
		t.Errorf("reload as peopleops: %d %s", r.status, r.body)
	}

	// Bad configs: rejected with the reason; the old config keeps serving.
	for _, bad := range []struct{ name, types, reason string }{
		{"missing table", opsTypes + "  - {apiName: Ghost, table: warehouse.ns.nope}\n", "objectTypes[2].table"},
		{"unknown column", opsTypes + "  - {apiName: Ghost, table: warehouse.ns.people, properties: {x: {column: nope}}}\n", "objectTypes[2]"},
		{"not YAML", "objectTypes: [", "yaml"},
	} {
		e.opsConfig(t, bad.types)
		m := e.failAs(t, adminToken, http.MethodPost, "/api/indexer/v1/reload", nil, http.StatusBadRequest, "InvalidConfig")
		if reason, _ := m["parameters"].(map[string]any)["reason"].(string); !strings.Contains(reason, bad.reason) {
			t.Errorf("%s: reason %q does not name %q", bad.name, reason, bad.reason)
		}
		rep := decode[daemon.StatusReport](t, e.do(t, http.MethodGet, "/api/indexer/v1/status", adminToken, nil))
		if len(rep.ObjectTypes) != 2 || !rep.Ready {
			t.Errorf("%s: status after the rejected reload = %+v", bad.name, rep)
		}
		if n := e.count(t, "People"); n != int64(e.rows) {
			t.Errorf("%s: People count = %d", bad.name, n)
		}
	}
	m := scrape(t, e.testEnv, adminToken)
	if v := metricValue(t, m, daemon.MetricReloads, map[string]string{"result": "rejected"}); v != 2 { // the YAML error never reaches the daemon
		t.Errorf("rejected reloads = %v", v)
	}

	// A changed auth section applies at the next restart, and says so.
	e.opsConfig(t, opsTypes)
	raw, _ := os.ReadFile(e.cfgPath)
	if err := os.WriteFile(e.cfgPath, bytes.Replace(raw, []byte("    - {name: app,"), []byte("    - {name: app2, token: another-token-0123456789, objectTypes: [People]}\n    - {name: app,"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	r = e.do(t, http.MethodPost, "/api/indexer/v1/reload", adminToken, nil)
	if res := decode[api.ReloadResult](t, r); r.status != http.StatusOK || strings.Join(res.RestartNeeded, ",") != "auth" {
		t.Errorf("reload with new auth: %d %s", r.status, r.body)
	}
}

// TestOps_withoutDaemon serves status from the engine alone: rebuild and
// reload are not available.
func TestOps_withoutDaemon(t *testing.T) {
	e := mustOpsEnv(t, 2, 10, false)
	if r := e.do(t, http.MethodGet, "/readyz", "", nil); r.status != http.StatusServiceUnavailable {
		t.Fatalf("readyz: %d %s", r.status, r.body)
	}
	for _, name := range []string{"People", "Plane"} {
		if _, err := e.ix.Build(context.Background(), name, indexer.BuildOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if r := e.do(t, http.MethodGet, "/readyz", "", nil); r.status != http.StatusOK {
		t.Fatalf("readyz: %d %s", r.status, r.body)
	}
	st := e.status(t, "People")
	if st.State != daemon.StateIdle || st.Generation != 1 || st.Objects != 20 || st.CheckpointSnapshotID != e.people.T.CurrentSnapshot().SnapshotID ||
		st.LastBuild == nil || st.LastBuild.Kind != indexer.KindFull || st.LastBuild.Upserts != 20 {
		t.Errorf("status = %+v", st)
	}
	e.fail(t, http.MethodGet, "/api/indexer/v1/status/Nope", nil, http.StatusNotFound, "ObjectTypeNotFound")
	e.failAs(t, adminToken, http.MethodPost, "/api/indexer/v1/objectTypes/People/rebuild", nil, http.StatusConflict, "OperationNotAvailable")
	e.failAs(t, adminToken, http.MethodPost, "/api/indexer/v1/reload", nil, http.StatusConflict, "OperationNotAvailable")
	m := scrape(t, e.testEnv, adminToken)
	if _, ok := m[api.MetricHTTPRequests]; !ok {
		t.Errorf("metrics without the daemon: %v", m)
	}
}

// scrape gets /metrics and parses it with Prometheus' text parser.
func scrape(tb testing.TB, e *testEnv, token string) map[string]*dto.MetricFamily {
	tb.Helper()
	r := e.do(tb, http.MethodGet, "/metrics", token, nil)
	if r.status != http.StatusOK {
		tb.Fatalf("metrics: %d %s", r.status, r.body)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	m, err := p.TextToMetricFamilies(bytes.NewReader(r.body))
	if err != nil {
		tb.Fatalf("parse metrics: %v\n%s", err, r.body)
	}
	return m
}

// findMetric finds the metric of a family whose labels include want.
func findMetric(m map[string]*dto.MetricFamily, name string, want map[string]string) *dto.Metric {
	f, ok := m[name]
	if !ok {
		return nil
	}
	for _, x := range f.GetMetric() {
		got := map[string]string{}
		for _, l := range x.GetLabel() {
			got[l.GetName()] = l.GetValue()
		}
		match := true
		for k, v := range want {
			if got[k] != v {
				match = false
			}
		}
		if match {
			return x
		}
	}
	return nil
}

// metricValue is the value of a counter or gauge (0 when absent).
func metricValue(tb testing.TB, m map[string]*dto.MetricFamily, name string, labels map[string]string) float64 {
	tb.Helper()
	x := findMetric(m, name, labels)
	switch {
	case x == nil:
		return 0
	case x.Counter != nil:
		return x.Counter.GetValue()
	case x.Gauge != nil:
		return x.Gauge.GetValue()
	}
	tb.Fatalf("%s %v is neither a counter nor a gauge", name, labels)
	return 0
}

// TestOps_metrics scrapes /metrics and checks the daemon's metrics against
// real builds and the HTTP metrics against the requests made.
func TestOps_metrics(t *testing.T) {
	e := mustOpsEnv(t, 3, 40, true)
	e.start(t)
	// The engine's status says built once the generation serves; the
	// daemon counts the build in its metrics, then in its history, after
	// the build returns: wait for the history.
	counted := func(tbl *icebergtest.Table) func(daemon.TypeStatus) bool {
		upToDate := daemontest.UpToDate(tbl)
		return func(st daemon.TypeStatus) bool { return upToDate(st) && len(st.RecentBuilds) > 0 }
	}
	st := e.waitStatus(t, "People", "built and counted", counted(e.people))
	e.waitStatus(t, "Plane", "built and counted", counted(e.planes))

	// Requests to count: 3 searches, 2 gets of an unknown type, 1 unmatched path.
	for range 3 {
		e.search(t, "People", map[string]any{"pageSize": 1})
	}
	for range 2 {
		e.fail(t, http.MethodGet, ontologyPath+"/objects/Nope/1", nil, http.StatusNotFound, "ObjectTypeNotFound")
	}
	e.fail(t, http.MethodGet, "/no/such/path", nil, http.StatusNotFound, "ApiNotFound")

	e.failAs(t, "", http.MethodGet, "/metrics", nil, http.StatusUnauthorized, "MissingCredentials")
	e.failAs(t, limitedToken, http.MethodGet, "/metrics", nil, http.StatusForbidden, "PermissionDenied")
	m := scrape(t, e.testEnv, appToken)

	people := map[string]string{"object_type": "People"}
	full := map[string]string{"object_type": "People", "kind": "full"}
	checks := []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{daemon.MetricBuilds, map[string]string{"object_type": "People", "kind": "full", "result": "ok"}, 1},
		{daemon.MetricFilesRead, full, float64(st.LastBuild.FilesRead)},
		{daemon.MetricBytesRead, full, float64(st.LastBuild.BytesRead)},
		{daemon.MetricRowsRead, full, float64(e.rows)},
		{daemon.MetricUpserts, full, float64(e.rows)},
		{daemon.MetricDeletes, full, 0},
		{daemon.MetricObjects, people, float64(e.rows)},
		{daemon.MetricGeneration, people, 1},
		{daemon.MetricLagSnapshots, people, 0},
		{daemon.MetricLagSeconds, people, 0},
		{daemon.MetricObjectTypeState, map[string]string{"object_type": "People", "state": "idle"}, 1},
		{daemon.MetricObjectTypeState, map[string]string{"object_type": "People", "state": "blocked"}, 0},
		{daemon.MetricObjects, map[string]string{"object_type": "Plane"}, 3},
		{api.MetricHTTPRequests, map[string]string{"method": "POST", "route": "/api/v2/ontologies/{ontology}/objects/{objectType}/search", "code": "200"}, 3},
		{api.MetricHTTPRequests, map[string]string{"method": "GET", "route": "/api/v2/ontologies/{ontology}/objects/{objectType}/{primaryKey}", "code": "404"}, 2},
		{api.MetricHTTPRequests, map[string]string{"method": "GET", "route": api.RouteUnmatched, "code": "404"}, 1},
		{api.MetricHTTPRequests, map[string]string{"method": "GET", "route": "/metrics", "code": "403"}, 1},
		{api.MetricHTTPInFlight, nil, 1}, // the scrape itself
	}
	for _, c := range checks {
		if findMetric(m, c.name, c.labels) == nil {
			t.Errorf("%s %v: missing", c.name, c.labels)
			continue
		}
		if got := metricValue(t, m, c.name, c.labels); got != c.want {
			t.Errorf("%s %v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
	if x := findMetric(m, daemon.MetricBuildDuration, full); x == nil || x.Histogram.GetSampleCount() != 1 {
		t.Errorf("%s: %v", daemon.MetricBuildDuration, x)
	}
	if x := findMetric(m, api.MetricHTTPRequestDuration, map[string]string{"method": "POST", "route": "/api/v2/ontologies/{ontology}/objects/{objectType}/search"}); x == nil ||
		x.Histogram.GetSampleCount() != 3 || len(x.Histogram.GetBucket()) == 0 {
		t.Errorf("%s: %v", api.MetricHTTPRequestDuration, x)
	}
	// No raw paths as route labels.
	for _, x := range m[api.MetricHTTPRequests].GetMetric() {
		for _, l := range x.GetLabel() {
			if l.GetName() == "route" && (strings.Contains(l.GetValue(), "People") || strings.Contains(l.GetValue(), "Nope")) {
				t.Errorf("route label %q is a raw path", l.GetValue())
			}
		}
	}

	// After an incremental build: the counters moved by its result.
	if err := e.people.Delete(context.Background(), iceberg.EqualTo(iceberg.Reference("id"), int64(3))); err != nil {
		t.Fatal(err)
	}
	st = e.waitStatus(t, "People", "updated", daemontest.UpToDate(e.people))
	m = scrape(t, e.testEnv, adminToken)
	inc := map[string]string{"object_type": "People", "kind": "incremental"}
	if got := metricValue(t, m, daemon.MetricDeletes, inc); got != 1 {
		t.Errorf("incremental deletes = %v", got)
	}
	if got := metricValue(t, m, daemon.MetricFilesRead, inc); got != float64(st.LastBuild.FilesRead) {
		t.Errorf("incremental files read = %v, status says %d", got, st.LastBuild.FilesRead)
	}
	if got := metricValue(t, m, daemon.MetricObjects, people); got != float64(e.rows-1) {
		t.Errorf("objects = %v", got)
	}
}
