package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"testing"

	"github.com/ontoindex/ontoindex/internal/testkit/apidemo"
)

// The requests of these tests are the bodies @osdk/client 2.22.0 sends, as
// recorded from the client: every loadObjects carries select, selectV2,
// loadPropertySecurities, excludeRid and snapshot; fetchOne is a filter on
// the primary key with pageSize 1; asyncIter pages by 10,000 with
// snapshot. The client then checks what the assertions check: fetchOne
// throws unless a page holds exactly one object and no nextPageToken.

const loadPath = ontologyPath + "/objectSets/loadObjects"

// clientLoad is a loadObjects body as the client writes it.
func clientLoad(set string, extra string) string {
	return `{"objectSet":` + set + `,"select":[],"selectV2":[],"loadPropertySecurities":false,"excludeRid":true,"snapshot":false` + extra + `}`
}

// pkFilter is the object set fetchOne sends.
func pkFilter(typ, pk string, value any) string {
	v, _ := json.Marshal(value)
	return fmt.Sprintf(`{"type":"filter","objectSet":{"type":"base","objectType":%q},"where":{"type":"eq","field":%q,"value":%s}}`, typ, pk, v)
}

func TestOSDKClient_fetchOne(t *testing.T) {
	e := mustShopEnv(t)
	for _, c := range []struct {
		typ, pk string
		value   any
		wantKey any // __primaryKey as the client gets it: like its property
	}{
		{"Employee", "id", 130, "130"}, // a long key, sent as the number the application wrote
		{"Employee", "id", "130", "130"},
		{"Customer", "customerId", "c07", "c07"},
		{"Order", "orderId", 21, json.Number("21")},
	} {
		m := e.ok(t, http.MethodPost, loadPath, clientLoad(pkFilter(c.typ, c.pk, c.value), `,"pageSize":1`))
		objs := objectsOf(t, m)
		if len(objs) != 1 || objs[0]["__primaryKey"] != c.wantKey || objs[0]["__apiName"] != c.typ {
			t.Errorf("%s %v: %v", c.typ, c.value, m)
		}
		if _, ok := m["nextPageToken"]; ok {
			t.Errorf("%s %v: a nextPageToken after the only object makes fetchOne throw: %v", c.typ, c.value, m)
		}
	}
	// $select: the selected properties and the key.
	m := e.ok(t, http.MethodPost, loadPath, `{"objectSet":`+pkFilter("Customer", "customerId", "c04")+`,"select":[],"selectV2":[{"type":"property","apiName":"city"},{"type":"property","apiName":"visits"}],"loadPropertySecurities":false,"excludeRid":true,"snapshot":false,"pageSize":1}`)
	r := apidemo.CustomerRows()[3]
	want := map[string]any{"__apiName": "Customer", "__primaryKey": "c04", "__title": r["name"], "customerId": "c04", "city": r["city"], "visits": fmt.Sprint(r["visits"])}
	if objs := objectsOf(t, m); len(objs) != 1 || !reflect.DeepEqual(objs[0], want) {
		t.Errorf("fetchOne with $select: %v, want %v", m, want)
	}
	// A key no object has: 200 and no objects (the client throws "Expected
	// a single result but got 0"), not ObjectNotFound.
	for _, set := range []string{pkFilter("Customer", "customerId", "c99"), pkFilter("Order", "orderId", 4000), pkFilter("Employee", "id", 11)} {
		m := e.ok(t, http.MethodPost, loadPath, clientLoad(set, `,"pageSize":1`))
		if objs := objectsOf(t, m); len(objs) != 0 || m["nextPageToken"] != nil || m["totalCount"] != "0" {
			t.Errorf("%s: %v", set, m)
		}
	}
}

