package daemon_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/ontoindex/ontoindex/cowguard"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/indexer/daemon"
	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/internal/testkit/daemontest"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
	"github.com/ontoindex/ontoindex/internal/testkit/indexertest"
	"github.com/ontoindex/ontoindex/internal/testkit/peopletest"
	"github.com/ontoindex/ontoindex/objects"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// waitTimeout bounds every wait for the daemon.
const waitTimeout = daemontest.Timeout

// daemonConfig is a test config that polls and retries quickly.
func daemonConfig(tb testing.TB, w *icebergtest.Warehouse, specs ...objects.TypeSpec) *config.Config {
	tb.Helper()
	cfg := indexertest.Config(tb, w, specs...)
	cfg.Daemon = config.Daemon{PollInterval: 20 * time.Millisecond, RetryBackoff: 20 * time.Millisecond, MaxRetryBackoff: 200 * time.Millisecond}
	return cfg
}

// runningDaemon is a daemon whose Run goroutine the test owns.
type runningDaemon struct {
	*daemon.Daemon
	cancel context.CancelFunc
	done   chan error
}

// mustRunDaemon starts a daemon over ix; it is stopped (and waited for)
// when the test ends, before ix is closed.
func mustRunDaemon(tb testing.TB, ix *indexer.Indexer, opts daemon.Options) *runningDaemon {
	tb.Helper()
	d, err := daemon.New(ix, opts)
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	rd := &runningDaemon{Daemon: d, cancel: cancel, done: make(chan error, 1)}
	go func() { rd.done <- d.Run(ctx) }()
	tb.Cleanup(func() { _ = rd.stop(tb) })
	return rd
}

// stop cancels Run and waits for it to return.
func (rd *runningDaemon) stop(tb testing.TB) error {
	tb.Helper()
	rd.cancel()
	select {
	case err, ok := <-rd.done:
		if ok {
			close(rd.done)
		}
		return err
	case <-time.After(waitTimeout):
		tb.Fatal("daemon did not stop")
		return nil
	}
}

// getName returns the name property of the object with id, and whether
// the object exists.
func objectName(tb testing.TB, ix *indexer.Indexer, name string, id int) (string, bool) {
	tb.Helper()
	v, err := ix.View(name)
	if err != nil {
		tb.Fatal(err)
	}
	defer v.Release()
	key, err := v.Type().ParseKey(strconv.Itoa(id))
	if err != nil {
		tb.Fatal(err)
	}
	o, err := v.Get(key)
	if err != nil {
		tb.Fatal(err)
	}
	if o == nil {
		return "", false
	}
	return fmt.Sprint(o.Values[v.Type().PropertyIndex("name")]), true
}

// searchIDs returns the documents matching a text query on name.
func searchName(tb testing.TB, ix *indexer.Indexer, name, text string) []string {
	tb.Helper()
	v, err := ix.View(name)
	if err != nil {
		tb.Fatal(err)
	}
	defer v.Release()
	p, err := v.Search(context.Background(), &query.Search{Filter: query.Text(query.OpAnyTerm, "name", text), PageSize: 10_000})
	if err != nil {
		tb.Fatal(err)
	}
	var ids []string
	for j := range p.Len() {
		ids = append(ids, objects.DocID(p.Key(j)))
	}
	return ids
}

func objectDocID(tb testing.TB, ix *indexer.Indexer, name string, id int) string {
	tb.Helper()
	v, err := ix.View(name)
	if err != nil {
		tb.Fatal(err)
	}
	defer v.Release()
	key, err := v.Type().ParseKey(strconv.Itoa(id))
	if err != nil {
		tb.Fatal(err)
	}
	return objects.DocID(key)
}

func countObjects(tb testing.TB, ix *indexer.Indexer, name string) int64 {
	tb.Helper()
	v, err := ix.View(name)
	if err != nil {
		tb.Fatal(err)
	}
	defer v.Release()
	return v.Count()
}

// metricValue gathers reg and returns the value of the series of name with
// exactly the given labels (0 when absent).
func metricValue(tb testing.TB, reg *prometheus.Registry, name string, labels map[string]string) float64 {
	tb.Helper()
	m := findSeries(tb, reg, name, labels)
	switch {
	case m == nil:
	case m.Counter != nil:
		return m.GetCounter().GetValue()
	case m.Gauge != nil:
		return m.GetGauge().GetValue()
	case m.Histogram != nil:
		return float64(m.GetHistogram().GetSampleCount())
	case m.Summary != nil:
		return float64(m.GetSummary().GetSampleCount())
	}
	return 0
}

