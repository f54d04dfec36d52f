package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/ontoindex/ontoindex/changelog"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/indexer/daemon"
	"github.com/ontoindex/ontoindex/internal/testkit/daemontest"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
	"github.com/ontoindex/ontoindex/internal/testkit/indexertest"
	"github.com/ontoindex/ontoindex/internal/testkit/peopletest"
	"github.com/ontoindex/ontoindex/objects"
)

// mustStatusServer runs a daemon over two real tables, one of them blocked
// by a merge-on-read delete, and serves its status as `indexer serve`
// does, behind a bearer token.
func mustStatusServer(tb testing.TB, token string) (*httptest.Server, *daemon.Daemon) {
	tb.Helper()
	ctx := context.Background()
	w := icebergtest.MustWarehouse(tb)
	sc := iceberg.NewSchemaWithIdentifiers(1, []int{1},
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "name", Type: iceberg.PrimitiveTypes.String})
	// Tables of two columns (no city), three rows each.
	rows := []icebergtest.Row{{"id": 1, "name": "one"}, {"id": 2, "name": "two"}, {"id": 3, "name": "three"}}
	tables := peopletest.Must(tb, w, peopletest.Options{Schema: sc, People: [][]icebergtest.Row{rows}, Planes: rows})
	cfg := indexertest.Config(tb, w, objects.TypeSpec{APIName: "Person", Table: peopletest.PeopleTable},
		objects.TypeSpec{APIName: "Plane", Table: peopletest.PlanesTable})
	cfg.Daemon.PollInterval = 20 * time.Millisecond
	ix := indexertest.Open(tb, cfg)
	d, err := daemon.New(ix, daemon.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- d.Run(runCtx) }()
	tb.Cleanup(func() {
		cancel()
		<-done
	})
	waitState(tb, d, "Plane", daemon.StateIdle)
	if err := tables.Planes.Delete(ctx, iceberg.EqualTo(iceberg.Reference("id"), int64(2))); err != nil {
		tb.Fatal(err)
	}
	waitState(tb, d, "Plane", daemon.StateBlocked)
	waitState(tb, d, "Person", daemon.StateIdle)

	mux := http.NewServeMux()
	writeJSON := func(w http.ResponseWriter, status int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(v)
	}
	authed := func(h http.HandlerFunc) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer "+token {
				writeJSON(w, http.StatusUnauthorized, map[string]any{"errorCode": "UNAUTHORIZED", "errorName": "MissingCredentials", "errorInstanceId": "x", "parameters": map[string]any{}})
				return
			}
			h(w, r)
		}
	}
	mux.HandleFunc("GET "+StatusPath, authed(func(w http.ResponseWriter, r *http.Request) { writeJSON(w, http.StatusOK, d.Report()) }))
	mux.HandleFunc("GET "+StatusPath+"/{objectType}", authed(func(w http.ResponseWriter, r *http.Request) {
		st, err := d.StatusOf(r.PathValue("objectType"))
		if errors.Is(err, indexer.ErrUnknownType) {
			writeJSON(w, http.StatusNotFound, map[string]any{"errorCode": "NOT_FOUND", "errorName": "ObjectTypeNotFound", "errorInstanceId": "x",
				"parameters": map[string]any{"objectType": r.PathValue("objectType")}})
			return
		}
		writeJSON(w, http.StatusOK, st)
	}))
	srv := httptest.NewServer(mux)
	tb.Cleanup(srv.Close)
	return srv, d
}

// waitState waits until the type is in state want, and, unless blocked,
// up to date with the table its last poll saw.
func waitState(tb testing.TB, d *daemon.Daemon, name string, want daemon.State) {
	tb.Helper()
	daemontest.WaitStatus(tb, d, name, "state "+string(want), func(st daemon.TypeStatus) bool {
		upToDate := st.TableSnapshotID != 0 && st.TableSnapshotID == st.CheckpointSnapshotID
		return st.State == want && (want == daemon.StateBlocked || upToDate)
	})
}

