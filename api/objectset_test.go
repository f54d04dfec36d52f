package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"testing"

	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
)

func base(typ string) map[string]any { return map[string]any{"type": "base", "objectType": typ} }

func filter(set any, w string) map[string]any {
	return map[string]any{"type": "filter", "objectSet": set, "where": where(w)}
}

func setOf(typ string, sets ...any) map[string]any {
	return map[string]any{"type": typ, "objectSets": sets}
}

const (
	wSales  = `{"type":"eq","field":"dept","value":"Sales"}`
	wOld    = `{"type":"gte","field":"age","value":45}`
	wActive = `{"type":"eq","field":"active","value":true}`
)

func isSales(r icebergtest.Row) bool  { return r["dept"] == "Sales" }
func isOld(r icebergtest.Row) bool    { return r["age"] != nil && intOf(r["age"]) >= 45 }
func isActive(r icebergtest.Row) bool { return r["active"] == true }

func (e *testEnv) load(tb testing.TB, body map[string]any) ([]map[string]any, map[string]any) {
	tb.Helper()
	m := e.ok(tb, http.MethodPost, ontologyPath+"/objectSets/loadObjects", body)
	if _, ok := m["propertySecurities"]; !ok {
		tb.Fatalf("no propertySecurities: %v", m)
	}
	return objectsOf(tb, m), m
}