// findSeries gathers reg and returns the series of name with exactly the
// given labels, nil when there is none.
func findSeries(tb testing.TB, reg *prometheus.Registry, name string, labels map[string]string) *dto.Metric {
	tb.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		tb.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			if sameLabels(m.GetLabel(), labels) {
				return m
			}
		}
	}
	return nil
}

func sameLabels(got []*dto.LabelPair, want map[string]string) bool {
	if len(got) != len(want) {
		return false
	}
	for _, l := range got {
		if v, ok := want[l.GetName()]; !ok || v != l.GetValue() {
			return false
		}
	}
	return true
}

func snapshotAddedFiles(tbl *icebergtest.Table) int {
	n, _ := strconv.Atoi(tbl.T.CurrentSnapshot().Summary.Properties["added-data-files"])
	return n
}

// TestDaemon_Run: the daemon builds a new type, then picks up copy-on-write
// commits made by another writer; the status and the metrics match the
// builds.
func TestDaemon_Run(t *testing.T) {
	ctx := context.Background()
	w := icebergtest.MustWarehouse(t)
	tbl := peopletest.MustPeople(t, w, "ns.people", nil, 3, 5)
	cfg := daemonConfig(t, w, objects.TypeSpec{APIName: "Person", Table: "warehouse.ns.people"})
	ix := indexertest.Open(t, cfg)
	reg := prometheus.NewRegistry()
	d := mustRunDaemon(t, ix, daemon.Options{Registerer: reg})

	first := tbl.T.CurrentSnapshot().SnapshotID
	st := daemontest.WaitStatus(t, d.Daemon, "Person", "the first build", daemontest.UpToDate(tbl))
	full := st.LastBuild
	t.Run("first build", func(t *testing.T) {
		if st.Table != "warehouse.ns.people" || st.Generation != 1 || st.Objects != 15 || st.LagSnapshots != 0 || st.LagSeconds != 0 ||
			st.LastError != nil || st.InvalidRows.Count != 0 || st.InvalidRows.Samples == nil || st.PolledAt.IsZero() {
			t.Fatalf("status %+v", st)
		}
		lb := st.LastBuild
		if lb == nil || lb.Kind != indexer.KindFull || lb.From != 0 || lb.To != first || lb.FilesRead != 3 || lb.RowsRead != 15 ||
			lb.Upserts != 15 || lb.Deletes != 0 || lb.BytesRead <= 0 || lb.FinishedAt.IsZero() || lb.Generation != 1 {
			t.Fatalf("lastBuild %+v", lb)
		}
		if got := d.NotReady(); len(got) != 0 {
			t.Fatalf("not ready: %v", got)
		}
	})

	other := peopletest.MustOtherWriter(t, w, "ns.people")
	var incBytes int64
	t.Run("cow update", func(t *testing.T) {
		if err := other.Overwrite(ctx, iceberg.EqualTo(iceberg.Reference("id"), int64(7)),
			[]icebergtest.Row{{"id": 7, "name": "Grace Hopper", "city": "Arlington"}}); err != nil {
			t.Fatal(err)
		}
		second := other.T.CurrentSnapshot().SnapshotID
		st := daemontest.WaitStatus(t, d.Daemon, "Person", "the update", daemontest.UpToDate(other))
		lb := st.LastBuild
		if lb.Kind != indexer.KindIncremental || lb.From != first || lb.To != second || lb.FilesRead != snapshotAddedFiles(other) ||
			lb.Upserts != 1 || lb.Deletes != 0 || lb.Generation != 1 || st.Objects != 15 {
			t.Fatalf("lastBuild %+v (commit added %d files), objects %d", lb, snapshotAddedFiles(other), st.Objects)
		}
		incBytes += lb.BytesRead
		if name, ok := objectName(t, ix, "Person", 7); !ok || name != "Grace Hopper" {
			t.Fatalf("object 7 name = %q, %v", name, ok)
		}
		if got, want := searchName(t, ix, "Person", "hopper"), []string{objectDocID(t, ix, "Person", 7)}; !slices.Equal(got, want) {
			t.Fatalf("search hopper = %v, want %v", got, want)
		}
	})
	t.Run("cow delete", func(t *testing.T) {
		if err := other.Delete(ctx, iceberg.EqualTo(iceberg.Reference("id"), int64(12))); err != nil {
			t.Fatal(err)
		}
		st := daemontest.WaitStatus(t, d.Daemon, "Person", "the delete", daemontest.UpToDate(other))
		if lb := st.LastBuild; lb.Kind != indexer.KindIncremental || lb.Deletes != 1 || lb.Upserts != 0 || st.Objects != 14 {
			t.Fatalf("lastBuild %+v, objects %d", lb, st.Objects)
		}
		incBytes += st.LastBuild.BytesRead
		if _, ok := objectName(t, ix, "Person", 12); ok {
			t.Fatal("deleted object 12 is still there")
		}
		if got := searchName(t, ix, "Person", "12"); len(got) != 0 {
			t.Fatalf("search finds deleted object 12: %v", got)
		}
		if n := countObjects(t, ix, "Person"); n != 14 {
			t.Fatalf("count = %d", n)
		}
		indexertest.MatchTable(t, ix, "Person", other)
	})
	t.Run("metrics", func(t *testing.T) {
		typ := func(kv ...string) map[string]string {
			m := map[string]string{"object_type": "Person"}
			for i := 0; i < len(kv); i += 2 {
				m[kv[i]] = kv[i+1]
			}
			return m
		}
		tests := []struct {
			name   string
			labels map[string]string
			want   float64
		}{
			{daemon.MetricBuilds, typ("kind", "full", "result", "ok"), 1},
			{daemon.MetricBuilds, typ("kind", "incremental", "result", "ok"), 2},
			{daemon.MetricBuilds, typ("kind", "none", "result", "ok"), 0},
			{daemon.MetricBuildDuration, typ("kind", "full"), 1},
			{daemon.MetricBuildDuration, typ("kind", "incremental"), 2},
			{daemon.MetricFilesRead, typ("kind", "full"), 3},
			{daemon.MetricBytesRead, typ("kind", "full"), float64(full.BytesRead)},
			{daemon.MetricBytesRead, typ("kind", "incremental"), float64(incBytes)},
			{daemon.MetricRowsRead, typ("kind", "full"), 15},
			{daemon.MetricUpserts, typ("kind", "full"), 15},
			{daemon.MetricUpserts, typ("kind", "incremental"), 1},
			{daemon.MetricDeletes, typ("kind", "incremental"), 1},
			{daemon.MetricSkippedRows, typ("kind", "full"), 0},
			{daemon.MetricMORRefusals, typ(), 0},
			{daemon.MetricLagSeconds, typ(), 0},
			{daemon.MetricLagSnapshots, typ(), 0},
			{daemon.MetricObjects, typ(), 14},
			{daemon.MetricGeneration, typ(), 1},
			{daemon.MetricObjectTypeState, typ("state", "idle"), 1},
			{daemon.MetricObjectTypeState, typ("state", "failing"), 0},
			{daemon.MetricBuildsRunning, nil, 0},
		}
		for _, tt := range tests {
			if got := metricValue(t, reg, tt.name, tt.labels); got != tt.want {
				t.Errorf("%s%v = %v, want %v", tt.name, tt.labels, got, tt.want)
			}
		}
	})
}