func TestMain_status(t *testing.T) {
	srv, d := mustStatusServer(t, "secret")
	tests := []struct {
		name     string
		args     []string
		code     int
		stdout   []string // regular expressions the output must match
		stderr   string
		notInOut string
	}{
		{name: "table", args: []string{"--url", srv.URL, "--token", "secret"}, code: exitFailed, stdout: []string{
			`(?m)^OBJECT TYPE\s+STATE\s+GEN\s+OBJECTS\s+CHECKPOINT\s+TABLE SNAPSHOT\s+LAG\s+LAST BUILD$`,
			`(?m)^Person\s+idle\s+1\s+3\s+\d+\s+\d+\s+up to date\s+full \+3 -0, 1 file, `,
			`(?m)^Plane\s+blocked\s+1\s+3\s+\d+\s+\d+\s+1 snapshot, \S+\s+full \+3 -0, 1 file, `,
			`(?m)^Plane blocked: MERGE_ON_READ \(\S+ ago\)$`,
			`(?m)^  object type Plane: table warehouse.ns.planes snapshot \d+ .*merge-on-read.*copy-on-write`,
		}},
		{name: "one type", args: []string{"--url", srv.URL, "--token", "secret", "--type", "Person"}, code: exitOK,
			stdout: []string{`(?m)^Person\s+idle\s`}, notInOut: "Plane"},
		{name: "unknown type", args: []string{"--url", srv.URL, "--token", "secret", "--type", "Nobody"}, code: exitFailed,
			stderr: `404 Not Found: ObjectTypeNotFound (objectType Nobody)`},
		{name: "bad token", args: []string{"--url", srv.URL, "--token", "wrong"}, code: exitFailed, stderr: "401 Unauthorized: MissingCredentials"},
		{name: "not a url", args: []string{"--url", "localhost:8080"}, code: exitUsage, stderr: "must be an http(s) URL"},
		{name: "unexpected argument", args: []string{"--url", srv.URL, "extra"}, code: exitUsage, stderr: `unexpected argument "extra"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := run(append([]string{"status"}, tt.args...)...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, out, errOut)
			}
			for _, re := range tt.stdout {
				if !regexp.MustCompile(re).MatchString(out) {
					t.Errorf("stdout does not match %s:\n%s", re, out)
				}
			}
			t.Logf("stdout:\n%s", out)
			if tt.notInOut != "" && strings.Contains(out, tt.notInOut) {
				t.Errorf("stdout mentions %s:\n%s", tt.notInOut, out)
			}
			if !strings.Contains(errOut, tt.stderr) {
				t.Errorf("stderr does not hold %q:\n%s", tt.stderr, errOut)
			}
		})
	}
	t.Run("json", func(t *testing.T) {
		code, out, errOut := run("status", "--url", srv.URL, "--token", "secret", "--json")
		if code != exitFailed {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		var rep daemon.StatusReport
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("%v:\n%s", err, out)
		}
		want := d.Report()
		if rep.Ready != want.Ready || !rep.Ready || len(rep.ObjectTypes) != 2 {
			t.Fatalf("report %+v", rep)
		}
		for i, st := range rep.ObjectTypes {
			w := want.ObjectTypes[i]
			if st.ObjectType != w.ObjectType || st.State != w.State || st.CheckpointSnapshotID != w.CheckpointSnapshotID ||
				st.Generation != w.Generation || st.Objects != w.Objects || st.LastBuild == nil || *st.LastBuild != *w.LastBuild {
				t.Errorf("object type %d: got %+v, want %+v", i, st, w)
			}
		}
		if e := rep.ObjectTypes[1].LastError; e == nil || e.Code != indexer.CodeMergeOnRead {
			t.Errorf("Plane lastError %+v", e)
		}
		// Snapshot ids are strings, which jq and JavaScript keep exact.
		var doubles struct {
			ObjectTypes []map[string]any `json:"objectTypes"`
		}
		if err := json.Unmarshal([]byte(out), &doubles); err != nil {
			t.Fatal(err)
		}
		for i, st := range doubles.ObjectTypes {
			w := want.ObjectTypes[i]
			lb := st["lastBuild"].(map[string]any)
			if st["checkpointSnapshotId"] != strconv.FormatInt(w.CheckpointSnapshotID, 10) || st["tableSnapshotId"] != strconv.FormatInt(w.TableSnapshotID, 10) ||
				lb["from"] != strconv.FormatInt(w.LastBuild.From, 10) || lb["to"] != strconv.FormatInt(w.LastBuild.To, 10) {
				t.Errorf("object type %d: snapshot ids are not strings: %v", i, st)
			}
		}
		// The keys of the contract are all there.
		for _, key := range []string{`"objectType"`, `"table"`, `"state"`, `"checkpointSnapshotId"`, `"tableSnapshotId"`, `"lagSnapshots"`,
			`"lagSeconds"`, `"generation"`, `"objects"`, `"lastBuild"`, `"kind"`, `"from"`, `"to"`, `"filesRead"`, `"bytesRead"`, `"upserts"`,
			`"deletes"`, `"skippedRows"`, `"durationMs"`, `"finishedAt"`, `"lastError"`, `"code"`, `"message"`, `"at"`, `"invalidRows"`, `"count"`, `"samples"`} {
			if !strings.Contains(out, key) {
				t.Errorf("JSON lacks %s", key)
			}
		}
	})
	t.Run("server down", func(t *testing.T) {
		down := httptest.NewServer(http.NotFoundHandler())
		url := down.URL
		down.Close()
		code, _, errOut := run("status", "--url", url)
		if code != exitFailed || !strings.Contains(errOut, "is `indexer serve` running?") {
			t.Fatalf("exit %d: %s", code, errOut)
		}
	})
}

// TestMain_statusToken asks a real `indexer serve` that has tokens: a
// missing or refused token is reported in text, with how to give one.
func TestMain_statusToken(t *testing.T) {
	dir := t.TempDir()
	cfg, _ := mustWarehouse(t, dir, nil)
	raw, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("STATUS_TEST_TOKEN", "status-test-token-0123")
	t.Setenv("INDEXER_TOKEN", "")
	mustFile(t, cfg, string(raw)+`
auth:
  tokens:
    - {name: ops, token: "${STATUS_TEST_TOKEN}", objectTypes: ["*"]}
`)
	p := startServe(t, cfg)
	tests := []struct {
		name   string
		env    string // $INDEXER_TOKEN
		args   []string
		code   int
		stderr string
	}{
		{name: "no token", code: exitFailed,
			stderr: "401 Unauthorized: MissingCredentials: send Authorization: Bearer <token>; the server requires a token: pass --token TOKEN or set INDEXER_TOKEN\n"},
		{name: "wrong token", args: []string{"--token", "wrong"}, code: exitFailed,
			stderr: "401 Unauthorized: InvalidCredentials; the server refused the token: check --token or INDEXER_TOKEN\n"},
		{name: "--token", args: []string{"--token", "status-test-token-0123"}, code: exitOK},
		{name: "INDEXER_TOKEN", env: "status-test-token-0123", code: exitOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("INDEXER_TOKEN", tt.env)
			code, out, errOut := run(append([]string{"status", "--url", p.base}, tt.args...)...)
			if code != tt.code || !strings.HasSuffix(errOut, tt.stderr) || (tt.stderr == "" && errOut != "") {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s\nwant stderr ending in %q", code, tt.code, out, errOut, tt.stderr)
			}
			if strings.Contains(errOut, `\u00`) || strings.Contains(errOut, "{") {
				t.Errorf("stderr holds JSON: %s", errOut)
			}
			if code == exitOK && !regexp.MustCompile(`(?m)^Person\s`).MatchString(out) {
				t.Errorf("stdout:\n%s", out)
			}
		})
	}
}

func TestDescribeHTTPError(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{"reason", `{"errorCode":"UNAUTHORIZED","errorName":"MissingCredentials","parameters":{"reason":"send Authorization: Bearer \u003ctoken\u003e"}}`,
			"401 Unauthorized: MissingCredentials: send Authorization: Bearer <token>"},
		{"parameters", `{"errorCode":"NOT_FOUND","errorName":"ObjectTypeNotFound","parameters":{"objectType":"Nobody","objectTypeRid":"ri.x"}}`,
			"401 Unauthorized: ObjectTypeNotFound (objectType Nobody, objectTypeRid ri.x)"},
		{"no parameters", `{"errorCode":"UNAUTHORIZED","errorName":"InvalidCredentials","parameters":{}}`, "401 Unauthorized: InvalidCredentials"},
		{"not conjure", `<html>bad gateway</html>`, "401 Unauthorized: <html>bad gateway</html>"},
		{"empty", ``, "401 Unauthorized"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := describeHTTPError("401 Unauthorized", []byte(tt.body)); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestDecodeStatus(t *testing.T) {
	one := `{"objectType":"A","state":"idle","generation":1}`
	tests := []struct {
		name  string
		body  string
		names []string
		err   bool
	}{
		{"report", `{"ready":true,"objectTypes":[` + one + `,{"objectType":"B","state":"failing"}]}`, []string{"A", "B"}, false},
		{"array", `[` + one + `]`, []string{"A"}, false},
		{"string ids", `{"objectType":"A","checkpointSnapshotId":"372056263949486138","tableSnapshotId":"372056263949486138","lastBuild":{"from":"0","to":"372056263949486138"}}`, []string{"A"}, false},
		{"bare ids of an older server", `{"objectType":"A","checkpointSnapshotId":372056263949486138,"tableSnapshotId":372056263949486138,"lastBuild":{"from":0,"to":372056263949486138}}`, []string{"A"}, false},
		{"one type", one, []string{"A"}, false},
		{"empty report", `{"ready":true,"objectTypes":[]}`, nil, false},
		{"no types", `{"ready":true}`, nil, true},
		{"not json", `<html>`, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sts, err := decodeStatus([]byte(tt.body))
			if (err != nil) != tt.err {
				t.Fatalf("err = %v, want error %v", err, tt.err)
			}
			var names []string
			for _, st := range sts {
				names = append(names, st.ObjectType)
				if st.LastBuild != nil && (st.CheckpointSnapshotID != 372056263949486138 || st.TableSnapshotID != 372056263949486138 || st.LastBuild.To != 372056263949486138) {
					t.Errorf("ids of %s decode to %+v, last build %+v", tt.body, st, st.LastBuild)
				}
			}
			if strings.Join(names, ",") != strings.Join(tt.names, ",") {
				t.Fatalf("names = %v, want %v", names, tt.names)
			}
		})
	}
}

func TestPrintStatus(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	sts := []daemon.TypeStatus{
		{ObjectType: "Customer", State: daemon.StateFailing, Generation: 2, Objects: 100000, CheckpointSnapshotID: 11, TableSnapshotID: 13,
			LagSnapshots: 2, LagSeconds: 250,
			LastBuild:   &indexer.BuildSummary{Kind: indexer.KindIncremental, Upserts: 4, Deletes: 1, FilesRead: 2, DurationMs: 1500, FinishedAt: now.Add(-3 * time.Hour)},
			LastError:   &indexer.ErrorInfo{Code: indexer.CodeTableNotAvailable, Message: "load table: connection refused", At: now.Add(-10 * time.Second)},
			NextRetryAt: now.Add(20 * time.Second),
			InvalidRows: indexer.InvalidRows{Count: 3, Samples: []changelog.InvalidRow{{File: "s3://b/f.parquet", Row: 7, Reason: "null primary key"}}}},
		{ObjectType: "New", State: daemon.StateBuilding,
			Backend: &indexer.BackendStatus{Backend: "cluster", EmbeddedIndex: config.EmbeddedIndexNone, Writes: 12, BulkLatencyMs: 8.2, MeanBulkLatencyMs: 40, Retries: 3, Failures: 2, LagSeconds: 70,
				Reads: 40, MeanReadLatencyMs: 12, ReadFailures: 2, Fallbacks: 1}},
	}
	var b bytes.Buffer
	printStatus(&b, sts, now)
	want := `OBJECT TYPE  STATE     GEN  OBJECTS  CHECKPOINT  TABLE SNAPSHOT  LAG                 LAST BUILD
Customer     failing   2    100000   11          13              2 snapshots, 4m10s  incremental +4 -1, 2 files, 2s, 3h ago
New          building  0    0        -           -               up to date          -

Customer failing: TABLE_NOT_AVAILABLE (10s ago), next retry in 20s
  load table: connection refused

Customer: 3 invalid rows skipped, for example:
  s3://b/f.parquet row 7: null primary key

New: backend cluster (no embedded index): 12 bulk writes (last 8ms, mean 40ms), 3 retries, 0 rejections, 2 failures; 40 reads (mean 12ms), 2 failed, 1 answered by the embedded index, failing for 1m10s
`
	if b.String() != want {
		t.Fatalf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestAgo(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{-time.Second, "0s"},
		{850 * time.Millisecond, "850ms"},
		{12*time.Second + 400*time.Millisecond, "12s"},
		{4*time.Minute + 10*time.Second, "4m10s"},
		{4 * time.Minute, "4m"},
		{3*time.Hour + 5*time.Minute + 20*time.Second, "3h5m"},
		{3 * time.Hour, "3h"},
		{50 * time.Hour, "2d2h"},
	}
	for _, tt := range tests {
		if got := ago(tt.d); got != tt.want {
			t.Errorf("ago(%s) = %q, want %q", tt.d, got, tt.want)
		}
	}
}
