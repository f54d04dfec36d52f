package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/internal/testkit/apidemo"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
)

// The changes a subscription receives, applied to the set as loadObjects
// returned it when the subscription started, must give the set as
// loadObjects returns it after every build: random sets, random
// copy-on-write commits, the REST API as the oracle.

// randomWhere is a random where clause over Employee.
func randomWhere(rng *rand.Rand, depth int) string {
	depts := []string{"Flight Ops", "Maintenance", "Sales", "Research", "Legal"}
	switch k := rng.IntN(7); {
	case depth > 0 && k == 0:
		return `{"type":"and","value":[` + randomWhere(rng, depth-1) + `,` + randomWhere(rng, depth-1) + `]}`
	case depth > 0 && k == 1:
		return `{"type":"or","value":[` + randomWhere(rng, depth-1) + `,` + randomWhere(rng, depth-1) + `]}`
	case depth > 0 && k == 2:
		return `{"type":"not","value":` + randomWhere(rng, depth-1) + `}`
	case k == 3:
		return fmt.Sprintf(`{"type":"gt","field":"age","value":%d}`, 20+rng.IntN(45))
	case k == 4:
		return fmt.Sprintf(`{"type":"eq","field":"active","value":%t}`, rng.IntN(2) == 0)
	case k == 5:
		return fmt.Sprintf(`{"type":"lt","field":"id","value":%d}`, rng.IntN(700))
	}
	return fmt.Sprintf(`{"type":"eq","field":"dept","value":%q}`, depts[rng.IntN(len(depts))])
}

// randomSet is a random object set of Employee.
func randomSet(rng *rand.Rand, depth int) string {
	filter := func() string {
		return `{"type":"filter","objectSet":` + baseEmployees + `,"where":` + randomWhere(rng, 2) + `}`
	}
	if depth == 0 {
		return filter()
	}
	switch rng.IntN(5) {
	case 0:
		return `{"type":"union","objectSets":[` + randomSet(rng, depth-1) + `,` + randomSet(rng, depth-1) + `]}`
	case 1:
		return `{"type":"intersect","objectSets":[` + randomSet(rng, depth-1) + `,` + randomSet(rng, depth-1) + `]}`
	case 2:
		return `{"type":"subtract","objectSets":[` + randomSet(rng, depth-1) + `,` + randomSet(rng, depth-1) + `]}`
	}
	return filter()
}

// loadSet is the set as loadObjects returns it, by primary key.
func (e *streamEnv) loadSet(tb testing.TB, set string, props []string) map[string]map[string]any {
	tb.Helper()
	sel, _ := json.Marshal(props)
	if props == nil {
		sel = []byte("[]")
	}
	m := e.ok(tb, http.MethodPost, loadPath, `{"objectSet":`+set+`,"select":`+string(sel)+`,"excludeRid":false,"pageSize":10000}`)
	out := map[string]map[string]any{}
	for _, o := range objectsOf(tb, m) {
		out[fmt.Sprint(o["__primaryKey"])] = o
	}
	return out
}

// randomEdit commits a random copy-on-write change to the employees: some
// rows changed, some deleted, some inserted. Every edit changes at least
// one object, so that every build has a change to push.
func randomEdit(ctx context.Context, tb testing.TB, rng *rand.Rand, emp *icebergtest.Table, live map[int64]icebergtest.Row, nextID *int64) {
	tb.Helper()
	depts := []string{"Flight Ops", "Maintenance", "Sales", "Research", "Legal"}
	var ids []int64
	for id := range live {
		ids = append(ids, id)
	}
	// Sorted, so that a seed replays the same edits.
	slices.Sort(ids)
	var touched []iceberg.BooleanExpression
	var rows []icebergtest.Row
	picked := map[int64]bool{}
	for range 1 + rng.IntN(4) {
		id := ids[rng.IntN(len(ids))]
		if picked[id] {
			continue
		}
		picked[id] = true
		touched = append(touched, iceberg.EqualTo(iceberg.Reference("id"), id))
		if rng.IntN(4) == 0 {
			delete(live, id)
			continue
		}
		r := live[id]
		r["dept"] = depts[rng.IntN(len(depts))]
		r["age"] = 20 + rng.IntN(45)
		r["active"] = rng.IntN(2) == 0
		r["big"] = rng.Int64()
		rows = append(rows, r)
	}
	for range rng.IntN(3) {
		*nextID += 10
		r := icebergtest.Row{"id": *nextID, "name": fmt.Sprintf("New %d", *nextID), "dept": depts[rng.IntN(len(depts))],
			"age": 20 + rng.IntN(45), "active": rng.IntN(2) == 0, "big": rng.Int64()}
		live[*nextID] = r
		rows = append(rows, r)
	}
	filter := iceberg.BooleanExpression(iceberg.AlwaysFalse{})
	for _, t := range touched {
		filter = iceberg.NewOr(filter, t)
	}
	if err := emp.Overwrite(ctx, filter, rows); err != nil {
		tb.Fatal(err)
	}
}