func TestObjectSets_load(t *testing.T) {
	e := mustEnv(t)
	staticObjs, _ := e.search(t, "Employee", map[string]any{"where": where(`{"type":"in","field":"id","value":[30,60,470]}`)})
	var rids []string
	for _, o := range staticObjs {
		rids = append(rids, o["__rid"].(string))
	}
	static := map[string]any{"type": "static", "objects": rids}
	isStatic := func(r icebergtest.Row) bool { return slices.Contains([]int64{30, 60, 470}, r["id"].(int64)) }
	tests := []struct {
		name string
		set  any
		want func(icebergtest.Row) bool
	}{
		{"base", base("Employee"), func(icebergtest.Row) bool { return true }},
		{"filter", filter(base("Employee"), wSales), isSales},
		{"filter of filter", filter(filter(base("Employee"), wSales), wOld), func(r icebergtest.Row) bool { return isSales(r) && isOld(r) }},
		{"union", setOf("union", filter(base("Employee"), wSales), filter(base("Employee"), wOld)), func(r icebergtest.Row) bool { return isSales(r) || isOld(r) }},
		{"intersect", setOf("intersect", filter(base("Employee"), wActive), filter(base("Employee"), wOld)), func(r icebergtest.Row) bool { return isActive(r) && isOld(r) }},
		{"subtract", setOf("subtract", base("Employee"), filter(base("Employee"), wSales), filter(base("Employee"), wOld)), func(r icebergtest.Row) bool { return !isSales(r) && !isOld(r) }},
		{"static", static, isStatic},
		{"static in union", setOf("union", static, filter(base("Employee"), wSales)), func(r icebergtest.Row) bool { return isStatic(r) || isSales(r) }},
		{"subtract static", setOf("subtract", filter(base("Employee"), wOld), static), func(r icebergtest.Row) bool { return isOld(r) && !isStatic(r) }},
		{"empty static", map[string]any{"type": "static", "objects": []string{}}, func(icebergtest.Row) bool { return false }},
		{"nested", filter(setOf("subtract", setOf("union", filter(base("Employee"), wSales), filter(base("Employee"), wActive)), static), wOld),
			func(r icebergtest.Row) bool { return (isSales(r) || isActive(r)) && !isStatic(r) && isOld(r) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, m := e.load(t, map[string]any{"objectSet": tt.set, "pageSize": 100})
			want := employeeIDs(tt.want)
			if want == nil {
				want = []string{}
			}
			if got := ids(objs); !slices.Equal(got, want) {
				t.Fatalf("got %v, want %v", got, want)
			}
			if m["totalCount"] != fmt.Sprint(len(want)) {
				t.Fatalf("totalCount %v, want %d", m["totalCount"], len(want))
			}
		})
	}

	t.Run("ordered pages", func(t *testing.T) {
		set := setOf("union", filter(base("Employee"), wSales), filter(base("Employee"), wOld))
		want := sortedIDs(func(r icebergtest.Row) bool { return isSales(r) || isOld(r) }, "salary:desc")
		var got []string
		tok := ""
		for {
			body := map[string]any{"objectSet": set, "pageSize": 4, "orderBy": orderBody("salary:desc"), "select": []string{"salary"}, "excludeRid": true}
			if tok != "" {
				body["pageToken"] = tok
			}
			objs, m := e.load(t, body)
			for _, o := range objs {
				if _, ok := o["__rid"]; ok || o["name"] != nil {
					t.Fatalf("select and excludeRid ignored: %v", o)
				}
			}
			got = append(got, ids(objs)...)
			if tok, _ = m["nextPageToken"].(string); tok == "" {
				break
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("got %v, want %v", got, want)
		}
	})

	t.Run("composite keys", func(t *testing.T) {
		objs, _ := e.load(t, map[string]any{"objectSet": filter(base("Assignment"), `{"type":"eq","field":"project","value":"R&D, phase 1"}`)})
		if len(objs) == 0 {
			t.Fatal("no assignments")
		}
		var rids []string
		for _, o := range objs {
			rids = append(rids, o["__rid"].(string))
		}
		again, _ := e.load(t, map[string]any{"objectSet": map[string]any{"type": "static", "objects": rids}})
		if !slices.Equal(ids(again), ids(objs)) {
			t.Fatalf("static of %v gave %v", ids(objs), ids(again))
		}
	})

	t.Run("aggregate", func(t *testing.T) {
		m := e.ok(t, http.MethodPost, ontologyPath+"/objectSets/aggregate", map[string]any{
			"objectSet":   setOf("union", filter(base("Employee"), wSales), filter(base("Employee"), wOld)),
			"aggregation": []any{metric("count", "")}, "groupBy": []any{}})
		want := len(employeeIDs(func(r icebergtest.Row) bool { return isSales(r) || isOld(r) }))
		if got := metricsOf(m["data"].([]any)[0])["count"]; got != fmt.Sprint(want) {
			t.Fatalf("count %s, want %d", got, want)
		}
	})
}

func TestObjectSets_errors(t *testing.T) {
	e := mustEnv(t)
	objs, _ := e.search(t, "Assignment", map[string]any{"pageSize": 1})
	assignmentRID := objs[0]["__rid"].(string)
	tests := []struct {
		name   string
		body   any
		status int
		error  string
	}{
		{"missing", map[string]any{}, 400, "MalformedObjectSet"},
		{"not an object", map[string]any{"objectSet": 3}, 400, "MalformedObjectSet"},
		{"unknown kind", map[string]any{"objectSet": map[string]any{"type": "everything"}}, 400, "MalformedObjectSet"},
		{"base without type", map[string]any{"objectSet": map[string]any{"type": "base"}}, 400, "MalformedObjectSet"},
		{"unknown key", map[string]any{"objectSet": map[string]any{"type": "base", "objectType": "Employee", "x": 1}}, 400, "MalformedObjectSet"},
		{"filter without where", map[string]any{"objectSet": map[string]any{"type": "filter", "objectSet": base("Employee")}}, 400, "MalformedObjectSet"},
		{"union of none", map[string]any{"objectSet": setOf("union")}, 400, "MalformedObjectSet"},
		{"bad rid", map[string]any{"objectSet": map[string]any{"type": "static", "objects": []string{"ri.other.main.object.1"}}}, 400, "MalformedObjectSet"},
		{"bad rid id", map[string]any{"objectSet": map[string]any{"type": "static", "objects": []string{"ri.ontoindex.main.object.Employee.!!"}}}, 400, "MalformedObjectSet"},
		{"search around an unknown link", map[string]any{"objectSet": map[string]any{"type": "searchAround", "objectSet": base("Employee"), "link": "manager"}}, 404, "LinkTypeNotFound"},
		{"reference to no set", map[string]any{"objectSet": map[string]any{"type": "reference", "reference": "ri.x"}}, 404, "ObjectSetNotFound"},
		{"nearestNeighbors without its fields", map[string]any{"objectSet": map[string]any{"type": "nearestNeighbors", "objectSet": base("Employee")}}, 400, "MalformedObjectSet"},
		{"two types", map[string]any{"objectSet": setOf("union", base("Employee"), base("Assignment"))}, 400, "UnsupportedObjectSet"},
		{"two types by rid", map[string]any{"objectSet": setOf("union", base("Employee"), map[string]any{"type": "static", "objects": []string{assignmentRID}})}, 400, "UnsupportedObjectSet"},
		{"bad where", map[string]any{"objectSet": filter(base("Employee"), `{"type":"eq","field":"nope","value":1}`)}, 404, "PropertiesNotFound"},
		{"geo where", map[string]any{"objectSet": filter(base("Employee"), `{"type":"withinPolygon","field":"name","value":{}}`)}, 400, "PropertyFiltersNotSupported"},
		{"order of unknown property", map[string]any{"objectSet": base("Employee"), "orderBy": orderBody("nope")}, 404, "PropertiesNotFound"},
		{"bad page size", map[string]any{"objectSet": base("Employee"), "pageSize": 0}, 400, "InvalidPageSize"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.fail(t, http.MethodPost, ontologyPath+"/objectSets/loadObjects", tt.body, tt.status, tt.error)
		})
	}
	t.Run("token of another set", func(t *testing.T) {
		_, m := e.load(t, map[string]any{"objectSet": base("Employee"), "pageSize": 2})
		e.fail(t, http.MethodPost, ontologyPath+"/objectSets/loadObjects", map[string]any{"objectSet": filter(base("Employee"), wSales),
			"pageSize": 2, "pageToken": m["nextPageToken"]}, 400, "InvalidPageToken")
	})
	t.Run("aggregate of an empty static set", func(t *testing.T) {
		body, _ := json.Marshal(map[string]any{"objectSet": map[string]any{"type": "static", "objects": []string{}}, "aggregation": []any{}, "groupBy": []any{}})
		e.fail(t, http.MethodPost, ontologyPath+"/objectSets/aggregate", body, 400, "UnsupportedObjectSet")
	})
}