// TestDaemon_MergeOnRead: a merge-on-read commit blocks the type, with the
// error in status, while reads keep answering from the last good state;
// the daemon does not retry until the table changes, and compaction makes
// it recover by itself.
func TestDaemon_MergeOnRead(t *testing.T) {
	ctx := context.Background()
	w := icebergtest.MustWarehouse(t)
	tbl := peopletest.MustPeople(t, w, "ns.mor", peopletest.MergeOnRead(), 2, 5)
	cfg := daemonConfig(t, w, objects.TypeSpec{APIName: "Person", Table: "warehouse.ns.mor"})
	ix := indexertest.Open(t, cfg)
	reg := prometheus.NewRegistry()
	d := mustRunDaemon(t, ix, daemon.Options{Registerer: reg})
	first := tbl.T.CurrentSnapshot().SnapshotID
	daemontest.WaitStatus(t, d.Daemon, "Person", "the first build", daemontest.UpToDate(tbl))

	other := peopletest.MustOtherWriter(t, w, "ns.mor")
	if err := other.Delete(ctx, iceberg.EqualTo(iceberg.Reference("id"), int64(3))); err != nil {
		t.Fatal(err)
	}
	morSnap := other.T.CurrentSnapshot().SnapshotID
	st := daemontest.WaitStatus(t, d.Daemon, "Person", "blocked", func(st daemon.TypeStatus) bool { return st.State == daemon.StateBlocked })
	t.Run("blocked", func(t *testing.T) {
		if st.LastError == nil || st.LastError.Code != indexer.CodeMergeOnRead || st.LastError.At.IsZero() ||
			!strings.Contains(st.LastError.Message, "merge-on-read") || !strings.Contains(st.LastError.Message, "copy-on-write") {
			t.Fatalf("lastError %+v", st.LastError)
		}
		if st.CheckpointSnapshotID != first || st.TableSnapshotID != morSnap || st.LagSnapshots != 1 || st.LagSeconds < 0 || st.Objects != 10 {
			t.Fatalf("status %+v", st)
		}
		// Reads answer from the last good state.
		if name, ok := objectName(t, ix, "Person", 3); !ok || name != "person 3" {
			t.Fatalf("object 3 = %q, %v", name, ok)
		}
		if n := countObjects(t, ix, "Person"); n != 10 {
			t.Fatalf("count = %d", n)
		}
		if r, err := ix.Check(ctx, "Person"); err != nil || r.Verdict != cowguard.VerdictFail || r.LiveDeleteFiles.Position != 1 {
			t.Fatalf("check = %+v, %v", r, err)
		}
	})
	t.Run("no blind retries", func(t *testing.T) {
		// Let the loop poll several more times on the same snapshot.
		polls := map[time.Time]bool{}
		daemontest.WaitStatus(t, d.Daemon, "Person", "five more polls", func(st daemon.TypeStatus) bool {
			if st.State != daemon.StateBlocked {
				t.Fatalf("state %s while the table did not change", st.State)
			}
			polls[st.PolledAt] = true
			return len(polls) > 5
		})
		labels := map[string]string{"object_type": "Person"}
		if got := metricValue(t, reg, daemon.MetricMORRefusals, labels); got != 1 {
			t.Fatalf("refusals = %v, want 1", got)
		}
		if got := metricValue(t, reg, daemon.MetricBuilds, map[string]string{"object_type": "Person", "kind": "incremental", "result": indexer.CodeMergeOnRead}); got != 1 {
			t.Fatalf("refused builds = %v, want 1", got)
		}
		if got := metricValue(t, reg, daemon.MetricObjectTypeState, map[string]string{"object_type": "Person", "state": "blocked"}); got != 1 {
			t.Fatalf("blocked state gauge = %v", got)
		}
		if got := metricValue(t, reg, daemon.MetricLagSnapshots, labels); got != 1 {
			t.Fatalf("lag snapshots gauge = %v", got)
		}
	})
	t.Run("recovers after compaction", func(t *testing.T) {
		if err := other.Compact(ctx); err != nil {
			t.Fatal(err)
		}
		st := daemontest.WaitStatus(t, d.Daemon, "Person", "recovery", daemontest.UpToDate(other))
		if st.LastError != nil || st.Objects != 9 || st.LastBuild.Deletes != 1 {
			t.Fatalf("status %+v, lastBuild %+v", st, st.LastBuild)
		}
		if _, ok := objectName(t, ix, "Person", 3); ok {
			t.Fatal("object 3 is still there")
		}
		indexertest.MatchTable(t, ix, "Person", other)
	})
}