func TestStream_changesMatchLoadObjects(t *testing.T) {
	checkStreamChanges(t, mustStreamEnv(t))
}

// checkStreamChanges subscribes to random sets of Employee on e, makes
// random edits, builds, and checks after each build that every set as
// its changes make it is the set loadObjects returns.
func checkStreamChanges(t *testing.T, e *streamEnv) {
	seed := rand.Uint64()
	if v := os.Getenv("STREAM_SEED"); v != "" { // replays a failure
		seed, _ = strconv.ParseUint(v, 10, 64)
	}
	t.Logf("seed %d (STREAM_SEED=%d replays it)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	ctx := context.Background()
	emp, err := e.w.LoadTable(ctx, "demo.employees")
	if err != nil {
		t.Fatal(err)
	}
	live := map[int64]icebergtest.Row{}
	for _, r := range apidemo.EmployeeRows() {
		live[r["id"].(int64)] = r
	}
	nextID := int64(10_000)

	type sub struct {
		set   string
		props []string
		model map[string]map[string]any
	}
	propChoices := [][]string{nil, {"dept"}, {"name", "age", "active"}}
	var subs []*sub
	for range 12 {
		subs = append(subs, &sub{set: randomSet(rng, 2), props: propChoices[rng.IntN(len(propChoices))]})
	}
	// The sentinel, subscribed last: every build changes the base set, and
	// a connection gets a build's messages in the order of its
	// subscriptions, so its message ends each build's.
	subs = append(subs, &sub{set: baseEmployees, props: []string{"secret", "big"}})
	c := e.dial(t, appToken)
	var reqs []string
	for _, s := range subs {
		reqs = append(reqs, request(s.set, s.props...))
	}
	resp := c.subscribe(reqs...)
	byID := map[string][]*sub{} // duplicate requests share an id
	for i, r := range resp.Responses {
		if r.Type != "success" {
			t.Fatalf("request %d (%s): %+v", i, subs[i].set, r)
		}
		subs[i].model = e.loadSet(t, subs[i].set, subs[i].props)
		byID[r.ID] = append(byID[r.ID], subs[i])
	}
	sentinel := resp.Responses[len(subs)-1].ID

	for round := range 10 {
		randomEdit(ctx, t, rng, emp, live, &nextID)
		if _, err := e.ix.Build(ctx, "Employee", indexer.BuildOptions{}); err != nil {
			t.Fatal(err)
		}
		for {
			m := c.next()
			if m.Type != "objectSetChanged" {
				t.Fatalf("round %d: %+v", round, m)
			}
			if len(byID[m.ID]) == 0 {
				t.Fatalf("round %d: a message for unknown subscription %s", round, m.ID)
			}
			if len(m.Updates) == 0 {
				t.Errorf("round %d: an empty change message for %s", round, m.ID)
			}
			for _, s := range byID[m.ID] {
				applyUpdates(t, round, s.set, s.model, m)
			}
			if m.ID == sentinel {
				break
			}
		}
		for _, s := range subs {
			want := e.loadSet(t, s.set, s.props)
			if !reflect.DeepEqual(s.model, want) {
				t.Fatalf("round %d: set %s %v: the changes give\n%v\nloadObjects gives\n%v", round, s.set, s.props, keysOf(s.model), keysOf(want))
			}
		}
	}
}

// applyUpdates applies the updates of a change message to a set's model.
func applyUpdates(t *testing.T, round int, set string, model map[string]map[string]any, m message) {
	t.Helper()
	for _, u := range m.Updates {
		pk := fmt.Sprint(u.Object["__primaryKey"])
		switch u.State {
		case "ADDED_OR_UPDATED":
			model[pk] = u.Object
		case "REMOVED":
			if _, ok := model[pk]; !ok {
				t.Errorf("round %d: %s: REMOVED %s, which was not in the set", round, set, pk)
			}
			if u.Object["__apiName"] != "Employee" || fmt.Sprint(u.Object["id"]) != pk {
				t.Errorf("round %d: REMOVED object without __apiName and key: %v", round, u.Object)
			}
			delete(model, pk)
		default:
			t.Fatalf("round %d: state %q", round, u.State)
		}
	}
}

func keysOf(m map[string]map[string]any) string {
	var ks []string
	for k, o := range m {
		ks = append(ks, fmt.Sprintf("%s:%v", k, o))
	}
	return strings.Join(ks, "\n")
}
