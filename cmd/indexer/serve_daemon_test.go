package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/ontoindex/ontoindex/api"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/indexer/daemon"
	"github.com/ontoindex/ontoindex/internal/testkit/daemontest"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
	"github.com/ontoindex/ontoindex/internal/testkit/indexertest"
	"github.com/ontoindex/ontoindex/internal/testkit/peopletest"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// waitLong bounds every wait for a real process: generous, since the tests
// run on a loaded machine, and only reached when something is wrong.
const waitLong = 3 * time.Minute

// Tokens of the serve tests.
const (
	serveAppToken   = "serve-app-token-0123456789"
	serveAdminToken = "serve-admin-token-0123456789"
)

// serveWarehouse is a warehouse written by the test process, as another
// application would write it, and the config of `indexer serve` over it.
type serveWarehouse struct {
	dir     string
	cfgPath string
	w       *icebergtest.Warehouse
	tables  map[string]*icebergtest.Table // by ident
}

// mustServeWarehouse creates the tables ns.people (files appends of
// perFile rows, copy-on-write) and ns.planes (3 rows, merge-on-read
// deletes).
func mustServeWarehouse(tb testing.TB, files, perFile int) *serveWarehouse {
	tb.Helper()
	dir := tb.TempDir()
	w, err := icebergtest.NewWarehouse(filepath.Join(dir, "warehouse"))
	if err != nil {
		tb.Fatal(err)
	}
	sw := &serveWarehouse{dir: dir, cfgPath: filepath.Join(dir, "ontology.yaml"), w: w, tables: map[string]*icebergtest.Table{}}
	tables := peopletest.Must(tb, w, peopletest.Options{People: peopletest.Files(files, perFile), Planes: peopletest.Rows(1, 3, "plane")})
	sw.tables[peopletest.People], sw.tables[peopletest.Planes] = tables.People, tables.Planes
	return sw
}

// config writes the config file with the given object types (YAML list
// items) and extra top-level sections.
func (sw *serveWarehouse) config(tb testing.TB, types, extra string) {
	tb.Helper()
	mustFile(tb, sw.cfgPath, `ontology: {apiName: serve}
dataDir: ./data
catalogs:
  warehouse: {type: hadoop, warehouse: ./warehouse}
build: {chunkRows: 700, batchRows: 500}
daemon: {pollInterval: 50ms, retryBackoff: 50ms, maxRetryBackoff: 500ms}
auth:
  tokens:
    - {name: app, token: `+serveAppToken+`, objectTypes: ["*"]}
    - {name: ops, token: `+serveAdminToken+`, objectTypes: ["*"], admin: true}
`+extra+"objectTypes:\n"+types)
}