// TestDaemon_Rebuild: an operator rebuild under concurrent read load swaps
// in a new generation, then incremental builds follow under the same load;
// no read fails or sees a partial index.
func TestDaemon_Rebuild(t *testing.T) {
	w := icebergtest.MustWarehouse(t)
	const rows = 3000
	tbl := peopletest.MustPeople(t, w, "ns.people", nil, 6, rows/6)
	cfg := daemonConfig(t, w, objects.TypeSpec{APIName: "Person", Table: "warehouse.ns.people"})
	ix := indexertest.Open(t, cfg)
	d := mustRunDaemon(t, ix, daemon.Options{})
	st := daemontest.WaitStatus(t, d.Daemon, "Person", "the first build", daemontest.UpToDate(tbl))
	if st.Generation != 1 {
		t.Fatalf("generation %d", st.Generation)
	}

	var (
		stop     = make(chan struct{})
		wg       sync.WaitGroup
		mu       sync.Mutex
		errs     []string
		reads    atomic.Int64
		seenNew  atomic.Bool
		seenGens sync.Map
	)
	fail := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		if len(errs) < 20 {
			errs = append(errs, fmt.Sprintf(format, args...))
		}
	}
	read := func(r *rand.Rand) {
		v, err := ix.View("Person")
		if err != nil {
			fail("view: %v", err)
			return
		}
		defer v.Release()
		seenGens.Store(v.Generation(), true)
		if v.Generation() == 2 {
			seenNew.Store(true)
		}
		if n := v.Count(); n != rows {
			fail("generation %d: count = %d", v.Generation(), n)
		}
		res, err := v.Search(context.Background(), &query.Search{PageSize: 1})
		if err != nil || res.Total != rows {
			fail("generation %d: search total = %v, %v", v.Generation(), res, err)
		}
		if res, err := v.Search(context.Background(), &query.Search{Filter: query.Text(query.OpAnyTerm, "name", "person"), PageSize: 1}); err != nil || res.Total != rows {
			fail("generation %d: text search total = %v, %v", v.Generation(), res, err)
		}
		id := r.IntN(rows)
		key, err := v.Type().ParseKey(strconv.Itoa(id))
		if err != nil {
			fail("key: %v", err)
			return
		}
		o, err := v.Get(key)
		if err != nil || o == nil || fmt.Sprint(o.Values[v.Type().PropertyIndex("name")]) != fmt.Sprintf("person %d", id) {
			fail("generation %d: get %d = %v, %v", v.Generation(), id, o, err)
		}
		reads.Add(1)
	}
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(i), 1))
			for {
				select {
				case <-stop:
					return
				default:
				}
				read(r)
			}
		}()
	}
	if err := d.Rebuild("Person"); err != nil {
		t.Fatal(err)
	}
	if err := d.Rebuild("Nobody"); !errors.Is(err, indexer.ErrUnknownType) {
		t.Fatalf("rebuild of an unknown type: %v", err)
	}
	st = daemontest.WaitStatus(t, d.Daemon, "Person", "the new generation", func(st daemon.TypeStatus) bool {
		return st.Generation == 2 && st.State == daemon.StateIdle
	})
	deadline := time.Now().Add(waitTimeout)
	for !seenNew.Load() && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	// Incremental builds under the same load: copy-on-write updates of
	// another column.
	other := peopletest.MustOtherWriter(t, w, "ns.people")
	for i := range 3 {
		id := i * 997
		if err := other.Overwrite(context.Background(), iceberg.EqualTo(iceberg.Reference("id"), int64(id)),
			[]icebergtest.Row{{"id": id, "name": fmt.Sprintf("person %d", id), "city": "Reykjavik"}}); err != nil {
			t.Fatal(err)
		}
		daemontest.WaitStatus(t, d.Daemon, "Person", "the update", daemontest.UpToDate(other))
	}
	close(stop)
	wg.Wait()
	v, err := ix.View("Person")
	if err != nil {
		t.Fatal(err)
	}
	res, err := v.Search(context.Background(), &query.Search{Filter: query.Text(query.OpAnyTerm, "city", "reykjavik"), PageSize: 10})
	v.Release()
	if err != nil || res.Total != 3 {
		t.Fatalf("search city reykjavik = %v, %v", res, err)
	}

	if len(errs) > 0 {
		t.Fatalf("%d reads, errors:\n%s", reads.Load(), strings.Join(errs, "\n"))
	}
	if _, ok := seenGens.Load(1); !ok {
		t.Error("no read saw generation 1")
	}
	if !seenNew.Load() {
		t.Error("no read saw generation 2")
	}
	if lb := st.LastBuild; lb.Kind != indexer.KindFull || lb.Generation != 2 || lb.Upserts != rows || st.Objects != rows || st.CheckpointSnapshotID != tbl.T.CurrentSnapshot().SnapshotID {
		t.Fatalf("status %+v, lastBuild %+v", st, st.LastBuild)
	}
	// The old generation is removed once its last reader is gone.
	old := filepath.Join(cfg.Path(cfg.DataDir), "types", "Person", "gen-1")
	if _, err := os.Stat(old); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("old generation %s: %v", old, err)
	}
	t.Logf("%d reads during the rebuild", reads.Load())
}