// TestOSDKClient_pages checks that a page that ends the set has no
// nextPageToken, also when it is exactly full, and that asyncIter's pages
// of 10,000 are served.
func TestOSDKClient_pages(t *testing.T) {
	e := mustShopEnv(t)
	rome := `{"type":"filter","objectSet":{"type":"base","objectType":"Customer"},"where":{"type":"eq","field":"city","value":"Rome"}}`
	var want []string
	for _, r := range apidemo.CustomerRows() {
		if r["city"] == "Rome" {
			want = append(want, r["customer_id"].(string))
		}
	}
	if len(want) < 2 {
		t.Fatalf("%d customers in Rome", len(want))
	}
	m := e.ok(t, http.MethodPost, loadPath, clientLoad(rome, fmt.Sprintf(`,"pageSize":%d`, len(want))))
	if got := ids(objectsOf(t, m)); !slices.Equal(got, want) || m["nextPageToken"] != nil {
		t.Errorf("a full last page: %v, want %v and no token", m, want)
	}
	m = e.ok(t, http.MethodPost, loadPath, clientLoad(rome, fmt.Sprintf(`,"pageSize":%d`, len(want)-1)))
	tok, _ := m["nextPageToken"].(string)
	if got := ids(objectsOf(t, m)); !slices.Equal(got, want[:len(want)-1]) || tok == "" {
		t.Fatalf("first page: %v", m)
	}
	m = e.ok(t, http.MethodPost, loadPath, clientLoad(rome, fmt.Sprintf(`,"pageSize":%d,"pageToken":%q`, len(want)-1, tok)))
	if got := ids(objectsOf(t, m)); !slices.Equal(got, want[len(want)-1:]) || m["nextPageToken"] != nil {
		t.Errorf("last page: %v", m)
	}
	// asyncIter.
	body := `{"objectSet":{"type":"base","objectType":"Order"},"select":[],"selectV2":[],"loadPropertySecurities":false,"excludeRid":true,"snapshot":true,"pageSize":10000}`
	m = e.ok(t, http.MethodPost, loadPath, body)
	if objs := objectsOf(t, m); len(objs) != apidemo.Orders || m["nextPageToken"] != nil || m["totalCount"] != fmt.Sprint(apidemo.Orders) {
		t.Errorf("asyncIter page: %d objects, %v", len(objs), m["nextPageToken"])
	}
}

// TestOSDKClient_aggregate checks the two things the client needs of an
// aggregation: metric names echoed as sent (it splits "balance.sum" at the
// dot), and without groupBy exactly one result, also over no objects.
func TestOSDKClient_aggregate(t *testing.T) {
	e := mustShopEnv(t)
	path := ontologyPath + "/objectSets/aggregate"
	metrics := `[{"type":"count","name":"count"},{"type":"sum","name":"balance.sum","field":"balance"},{"type":"max","name":"visits.max","field":"visits"}]`
	names := []string{"count", "balance.sum", "visits.max"}
	rows := apidemo.CustomerRows()
	for _, c := range []struct {
		where string
		keep  func(r map[string]any) bool
	}{
		{`{"type":"eq","field":"vip","value":true}`, func(r map[string]any) bool { return r["vip"] == true }},
		{`{"type":"eq","field":"city","value":"Atlantis"}`, func(r map[string]any) bool { return r["city"] == "Atlantis" }},
	} {
		count := 0
		for _, r := range rows {
			if c.keep(r) {
				count++
			}
		}
		m := e.ok(t, http.MethodPost, path, `{"objectSet":{"type":"filter","objectSet":{"type":"base","objectType":"Customer"},"where":`+c.where+`},"groupBy":[],"aggregation":`+metrics+`}`)
		data := m["data"].([]any)
		if len(data) != 1 {
			t.Fatalf("%s: %d results, want exactly one: %v", c.where, len(data), m)
		}
		item := data[0].(map[string]any)
		var got []string
		for _, x := range item["metrics"].([]any) {
			got = append(got, x.(map[string]any)["name"].(string))
		}
		if g := item["group"].(map[string]any); len(g) != 0 || !slices.Equal(got, names) {
			t.Errorf("%s: group %v, metrics %v", c.where, g, got)
		}
		if got := item["metrics"].([]any)[0].(map[string]any)["value"]; got != json.Number(fmt.Sprint(count)) {
			t.Errorf("%s: count %v, want %d", c.where, got, count)
		}
	}
	m := e.ok(t, http.MethodPost, path, `{"objectSet":{"type":"base","objectType":"Customer"},"groupBy":[{"type":"exact","field":"city"}],"aggregation":`+metrics+`}`)
	for _, d := range m["data"].([]any) {
		item := d.(map[string]any)
		city := item["group"].(map[string]any)["city"]
		n := 0
		for _, r := range rows {
			if r["city"] == city {
				n++
			}
		}
		ms := item["metrics"].([]any)
		if n == 0 || ms[0].(map[string]any)["value"] != json.Number(fmt.Sprint(n)) || ms[1].(map[string]any)["name"] != "balance.sum" {
			t.Errorf("group %v: %v (%d rows)", city, ms, n)
		}
	}
}