// match checks invariant 1 for the object types of the config, after the
// serve process exited: the objects are exactly the rows of the checkpoint
// snapshot. It returns the types without a checkpoint.
func (sw *serveWarehouse) match(tb testing.TB, types map[string]string) (unbuilt []string) {
	tb.Helper()
	cfg, err := config.Load(sw.cfgPath)
	if err != nil {
		tb.Fatal(err)
	}
	ix, err := indexer.Open(context.Background(), cfg, indexer.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	defer ix.Close()
	for name, ident := range types {
		if cp, err := ix.Checkpoint(name); err != nil {
			tb.Fatal(err)
		} else if cp == nil {
			unbuilt = append(unbuilt, name)
			continue
		}
		if err := indexertest.Match(ix, name, sw.tables[ident]); err != nil {
			tb.Fatalf("invariant 1: %v", err)
		}
		cp, _ := ix.Checkpoint(name)
		tb.Logf("%s: %d objects at snapshot %d (generation %d); the table is at %d", name, cp.Objects, cp.SnapshotID, cp.Generation, sw.tables[ident].T.CurrentSnapshot().SnapshotID)
	}
	return unbuilt
}

// serveProc is a real `indexer serve` process (the test binary as the
// indexer command).
type serveProc struct {
	cmd    *exec.Cmd
	stderr *syncBuffer
	base   string
	done   chan struct{} // closed when the process exited
	err    error         // of Wait, once done
}

// startServe starts `indexer serve --config F --listen 127.0.0.1:0 args...`
// and waits until it listens. The process is killed if the test ends
// before it exits.
func startServe(tb testing.TB, cfgPath string, args ...string) *serveProc {
	tb.Helper()
	cmd := indexerProcess(tb, append([]string{"serve", "--config", cfgPath, "--listen", "127.0.0.1:0"}, args...)...)
	p := &serveProc{cmd: cmd, stderr: &syncBuffer{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = p.stderr, p.stderr
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	tb.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-p.done
		if tb.Failed() {
			tb.Logf("indexer serve output:\n%s", p.stderr.String())
		}
	})
	p.base = p.waitOutput(tb, listening)[1]
	return p
}

// waitOutput waits until the output matches re and returns the match.
func (p *serveProc) waitOutput(tb testing.TB, re *regexp.Regexp) []string {
	tb.Helper()
	deadline := time.Now().Add(waitLong)
	for {
		if m := re.FindStringSubmatch(p.stderr.String()); m != nil {
			return m
		}
		select {
		case <-p.done:
			if m := re.FindStringSubmatch(p.stderr.String()); m != nil {
				return m
			}
			tb.Fatalf("indexer serve exited (%v) before printing %s:\n%s", p.err, re, p.stderr.String())
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			tb.Fatalf("indexer serve did not print %s:\n%s", re, p.stderr.String())
		}
	}
}

func (p *serveProc) signal(tb testing.TB, sig os.Signal) {
	tb.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		tb.Fatalf("signal %s: %v", sig, err)
	}
}

// wait waits for the process to exit and returns its exit code.
func (p *serveProc) wait(tb testing.TB) int {
	tb.Helper()
	select {
	case <-p.done:
	case <-time.After(waitLong):
		tb.Fatalf("indexer serve did not exit:\n%s", p.stderr.String())
	}
	var ee *exec.ExitError
	if errors.As(p.err, &ee) {
		return ee.ExitCode()
	}
	if p.err != nil {
		tb.Fatal(p.err)
	}
	return 0
}

// stop sends SIGTERM and expects a graceful exit.
func (p *serveProc) stop(tb testing.TB) {
	tb.Helper()
	p.signal(tb, syscall.SIGTERM)
	if code := p.wait(tb); code != exitOK {
		tb.Fatalf("indexer serve exited with %d after SIGTERM:\n%s", code, p.stderr.String())
	}
	if out := p.stderr.String(); !strings.Contains(out, "indexer serve: stopped") {
		tb.Fatalf("no graceful stop:\n%s", out)
	}
}

// do sends a request and returns the status and body.
func (p *serveProc) do(tb testing.TB, method, path, token, body string) (int, []byte) {
	tb.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, p.base+path, rd)
	if err != nil {
		tb.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	return resp.StatusCode, raw
}

// ok sends a request with the app token, expects 200 and decodes the body.
func (p *serveProc) ok(tb testing.TB, method, path, body string) map[string]any {
	tb.Helper()
	code, raw := p.do(tb, method, path, serveAppToken, body)
	if code != http.StatusOK {
		tb.Fatalf("%s %s: %d %s", method, path, code, raw)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		tb.Fatal(err)
	}
	return m
}

func (p *serveProc) status(tb testing.TB, name string) daemon.TypeStatus {
	tb.Helper()
	code, raw := p.do(tb, http.MethodGet, "/api/indexer/v1/status/"+url.PathEscape(name), serveAppToken, "")
	if code != http.StatusOK {
		tb.Fatalf("status %s: %d %s", name, code, raw)
	}
	var st daemon.TypeStatus
	if err := json.Unmarshal(raw, &st); err != nil {
		tb.Fatal(err)
	}
	return st
}