// TestDaemon_Reload: a reload adds, changes and removes object types
// without a restart; bad configs are rejected and the old one stays.
func TestDaemon_Reload(t *testing.T) {
	ctx := context.Background()
	w := icebergtest.MustWarehouse(t)
	ta := peopletest.MustPeople(t, w, "ns.a", nil, 2, 5)
	tb := peopletest.MustPeople(t, w, "ns.b", nil, 1, 4)
	tc := peopletest.MustPeople(t, w, "ns.c", nil, 1, 3)
	specA := objects.TypeSpec{APIName: "A", Table: "warehouse.ns.a"}
	specB := objects.TypeSpec{APIName: "B", Table: "warehouse.ns.b"}
	specC := objects.TypeSpec{APIName: "C", Table: "warehouse.ns.c"}
	cfg := daemonConfig(t, w, specA, specB)
	ix := indexertest.Open(t, cfg)
	reg := prometheus.NewRegistry()
	d := mustRunDaemon(t, ix, daemon.Options{Registerer: reg})
	daemontest.WaitStatus(t, d.Daemon, "A", "the first build", daemontest.UpToDate(ta))
	daemontest.WaitStatus(t, d.Daemon, "B", "the first build", daemontest.UpToDate(tb))

	// with returns a copy of cfg with other object types.
	with := func(specs ...objects.TypeSpec) *config.Config {
		c := *cfg
		c.ObjectTypes = specs
		return &c
	}
	specA2 := specA
	specA2.Properties = map[string]objects.PropertySpec{"id": {Column: "id"}, "name": {Column: "name", Search: objects.SearchKeyword}}

	t.Run("rejected", func(t *testing.T) {
		badColumn := specA
		badColumn.Properties = map[string]objects.PropertySpec{"id": {Column: "id"}, "nope": {Column: "no_such_column"}}
		badTable := specC
		badTable.Table = "warehouse.ns.missing"
		otherDir := with(specA)
		otherDir.DataDir = t.TempDir()
		tests := []struct {
			name string
			cfg  *config.Config
			want string
		}{
			{"unknown column", with(badColumn, specB), "no_such_column"},
			{"missing table", with(specA, specB, badTable), "objectTypes[2].table"},
			{"duplicate type", with(specA, specA), "already used"},
			{"no types", with(), "objectTypes"},
			{"data dir", otherDir, "dataDir"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				ch, err := d.Reload(ctx, tt.cfg)
				if !errors.Is(err, indexer.ErrInvalidConfig) || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("reload = %+v, %v; want ErrInvalidConfig naming %q", ch, err, tt.want)
				}
				if got := ix.Types(); !slices.Equal(got, []string{"A", "B"}) {
					t.Fatalf("types after a rejected reload: %v", got)
				}
				if ix.Config() != cfg {
					t.Fatal("the config changed")
				}
			})
		}
		// The old config keeps working.
		other := peopletest.MustOtherWriter(t, w, "ns.b")
		if err := other.Append(ctx, []icebergtest.Row{peopletest.Person(100)}); err != nil {
			t.Fatal(err)
		}
		daemontest.WaitStatus(t, d.Daemon, "B", "the append", daemontest.UpToDate(other))
		if _, ok := objectName(t, ix, "B", 100); !ok {
			t.Fatal("object 100 missing")
		}
	})

	t.Run("applied", func(t *testing.T) {
		next := with(specA2, specC)
		ch, err := d.Reload(ctx, next)
		if err != nil {
			t.Fatal(err)
		}
		want := indexer.ConfigChange{Added: []string{"C"}, Changed: []string{"A"}, Removed: []string{"B"}}
		if !slices.Equal(ch.Added, want.Added) || !slices.Equal(ch.Changed, want.Changed) || !slices.Equal(ch.Removed, want.Removed) || len(ch.Unchanged) != 0 {
			t.Fatalf("change = %+v, want %+v", ch, want)
		}
		if got := ix.Types(); !slices.Equal(got, []string{"A", "C"}) {
			t.Fatalf("types = %v", got)
		}
		// A's mapping changed: a full build into a new generation.
		st := daemontest.WaitStatus(t, d.Daemon, "A", "the rebuild", func(st daemon.TypeStatus) bool {
			return st.Generation == 2 && st.State == daemon.StateIdle
		})
		if st.LastBuild.Kind != indexer.KindFull || st.Objects != 10 {
			t.Fatalf("A: status %+v, lastBuild %+v", st, st.LastBuild)
		}
		v, err := ix.View("A")
		if err != nil {
			t.Fatal(err)
		}
		if n := len(v.Type().Properties); n != 2 {
			t.Errorf("A has %d properties, want 2", n)
		}
		v.Release()
		daemontest.WaitStatus(t, d.Daemon, "C", "the first build", daemontest.UpToDate(tc))
		if _, err := d.StatusOf("B"); !errors.Is(err, indexer.ErrUnknownType) {
			t.Fatalf("status of removed B: %v", err)
		}
		if _, err := ix.View("B"); !errors.Is(err, indexer.ErrUnknownType) {
			t.Fatalf("view of removed B: %v", err)
		}
		var names []string
		for _, st := range d.Status() {
			names = append(names, st.ObjectType)
		}
		if !slices.Equal(names, []string{"A", "C"}) {
			t.Fatalf("status lists %v", names)
		}
	})

	t.Run("re-added type resumes", func(t *testing.T) {
		if _, err := d.Reload(ctx, with(specA2, specC, specB)); err != nil {
			t.Fatal(err)
		}
		other := peopletest.MustOtherWriter(t, w, "ns.b")
		st := daemontest.WaitStatus(t, d.Daemon, "B", "resume", daemontest.UpToDate(other))
		if st.Generation != 1 || st.Objects != 5 {
			t.Fatalf("B: status %+v", st)
		}
		if got := metricValue(t, reg, daemon.MetricBuilds, map[string]string{"object_type": "B", "kind": "full", "result": "ok"}); got != 0 {
			t.Fatalf("B was rebuilt in full %v times after re-adding", got)
		}
		indexertest.MatchTable(t, ix, "B", other)
	})

	t.Run("new catalog", func(t *testing.T) {
		w2 := icebergtest.MustWarehouse(t)
		td := peopletest.MustPeople(t, w2, "ns.d", nil, 1, 2)
		next := with(specA2, specC, specB, objects.TypeSpec{APIName: "D", Table: "second.ns.d"})
		next.Catalogs = maps.Clone(cfg.Catalogs)
		next.Catalogs["second"] = config.Catalog{Type: "hadoop", Properties: map[string]string{"warehouse": w2.Dir}}
		ch, err := d.Reload(ctx, next)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(ch.Added, []string{"D"}) || len(ch.Changed) != 0 || len(ch.Removed) != 0 || !slices.Equal(ch.Unchanged, []string{"A", "C", "B"}) {
			t.Fatalf("change %+v", ch)
		}
		if st := daemontest.WaitStatus(t, d.Daemon, "D", "the first build", daemontest.UpToDate(td)); st.Objects != 2 {
			t.Fatalf("D: status %+v", st)
		}
	})

	t.Run("metrics", func(t *testing.T) {
		if got := metricValue(t, reg, daemon.MetricReloads, map[string]string{"result": "ok"}); got != 3 {
			t.Errorf("ok reloads = %v", got)
		}
		if got := metricValue(t, reg, daemon.MetricReloads, map[string]string{"result": "rejected"}); got != 5 {
			t.Errorf("rejected reloads = %v", got)
		}
	})
}

