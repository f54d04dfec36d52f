package indexer_test

import (
	"encoding/json"
	"regexp"
	"strconv"
	"testing"

	"github.com/ontoindex/ontoindex/indexer"
)

// bareIDs rewrites the snapshot ids of a JSON text as bare numbers, as
// the releases before string ids wrote them (and stored them in
// checkpoints).
var bareIDs = regexp.MustCompile(`"(snapshotId|fromSnapshotId|toSnapshotId|from|to|checkpointSnapshotId|tableSnapshotId)":"(-?[0-9]+)"`)

func toBareIDs(raw []byte) []byte { return bareIDs.ReplaceAll(raw, []byte(`"$1":$2`)) }

// wantStringIDs decodes raw as a JavaScript client or jq would (numbers
// as doubles) and checks that each key of want holds its id exactly, as a
// string.
func wantStringIDs(tb testing.TB, what string, raw []byte, want map[string]int64) {
	tb.Helper()
	var doubles map[string]any
	if err := json.Unmarshal(raw, &doubles); err != nil {
		tb.Fatalf("%s: %v", what, err)
	}
	for key, id := range want {
		if got, ok := doubles[key].(string); !ok || got != strconv.FormatInt(id, 10) {
			tb.Errorf("%s: %s = %#v, want the string %q:\n%s", what, key, doubles[key], strconv.FormatInt(id, 10), raw)
		}
	}
}

// TestIndexer_snapshotIDsJSON: the snapshot ids of real build results,
// build summaries and checkpoints are JSON strings, and the bare numbers
// that earlier releases wrote decode to the same values.
func TestIndexer_snapshotIDsJSON(t *testing.T) {
	f := mustFixture(t, nil, 2, nil)
	f.mustBuild(t, indexer.BuildOptions{})
	from := f.tb.T.CurrentSnapshot().SnapshotID
	if err := f.tb.Append(f.ctx, customerRows(100, 3)); err != nil {
		t.Fatal(err)
	}
	res := f.mustBuild(t, indexer.BuildOptions{})
	to := f.tb.T.CurrentSnapshot().SnapshotID
	if res.Kind != indexer.KindIncremental || res.FromSnapshotID != from || res.ToSnapshotID != to {
		t.Fatalf("build = %+v, want incremental from %d to %d", res, from, to)
	}
	cp, err := f.ix.Checkpoint(f.name)
	if err != nil {
		t.Fatal(err)
	}

	raw := mustJSON(t, res)
	wantStringIDs(t, "build result", raw, map[string]int64{"fromSnapshotId": from, "toSnapshotId": to})
	var back indexer.BuildResult
	if err := json.Unmarshal(toBareIDs(raw), &back); err != nil || back.FromSnapshotID != from || back.ToSnapshotID != to {
		t.Errorf("build result with bare ids decodes to %+v, %v", back, err)
	}

	raw = mustJSON(t, res.Summary())
	wantStringIDs(t, "build summary", raw, map[string]int64{"from": from, "to": to})
	var sum indexer.BuildSummary
	if err := json.Unmarshal(toBareIDs(raw), &sum); err != nil || sum != *res.Summary() {
		t.Errorf("summary with bare ids decodes to %+v, %v; want %+v", sum, err, *res.Summary())
	}

	raw = mustJSON(t, cp)
	wantStringIDs(t, "checkpoint", raw, map[string]int64{"snapshotId": to})
	var doubles struct{ LastBuild map[string]any }
	if err := json.Unmarshal(raw, &doubles); err != nil || doubles.LastBuild["toSnapshotId"] != strconv.FormatInt(to, 10) {
		t.Errorf("checkpoint lastBuild: %v, %v", doubles.LastBuild, err)
	}
	// A checkpoint as earlier releases stored it reads as the same one.
	old := toBareIDs(raw)
	var oldCP indexer.Checkpoint
	if err := json.Unmarshal(old, &oldCP); err != nil {
		t.Fatalf("checkpoint with bare ids: %v\n%s", err, old)
	}
	if again := mustJSON(t, &oldCP); string(again) != string(raw) {
		t.Errorf("checkpoint with bare ids decodes to\n%s\nwant\n%s", again, raw)
	}
}

// TestIndexer_snapshotIDsJSONExact: an id above 2^53, which a double
// rounds (372056263949486138 reads as 372056263949486140), goes through
// the JSON of a build result and a checkpoint exactly, in both forms.
func TestIndexer_snapshotIDsJSONExact(t *testing.T) {
	const big = 372056263949486138
	if v := int64(big); int64(float64(v)) == v {
		t.Fatal("the id must be one a double cannot hold")
	}
	res := &indexer.BuildResult{ObjectType: "T", Kind: indexer.KindIncremental, FromSnapshotID: big - 1, ToSnapshotID: big}
	cp := &indexer.Checkpoint{SnapshotID: big, Generation: 3, LastBuild: res}
	raw := mustJSON(t, cp)
	wantStringIDs(t, "checkpoint", raw, map[string]int64{"snapshotId": big})
	for _, form := range [][]byte{raw, toBareIDs(raw)} {
		var got indexer.Checkpoint
		if err := json.Unmarshal(form, &got); err != nil {
			t.Fatalf("%s: %v", form, err)
		}
		if got.SnapshotID != big || got.Generation != 3 || got.LastBuild == nil || got.LastBuild.FromSnapshotID != big-1 || got.LastBuild.ToSnapshotID != big {
			t.Errorf("%s decodes to %+v (last build %+v)", form, got, got.LastBuild)
		}
	}
	// Decoding into a value keeps what the JSON does not name.
	got := indexer.BuildResult{FromSnapshotID: 5, ToSnapshotID: 6}
	if err := json.Unmarshal([]byte(`{"objectType":"T"}`), &got); err != nil || got.FromSnapshotID != 5 || got.ToSnapshotID != 6 || got.ObjectType != "T" {
		t.Errorf("partial decode = %+v, %v", got, err)
	}
}

func mustJSON(tb testing.TB, v any) []byte {
	tb.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return raw
}