// waitStatus waits until cond holds for the status of a type, as the app
// token gets it over HTTP.
func (p *serveProc) waitStatus(tb testing.TB, name, what string, cond func(daemon.TypeStatus) bool) daemon.TypeStatus {
	tb.Helper()
	get := func(name string) (daemon.TypeStatus, error) { return p.status(tb, name), nil }
	return daemontest.WaitStatus(tb, daemontest.StatusFunc(get), name, what, cond)
}

func (p *serveProc) count(tb testing.TB, name string) float64 {
	tb.Helper()
	n, _ := p.ok(tb, http.MethodPost, "/api/v2/ontologies/serve/objects/"+name+"/count", "")["count"].(float64)
	return n
}

// scrape gets /metrics and parses it with Prometheus' text parser.
func (p *serveProc) scrape(tb testing.TB) map[string]*dto.MetricFamily {
	tb.Helper()
	code, raw := p.do(tb, http.MethodGet, "/metrics", serveAppToken, "")
	if code != http.StatusOK {
		tb.Fatalf("metrics: %d %s", code, raw)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	m, err := parser.TextToMetricFamilies(bytes.NewReader(raw))
	if err != nil {
		tb.Fatalf("parse metrics: %v", err)
	}
	return m
}

// sample returns the value of the sample of a counter or gauge whose labels
// include want, and whether there is one.
func sample(m map[string]*dto.MetricFamily, name string, want map[string]string) (float64, bool) {
	for _, x := range m[name].GetMetric() {
		ok := true
		for _, l := range x.GetLabel() {
			if v, in := want[l.GetName()]; in && v != l.GetValue() {
				ok = false
			}
		}
		if !ok {
			continue
		}
		if x.Counter != nil {
			return x.Counter.GetValue(), true
		}
		return x.Gauge.GetValue(), true
	}
	return 0, false
}

// TestServe_daemon runs a real `indexer serve`: it picks up a
// copy-on-write commit made by another process and serves it; a
// merge-on-read commit blocks the type with the error in status while
// searches keep answering, and after compaction it recovers by itself.
// Status (also through `indexer status --url`) and metrics are checked
// against the builds; at the end, invariant 1 holds.
func TestServe_daemon(t *testing.T) {
	ctx := context.Background()
	sw := mustServeWarehouse(t, 3, 50)
	sw.config(t, peopletest.PeopleType+peopletest.PlaneType, "")
	p := startServe(t, sw.cfgPath)
	people, planes := sw.tables["ns.people"], sw.tables["ns.planes"]

	first := p.waitStatus(t, "People", "built", daemontest.UpToDate(people))
	p.waitStatus(t, "Plane", "built", daemontest.UpToDate(planes))
	p.waitOutput(t, regexp.MustCompile(`indexer serve: ready: every object type has a generation to serve`))
	if code, _ := p.do(t, http.MethodGet, "/readyz", "", ""); code != http.StatusOK {
		t.Fatalf("readyz: %d", code)
	}
	if lb := first.LastBuild; first.Generation != 1 || first.Objects != 150 || lb == nil || lb.Kind != indexer.KindFull || lb.Upserts != 150 || lb.FilesRead != 3 {
		t.Errorf("first status = %+v", first)
	}

	// A copy-on-write update by another process: indexed and searchable.
	if err := people.Overwrite(ctx, iceberg.EqualTo(iceberg.Reference("id"), int64(42)),
		[]icebergtest.Row{{"id": 42, "name": "forty two renamed", "city": "Quito"}}); err != nil {
		t.Fatal(err)
	}
	st := p.waitStatus(t, "People", "updated", daemontest.UpToDate(people))
	if lb := st.LastBuild; lb == nil || lb.Kind != indexer.KindIncremental || lb.From != first.CheckpointSnapshotID || lb.Upserts != 1 || lb.Deletes != 0 {
		t.Errorf("incremental build = %+v", st.LastBuild)
	}
	res := p.ok(t, http.MethodPost, "/api/v2/ontologies/serve/objects/People/search",
		`{"where":{"type":"containsAllTerms","field":"name","value":"renamed"}}`)
	if data := res["data"].([]any); len(data) != 1 || data[0].(map[string]any)["id"] != "42" || data[0].(map[string]any)["city"] != "Quito" {
		t.Errorf("search after the update: %v", res)
	}
	if code, out, errOut := run("status", "--url", p.base, "--token", serveAppToken); code != exitOK ||
		!regexp.MustCompile(`(?m)^People\s+idle\s+1\s+150\s`).MatchString(out) || !regexp.MustCompile(`(?m)^Plane\s+idle\s+1\s+3\s`).MatchString(out) {
		t.Errorf("indexer status: exit %d\n%s%s", code, out, errOut)
	}

	// A merge-on-read delete: blocked, the error in status, searches keep answering.
	if err := planes.Delete(ctx, iceberg.EqualTo(iceberg.Reference("id"), int64(2))); err != nil {
		t.Fatal(err)
	}
	st = p.waitStatus(t, "Plane", "blocked", func(st daemon.TypeStatus) bool { return st.State == daemon.StateBlocked })
	if e := st.LastError; e == nil || e.Code != indexer.CodeMergeOnRead || !strings.Contains(e.Message, "merge-on-read") || st.Objects != 3 ||
		st.TableSnapshotID != planes.T.CurrentSnapshot().SnapshotID || st.LagSnapshots != 1 {
		t.Errorf("blocked status = %+v", st)
	}
	if n := p.count(t, "Plane"); n != 3 {
		t.Errorf("Plane count while blocked = %v", n)
	}
	p.waitOutput(t, regexp.MustCompile(`(?m)blocked\s+Plane: .*merge-on-read`))
	code, out, errOut := run("status", "--url", p.base, "--token", serveAppToken)
	if code != exitFailed || !regexp.MustCompile(`(?m)^Plane\s+blocked\s`).MatchString(out) || !strings.Contains(out, "MERGE_ON_READ") {
		t.Errorf("indexer status while blocked: exit %d\n%s%s", code, out, errOut)
	}
	m := p.scrape(t)
	if v, _ := sample(m, daemon.MetricMORRefusals, map[string]string{"object_type": "Plane"}); v < 1 {
		t.Errorf("merge-on-read refusals = %v", v)
	}
	if v, _ := sample(m, daemon.MetricObjectTypeState, map[string]string{"object_type": "Plane", "state": "blocked"}); v != 1 {
		t.Errorf("Plane blocked gauge = %v", v)
	}

	// Compaction: it recovers by itself.
	if err := planes.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	st = p.waitStatus(t, "Plane", "recovered", daemontest.UpToDate(planes))
	if st.LastError != nil || st.Objects != 2 {
		t.Errorf("recovered status = %+v", st)
	}
	if n := p.count(t, "Plane"); n != 2 {
		t.Errorf("Plane count after recovery = %v", n)
	}
	p.waitOutput(t, regexp.MustCompile(`recovered Plane`))

	// Metrics against the builds that ran.
	peopleNow := p.status(t, "People")
	m = p.scrape(t)
	people1 := map[string]string{"object_type": "People"}
	for _, c := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{daemon.MetricBuilds, map[string]string{"object_type": "People", "kind": "full", "result": "ok"}, 1},
		{daemon.MetricBuilds, map[string]string{"object_type": "People", "kind": "incremental", "result": "ok"}, 1},
		{daemon.MetricUpserts, map[string]string{"object_type": "People", "kind": "full"}, 150},
		{daemon.MetricUpserts, map[string]string{"object_type": "People", "kind": "incremental"}, 1},
		{daemon.MetricFilesRead, map[string]string{"object_type": "People", "kind": "incremental"}, float64(peopleNow.LastBuild.FilesRead)},
		{daemon.MetricObjects, people1, 150},
		{daemon.MetricObjects, map[string]string{"object_type": "Plane"}, 2},
		{daemon.MetricGeneration, people1, 1},
		{api.MetricHTTPRequests, map[string]string{"method": "POST", "route": "/api/v2/ontologies/{ontology}/objects/{objectType}/search", "code": "200"}, 1},
	} {
		if got, ok := sample(m, c.name, c.labels); !ok || got != c.want {
			t.Errorf("%s %v = %v (present %v), want %v", c.name, c.labels, got, ok, c.want)
		}
	}
	for _, name := range []string{"go_goroutines", "process_cpu_seconds_total", api.MetricHTTPRequestDuration, daemon.MetricBuildDuration} {
		if _, ok := m[name]; !ok {
			t.Errorf("metric %s missing", name)
		}
	}

	p.stop(t)
	if unbuilt := sw.match(t, map[string]string{"People": "ns.people", "Plane": "ns.planes"}); len(unbuilt) > 0 {
		t.Errorf("not built: %v", unbuilt)
	}
}