// TestDaemon_Backoff: a type whose table cannot be loaded is failing and
// retried with backoff, and recovers by itself once the table exists.
func TestDaemon_Backoff(t *testing.T) {
	w := icebergtest.MustWarehouse(t)
	peopletest.MustPeople(t, w, "ns.other", nil, 1, 1) // creates the namespace
	cfg := daemonConfig(t, w, objects.TypeSpec{APIName: "Late", Table: "warehouse.ns.late"})
	ix := indexertest.Open(t, cfg)
	reg := prometheus.NewRegistry()
	d := mustRunDaemon(t, ix, daemon.Options{Registerer: reg})

	st := daemontest.WaitStatus(t, d.Daemon, "Late", "failing", func(st daemon.TypeStatus) bool { return st.State == daemon.StateFailing })
	if st.LastError == nil || st.LastError.Code != indexer.CodeTableNotAvailable || st.NextRetryAt.IsZero() || st.Generation != 0 {
		t.Fatalf("status %+v, lastError %+v", st, st.LastError)
	}
	if got := d.NotReady(); !slices.Equal(got, []string{"Late"}) {
		t.Fatalf("not ready = %v", got)
	}
	// Retried: several failed polls.
	deadline := time.Now().Add(waitTimeout)
	for metricValue(t, reg, daemon.MetricPollErrors, map[string]string{"object_type": "Late"}) < 3 {
		if time.Now().After(deadline) {
			t.Fatal("no retries")
		}
		time.Sleep(10 * time.Millisecond)
	}
	tbl := peopletest.MustPeople(t, w, "ns.late", nil, 1, 6)
	st = daemontest.WaitStatus(t, d.Daemon, "Late", "recovery", daemontest.UpToDate(tbl))
	if st.LastError != nil || st.Objects != 6 || !st.NextRetryAt.IsZero() {
		t.Fatalf("status %+v", st)
	}
	if got := d.NotReady(); len(got) != 0 {
		t.Fatalf("not ready = %v", got)
	}
}