// TestServe_reload changes the config of a running `indexer serve`: SIGHUP
// and POST /reload apply an added object type; a bad config is rejected,
// and the old one keeps serving.
func TestServe_reload(t *testing.T) {
	sw := mustServeWarehouse(t, 2, 20)
	sw.config(t, peopletest.PeopleType, "")
	p := startServe(t, sw.cfgPath)
	p.waitStatus(t, "People", "built", daemontest.UpToDate(sw.tables["ns.people"]))
	if code, _ := p.do(t, http.MethodGet, "/api/indexer/v1/status/Plane", serveAppToken, ""); code != http.StatusNotFound {
		t.Fatalf("Plane before the reload: %d", code)
	}

	// SIGHUP with an added type.
	sw.config(t, peopletest.PeopleType+peopletest.PlaneType, "")
	p.signal(t, syscall.SIGHUP)
	p.waitOutput(t, regexp.MustCompile(`config reloaded: added \[Plane\], changed \[\], removed \[\]`))
	p.waitStatus(t, "Plane", "built", daemontest.UpToDate(sw.tables["ns.planes"]))
	if n := p.count(t, "Plane"); n != 3 {
		t.Errorf("Plane count = %v", n)
	}

	// SIGHUP with a bad config: rejected, both types keep serving.
	sw.config(t, peopletest.PeopleType+peopletest.PlaneType+"  - {apiName: Ghost, table: warehouse.ns.nope}\n", "")
	p.signal(t, syscall.SIGHUP)
	p.waitOutput(t, regexp.MustCompile(`reload rejected, the old config keeps running: .*objectTypes\[2\]\.table`))
	if n := p.count(t, "People"); n != 40 {
		t.Errorf("People count after the rejected reload = %v", n)
	}
	if code, _ := p.do(t, http.MethodGet, "/api/indexer/v1/status/Ghost", serveAppToken, ""); code != http.StatusNotFound {
		t.Errorf("Ghost after the rejected reload: %d", code)
	}

	// POST /reload: admin only; a changed type is applied, a bad config is a 400.
	sw.config(t, strings.Replace(peopletest.PeopleType, "titleProperty: name", "titleProperty: city", 1)+peopletest.PlaneType, "")
	if code, raw := p.do(t, http.MethodPost, "/api/indexer/v1/reload", serveAppToken, ""); code != http.StatusForbidden {
		t.Errorf("reload as app: %d %s", code, raw)
	}
	code, raw := p.do(t, http.MethodPost, "/api/indexer/v1/reload", serveAdminToken, "")
	var res api.ReloadResult
	if err := json.Unmarshal(raw, &res); code != http.StatusOK || err != nil || strings.Join(res.Changed, ",") != "People" || len(res.Added) != 0 {
		t.Fatalf("reload: %d %s", code, raw)
	}
	p.waitStatus(t, "People", "rebuilt", func(st daemon.TypeStatus) bool {
		return daemontest.UpToDate(sw.tables["ns.people"])(st) && st.LastBuild != nil && st.LastBuild.Kind == indexer.KindFull && st.Generation == 2
	})
	obj := p.ok(t, http.MethodGet, "/api/v2/ontologies/serve/objects/People/3", "")
	if obj["__title"] != "Perth" {
		t.Errorf("title after the reload: %v", obj)
	}
	sw.config(t, peopletest.PeopleType+"  - {apiName: Plane, table: warehouse.ns.planes, properties: {x: {column: nope}}}\n", "")
	code, raw = p.do(t, http.MethodPost, "/api/indexer/v1/reload", serveAdminToken, "")
	if code != http.StatusBadRequest || !strings.Contains(string(raw), `"errorName":"InvalidConfig"`) || !strings.Contains(string(raw), "objectTypes[1]") {
		t.Errorf("bad reload: %d %s", code, raw)
	}
	if n := p.count(t, "Plane"); n != 3 {
		t.Errorf("Plane count after the rejected reload = %v", n)
	}
	p.stop(t)
}