// TestDaemon_Stop: cancelling Run during a full build stops every loop;
// without a grace period the build is abandoned and resumed after a
// restart, with one the build completes first. Either way the index ends
// up equal to the table.
func TestDaemon_Stop(t *testing.T) {
	tests := []struct {
		name      string
		grace     time.Duration
		wantBuilt bool
	}{
		{"abandon", 0, false},
		{"grace", waitTimeout, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := icebergtest.MustWarehouse(t)
			tbl := peopletest.MustPeople(t, w, "ns.people", nil, 8, 500)
			cfg := daemonConfig(t, w, objects.TypeSpec{APIName: "Person", Table: "warehouse.ns.people"})
			cfg.Build.BatchRows, cfg.Build.ChunkRows = 100, 500

			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var once sync.Once
			ix, err := indexer.Open(ctx, cfg, indexer.Options{Progress: func(p indexer.Progress) {
				if p.Kind == indexer.KindFull && p.Rows > 0 {
					once.Do(cancel)
				}
			}})
			if err != nil {
				t.Fatal(err)
			}
			d, err := daemon.New(ix, daemon.Options{StopGrace: tt.grace})
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- d.Run(ctx) }()
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("run: %v", err)
				}
			case <-time.After(waitTimeout):
				t.Fatal("run did not return")
			}
			cp, err := ix.Checkpoint("Person")
			if err != nil {
				t.Fatal(err)
			}
			if built := cp != nil; built != tt.wantBuilt {
				t.Fatalf("built when Run returned = %v, want %v", built, tt.wantBuilt)
			}
			if err := ix.Close(); err != nil {
				t.Fatal(err)
			}

			ix = indexertest.Open(t, cfg)
			rd := mustRunDaemon(t, ix, daemon.Options{})
			st := daemontest.WaitStatus(t, rd.Daemon, "Person", "the build after the restart", daemontest.UpToDate(tbl))
			if st.Objects != 4000 {
				t.Fatalf("status %+v", st)
			}
			indexertest.MatchTable(t, ix, "Person", tbl)
		})
	}
}