// TestServe_sigterm stops real `indexer serve` processes with SIGTERM while
// they build (abandoning the build at once, or letting it finish within
// the stop grace), restarts them, and checks invariant 1 after each exit.
func TestServe_sigterm(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a dozen indexer serve processes; run without -short")
	}
	ctx := context.Background()
	sw := mustServeWarehouse(t, 12, 1500)
	sw.config(t, peopletest.PeopleType, "")
	people := sw.tables["ns.people"]
	types := map[string]string{"People": "ns.people"}
	building := func(st daemon.TypeStatus) bool { return st.State == daemon.StateBuilding }

	// The first build, abandoned at once.
	p := startServe(t, sw.cfgPath, "--stop-grace", "0")
	p.waitStatus(t, "People", "building", building)
	p.stop(t)
	sw.match(t, types)

	for round := 1; round <= 6; round++ {
		// Change the table, then stop during a build: a full rebuild on
		// even rounds, the incremental build of the change (or the resumed
		// build) on odd ones.
		switch round % 3 {
		case 0:
			lo := int64(round * 97)
			err := people.Overwrite(ctx, iceberg.NewAnd(iceberg.GreaterThanEqual(iceberg.Reference("id"), lo), iceberg.LessThan(iceberg.Reference("id"), lo+5)),
				peopletest.Rows(int(lo), 5, fmt.Sprintf("round%d", round)))
			if err != nil {
				t.Fatal(err)
			}
		case 1:
			if err := people.Delete(ctx, iceberg.EqualTo(iceberg.Reference("id"), int64(round*131))); err != nil {
				t.Fatal(err)
			}
		default:
			if err := people.Append(ctx, peopletest.Rows(100000+round*10, 10, "new")); err != nil {
				t.Fatal(err)
			}
		}
		grace := "0"
		if round%2 == 1 {
			grace = "10s" // the build may reach its end within the grace
		}
		p := startServe(t, sw.cfgPath, "--stop-grace", grace)
		if round%2 == 0 {
			if code, raw := p.do(t, http.MethodPost, "/api/indexer/v1/objectTypes/People/rebuild", serveAdminToken, ""); code != http.StatusAccepted {
				t.Fatalf("rebuild: %d %s", code, raw)
			}
			p.waitStatus(t, "People", "building", building)
		} else {
			// Whatever the daemon does first: the build of the change.
			p.waitStatus(t, "People", "building or done", func(st daemon.TypeStatus) bool { return building(st) || daemontest.UpToDate(people)(st) })
		}
		p.stop(t)
		sw.match(t, types) // a type that was never built yet serves nothing

	}

	// Restart: it resumes and catches up with the table.
	p = startServe(t, sw.cfgPath)
	st := p.waitStatus(t, "People", "up to date", daemontest.UpToDate(people))
	p.stop(t)
	if unbuilt := sw.match(t, types); len(unbuilt) > 0 {
		t.Fatalf("%v not built", unbuilt)
	}
	cfg, _ := config.Load(sw.cfgPath)
	ix, err := indexer.Open(ctx, cfg, indexer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if cp, _ := ix.Checkpoint("People"); cp == nil || cp.SnapshotID != people.T.CurrentSnapshot().SnapshotID || cp.Objects != st.Objects {
		t.Fatalf("checkpoint %+v, status %+v", cp, st)
	}
}

// holdRequest opens a connection and sends a search request whose body
// stops half way: the server's handler waits for the rest, and a graceful
// shutdown waits for the handler. finish sends the rest and returns the
// response.
func holdRequest(tb testing.TB, base, token string) (finish func() (*http.Response, error)) {
	tb.Helper()
	u, _ := url.Parse(base)
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { conn.Close() })
	body := `{"where":{"type":"eq","field":"city","value":"Oslo"},"pageSize":2}`
	half := len(body) / 2
	fmt.Fprintf(conn, "POST /api/v2/ontologies/serve/objects/People/search HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n"+
		"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", u.Host, token, len(body), body[:half])
	return func() (*http.Response, error) {
		if _, err := io.WriteString(conn, body[half:]); err != nil {
			return nil, err
		}
		return http.ReadResponse(bufio.NewReader(conn), nil)
	}
}

// TestServe_shutdown: a graceful shutdown drains the running requests; a
// second signal exits at once.
func TestServe_shutdown(t *testing.T) {
	sw := mustServeWarehouse(t, 2, 20)
	// Shutdown may wait for requests for long: only the second signal ends it.
	sw.config(t, peopletest.PeopleType, "server: {shutdownTimeout: 10m, requestTimeout: 10m}\n")
	shuttingDown := regexp.MustCompile(`indexer serve: shutting down`)

	t.Run("drain", func(t *testing.T) {
		p := startServe(t, sw.cfgPath)
		p.waitStatus(t, "People", "built", daemontest.UpToDate(sw.tables["ns.people"]))
		finish := holdRequest(t, p.base, serveAppToken)
		// The server has the request once it counts it in flight.
		for {
			if v, _ := sample(p.scrape(t), api.MetricHTTPInFlight, nil); v >= 2 {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		p.signal(t, syscall.SIGTERM)
		p.waitOutput(t, shuttingDown)
		select {
		case <-p.done:
			t.Fatalf("exited before the running request finished:\n%s", p.stderr.String())
		default:
		}
		resp, err := finish()
		if err != nil {
			t.Fatal(err)
		}
		var res map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&res); err != nil || resp.StatusCode != http.StatusOK || res["totalCount"] != "10" {
			t.Fatalf("drained request: %d %v %v", resp.StatusCode, res, err)
		}
		resp.Body.Close()
		if code := p.wait(t); code != exitOK || !strings.Contains(p.stderr.String(), "indexer serve: stopped") {
			t.Fatalf("exit %d:\n%s", code, p.stderr.String())
		}
	})

	t.Run("second signal", func(t *testing.T) {
		p := startServe(t, sw.cfgPath)
		p.waitStatus(t, "People", "built", daemontest.UpToDate(sw.tables["ns.people"]))
		holdRequest(t, p.base, serveAppToken)
		for {
			if v, _ := sample(p.scrape(t), api.MetricHTTPInFlight, nil); v >= 2 {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		p.signal(t, syscall.SIGTERM)
		p.waitOutput(t, shuttingDown)
		p.signal(t, syscall.SIGINT)
		if code := p.wait(t); code != exitAborted {
			t.Fatalf("exit %d after the second signal, want %d:\n%s", code, exitAborted, p.stderr.String())
		}
		out := p.stderr.String()
		if !strings.Contains(out, "second signal") || strings.Contains(out, "indexer serve: stopped") {
			t.Fatalf("output:\n%s", out)
		}
	})
}