// TestDaemon_MaxConcurrentBuilds: with maxConcurrentBuilds 1, the full
// builds of three new types run one at a time.
func TestDaemon_MaxConcurrentBuilds(t *testing.T) {
	w := icebergtest.MustWarehouse(t)
	var specs []objects.TypeSpec
	var tables []*icebergtest.Table
	for _, name := range []string{"A", "B", "C"} {
		tables = append(tables, peopletest.MustPeople(t, w, "ns."+strings.ToLower(name), nil, 4, 500))
		specs = append(specs, objects.TypeSpec{APIName: name, Table: "warehouse.ns." + strings.ToLower(name)})
	}
	cfg := daemonConfig(t, w, specs...)
	cfg.Daemon.MaxConcurrentBuilds = 1
	cfg.Build.BatchRows = 100

	var (
		running atomic.Pointer[daemon.Daemon]
		mu      sync.Mutex
		most    int
		samples int
	)
	ix, err := indexer.Open(context.Background(), cfg, indexer.Options{Progress: func(indexer.Progress) {
		d := running.Load()
		if d == nil {
			return
		}
		n := 0
		for _, st := range d.Status() {
			if st.State == daemon.StateBuilding {
				n++
			}
		}
		mu.Lock()
		most, samples = max(most, n), samples+1
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ix.Close() })
	d, err := daemon.New(ix, daemon.Options{})
	if err != nil {
		t.Fatal(err)
	}
	running.Store(d)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	for i, spec := range specs {
		daemontest.WaitStatus(t, d, spec.APIName, "the first build", daemontest.UpToDate(tables[i]))
	}
	mu.Lock()
	defer mu.Unlock()
	if most != 1 || samples < 3 {
		t.Fatalf("at most %d builds at once over %d samples, want 1", most, samples)
	}
}

// TestDaemon_InvalidRows: rows skipped under onInvalidRow: skip show in
// status with samples.
func TestDaemon_InvalidRows(t *testing.T) {
	ctx := context.Background()
	w := icebergtest.MustWarehouse(t)
	sc := iceberg.NewSchema(1,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64},
		iceberg.NestedField{ID: 2, Name: "name", Type: iceberg.PrimitiveTypes.String})
	tbl, err := w.CreateTable(ctx, "ns.loose", sc, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := tbl.Append(ctx, []icebergtest.Row{{"id": 1, "name": "one"}, {"id": nil, "name": "nobody"}, {"id": 3, "name": "three"}}); err != nil {
		t.Fatal(err)
	}
	cfg := daemonConfig(t, w, objects.TypeSpec{APIName: "Loose", Table: "warehouse.ns.loose", PrimaryKey: []string{"id"}})
	ix := indexertest.Open(t, cfg)
	d := mustRunDaemon(t, ix, daemon.Options{})
	st := daemontest.WaitStatus(t, d.Daemon, "Loose", "the first build", daemontest.UpToDate(tbl))
	if st.Objects != 2 || st.InvalidRows.Count != 1 || len(st.InvalidRows.Samples) != 1 || st.LastBuild.SkippedRows != 1 {
		t.Fatalf("status %+v", st)
	}
	if s := st.InvalidRows.Samples[0]; s.File == "" || s.Row != 1 || !strings.Contains(s.Reason, "null") {
		t.Fatalf("sample %+v", s)
	}
}
