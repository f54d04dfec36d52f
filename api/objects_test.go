package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ontoindex/ontoindex/internal/testkit/apidemo"
)

func TestOntologies(t *testing.T) {
	e := mustEnv(t)
	want := map[string]any{"apiName": "demo", "displayName": "Demo", "description": "The demo airline", "rid": "ri.ontology.main.ontology.demo"}
	t.Run("list", func(t *testing.T) {
		m := e.ok(t, http.MethodGet, "/api/v2/ontologies", nil)
		if data := m["data"].([]any); len(data) != 1 || !reflect.DeepEqual(data[0], want) {
			t.Fatalf("got %v", m)
		}
	})
	for _, name := range []string{"demo", "ri.ontology.main.ontology.demo"} {
		t.Run("get "+name, func(t *testing.T) {
			if m := e.ok(t, http.MethodGet, "/api/v2/ontologies/"+name, nil); !reflect.DeepEqual(m, want) {
				t.Fatalf("got %v", m)
			}
			e.ok(t, http.MethodGet, "/api/v2/ontologies/"+name+"/objectTypes", nil)
		})
	}
	for _, path := range []string{"/api/v2/ontologies/other", "/api/v2/ontologies/other/objectTypes", "/api/v2/ontologies/other/objects/Employee",
		"/api/v2/ontologies/other/objects/Employee/10", "/api/v2/ontologies/other/objectTypes/Employee"} {
		t.Run("not found "+path, func(t *testing.T) {
			e.fail(t, http.MethodGet, path, nil, 404, "OntologyNotFound")
		})
	}
	e.fail(t, http.MethodPost, "/api/v2/ontologies/other/objectSets/loadObjects", map[string]any{"objectSet": map[string]any{"type": "base", "objectType": "Employee"}}, 404, "OntologyNotFound")
}

func TestObjectTypes(t *testing.T) {
	e := mustEnv(t)
	t.Run("list", func(t *testing.T) {
		m := e.ok(t, http.MethodGet, ontologyPath+"/objectTypes", nil)
		var names []string
		for _, d := range m["data"].([]any) {
			names = append(names, d.(map[string]any)["apiName"].(string))
		}
		if !slices.Equal(names, []string{"Employee", "Assignment", "Ghost"}) {
			t.Fatalf("got %v", names)
		}
		if _, ok := m["nextPageToken"]; ok {
			t.Fatalf("one page has a next page token: %v", m)
		}
	})
	t.Run("paging", func(t *testing.T) {
		m := e.ok(t, http.MethodGet, ontologyPath+"/objectTypes?pageSize=2", nil)
		if len(m["data"].([]any)) != 2 {
			t.Fatalf("got %v", m)
		}
		m = e.ok(t, http.MethodGet, ontologyPath+"/objectTypes?pageSize=2&pageToken="+url.QueryEscape(m["nextPageToken"].(string)), nil)
		if d := m["data"].([]any); len(d) != 1 || d[0].(map[string]any)["apiName"] != "Ghost" {
			t.Fatalf("got %v", m)
		}
		if _, ok := m["nextPageToken"]; ok {
			t.Fatalf("last page has a next page token")
		}
	})
	t.Run("get", func(t *testing.T) {
		m := e.ok(t, http.MethodGet, ontologyPath+"/objectTypes/Employee", nil)
		for k, want := range map[string]any{"apiName": "Employee", "displayName": "Employee", "pluralDisplayName": "Employees", "status": "ACTIVE",
			"primaryKey": "id", "titleProperty": "name", "rid": "ri.ontoindex.main.object-type.Employee", "visibility": "NORMAL",
			"description": "People of the demo airline"} {
			if m[k] != want {
				t.Errorf("%s = %v, want %v", k, m[k], want)
			}
		}
		props := m["properties"].(map[string]any)
		types := map[string]string{"id": `{"type":"long"}`, "name": `{"type":"string"}`, "age": `{"type":"integer"}`,
			"salary": `{"precision":10,"scale":2,"type":"decimal"}`, "rating": `{"type":"double"}`, "hired": `{"type":"date"}`,
			"updated": `{"type":"timestamp"}`, "active": `{"type":"boolean"}`, "tags": `{"reducers":[],"subType":{"type":"string"},"type":"array"}`,
			"big": `{"type":"long"}`, "secret": `{"type":"string"}`}
		for name, want := range types {
			p, ok := props[name].(map[string]any)
			if !ok {
				t.Fatalf("no property %s in %v", name, props)
			}
			if got, _ := json.Marshal(p["dataType"]); string(got) != want {
				t.Errorf("%s dataType %s, want %s", name, got, want)
			}
			if p["rid"] != "ri.ontoindex.main.property.Employee."+name {
				t.Errorf("%s rid %v", name, p["rid"])
			}
		}
		if len(props) != 14 {
			t.Errorf("%d properties, want 14", len(props))
		}
	})
	t.Run("composite key", func(t *testing.T) {
		m := e.ok(t, http.MethodGet, ontologyPath+"/objectTypes/Assignment", nil)
		if m["primaryKey"] != "emp_id" || !reflect.DeepEqual(m["primaryKeyProperties"], []any{"emp_id", "project"}) {
			t.Fatalf("got %v", m)
		}
	})
	t.Run("never built", func(t *testing.T) {
		m := e.ok(t, http.MethodGet, ontologyPath+"/objectTypes/Ghost", nil)
		if m["primaryKey"] != "id" {
			t.Fatalf("got %v", m)
		}
	})
	t.Run("not found", func(t *testing.T) {
		m := e.fail(t, http.MethodGet, ontologyPath+"/objectTypes/Nope", nil, 404, "ObjectTypeNotFound")
		if m["parameters"].(map[string]any)["objectType"] != "Nope" {
			t.Fatalf("got %v", m)
		}
	})
}

func TestObjects_values(t *testing.T) {
	e := mustEnv(t)
	r := e.do(t, http.MethodGet, ontologyPath+"/objects/Employee/10", appToken, nil)
	if r.status != 200 {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	// Longs are JSON strings, as Foundry sends them: JavaScript numbers
	// cannot hold those beyond 2^53 (9007199254740994 parses as ...992).
	if !strings.Contains(string(r.body), `"big":"9007199254740994"`) {
		t.Fatalf("big is not a string of its exact digits: %s", r.body)
	}
	got := r.json(t)
	want := map[string]any{
		"__apiName": "Employee", "__primaryKey": "10", "__title": "Grace Thompson",
		"__rid": got["__rid"], "id": "10", "name": "Grace Thompson", "title": "Junior Pilot", "dept": "Maintenance",
		"age": json.Number("34"), "salary": "41234.01", "rating": json.Number("0.75"), "hired": "2015-02-07",
		"updated": "2024-01-01T03:01:00Z", "active": true, "tags": []any{"senior", "mentor"},
		"bio": apidemo.Bio(1), "big": "9007199254740994", "secret": "s-1",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got\n%v\nwant\n%v", got, want)
	}
	if rid, _ := got["__rid"].(string); !strings.HasPrefix(rid, "ri.ontoindex.main.object.Employee.") {
		t.Fatalf("__rid %v", got["__rid"])
	}
	t.Run("nulls are omitted", func(t *testing.T) {
		m := e.ok(t, http.MethodGet, ontologyPath+"/objects/Employee/110", nil)
		if _, ok := m["age"]; ok {
			t.Fatalf("null age is present: %v", m)
		}
		m = e.ok(t, http.MethodGet, ontologyPath+"/objects/Employee/50", nil)
		if _, ok := m["bio"]; ok {
			t.Fatalf("null bio is present: %v", m)
		}
	})
	t.Run("matches the table", func(t *testing.T) {
		m := e.ok(t, http.MethodGet, ontologyPath+"/objects/Employee?pageSize=100", nil)
		objs := objectsOf(t, m)
		rows := apidemo.EmployeeRows()
		if len(objs) != len(rows) {
			t.Fatalf("%d objects, %d rows", len(objs), len(rows))
		}
		for i, r := range rows {
			o := objs[i]
			for col, v := range r {
				if v == nil {
					if _, ok := o[col]; ok {
						t.Fatalf("row %v: %s is null but the object has %v", r["id"], col, o[col])
					}
					continue
				}
				if got, want := norm(o[col]), norm(v); got != want {
					t.Fatalf("row %v: %s = %s, want %s", r["id"], col, got, want)
				}
			}
		}
	})
}

// norm renders a value for comparison.
func norm(v any) string {
	if ss, ok := v.([]string); ok {
		out := make([]any, len(ss))
		for i, s := range ss {
			out[i] = s
		}
		v = out
	}
	b, _ := json.Marshal(v)
	return strings.Trim(string(b), `"`)
}

func TestObjects_list(t *testing.T) {
	e := mustEnv(t)
	list := ontologyPath + "/objects/Employee"
	t.Run("defaults", func(t *testing.T) {
		m := e.ok(t, http.MethodGet, list, nil)
		if objs := objectsOf(t, m); len(objs) != 48 || m["totalCount"] != "48" || objs[0]["__primaryKey"] != "10" {
			t.Fatalf("got %d objects, totalCount %v", len(objs), m["totalCount"])
		}
		if _, ok := m["nextPageToken"]; ok {
			t.Fatal("single page has a next page token")
		}
	})
	for _, q := range []string{"select=name&select=age", "select=name,age", "properties=name&select=age"} {
		t.Run("select "+q, func(t *testing.T) {
			objs := objectsOf(t, e.ok(t, http.MethodGet, list+"?pageSize=1&"+q, nil))
			var keys []string
			for k := range objs[0] {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			if want := []string{"__apiName", "__primaryKey", "__rid", "__title", "age", "id", "name"}; !slices.Equal(keys, want) {
				t.Fatalf("keys %v, want %v", keys, want)
			}
		})
	}
	t.Run("excludeRid", func(t *testing.T) {
		objs := objectsOf(t, e.ok(t, http.MethodGet, list+"?pageSize=1&excludeRid=true", nil))
		if _, ok := objs[0]["__rid"]; ok {
			t.Fatalf("has __rid: %v", objs[0])
		}
		e.fail(t, http.MethodGet, list+"?excludeRid=maybe", nil, 400, "InvalidParameterValue")
	})
	for _, tt := range []struct{ q, name, message string }{
		{"select=nope", "PropertiesNotFound", "Employee has no property nope; validProperties lists its properties"},
		{"select=name,dpet", "PropertiesNotFound", "Employee has no property dpet; did you mean dept?"},
		{"orderBy=age", "InvalidFields", ""},
		{"orderBy=properties.age:up", "InvalidSortOrder", `the direction of age is "up"; it must be "asc" or "desc"`},
		{"orderBy=p.age,p.age:desc", "DuplicateOrderBy", ""},
		{"orderBy=p.tags", "PropertiesNotSortable", ""},
		{"orderBy=p.secret", "PropertiesNotSortable", ""},
		{"orderBy=p.nope", "PropertiesNotFound", ""},
		{"orderBy=p.salry", "PropertiesNotFound", "did you mean salary?"},
	} {
		t.Run(tt.q, func(t *testing.T) {
			status := 400
			if tt.name == "PropertiesNotFound" {
				status = 404
			}
			m := e.fail(t, http.MethodGet, list+"?"+tt.q, nil, status, tt.name)
			if msg, _ := m["message"].(string); !strings.Contains(msg, tt.message) {
				t.Errorf("message = %q, want it to contain %q", msg, tt.message)
			}
			if tt.name == "PropertiesNotFound" {
				if valid, _ := m["parameters"].(map[string]any)["validProperties"].([]any); !slices.Contains(valid, any("dept")) {
					t.Errorf("validProperties = %v, want the type's properties", valid)
				}
			}
		})
	}
}

func TestObjects_get(t *testing.T) {
	e := mustEnv(t)
	t.Run("select", func(t *testing.T) {
		m := e.ok(t, http.MethodGet, ontologyPath+"/objects/Employee/20?select=dept&excludeRid=true", nil)
		want := map[string]any{"__apiName": "Employee", "__primaryKey": "20", "__title": "Alan Hopper", "id": "20", "dept": "Sales"}
		if !reflect.DeepEqual(m, want) {
			t.Fatalf("got %v", m)
		}
	})
	t.Run("not found", func(t *testing.T) {
		e.fail(t, http.MethodGet, ontologyPath+"/objects/Employee/11", nil, 404, "ObjectNotFound")
	})
	t.Run("bad key", func(t *testing.T) {
		e.fail(t, http.MethodGet, ontologyPath+"/objects/Employee/abc", nil, 400, "InvalidPropertyValue")
	})
	t.Run("composite keys", func(t *testing.T) {
		for _, r := range apidemo.AssignmentRows() {
			project := r["project"].(string)
			key := fmt.Sprintf("%d,%s", r["emp_id"], strings.NewReplacer("%", "%25", ",", "%2C").Replace(project))
			m := e.ok(t, http.MethodGet, ontologyPath+"/objects/Assignment/"+url.PathEscape(key), nil)
			if m["__primaryKey"] != key || m["project"] != project || m["emp_id"] != fmt.Sprint(r["emp_id"]) {
				t.Fatalf("key %q: got %v", key, m)
			}
		}
		e.fail(t, http.MethodGet, ontologyPath+"/objects/Assignment/10", nil, 400, "InvalidPropertyValue")
		e.fail(t, http.MethodGet, ontologyPath+"/objects/Assignment/"+url.PathEscape("10,Nope"), nil, 404, "ObjectNotFound")
	})
	t.Run("composite keys in listings", func(t *testing.T) {
		objs := objectsOf(t, e.ok(t, http.MethodGet, ontologyPath+"/objects/Assignment", nil))
		var keys []string
		for _, o := range objs {
			keys = append(keys, o["__primaryKey"].(string))
		}
		if !slices.Contains(keys, "10,R&D%2C phase 1") || !slices.Contains(keys, "20,100%25 uptime") {
			t.Fatalf("keys %v", keys)
		}
	})
}

func TestObjects_count(t *testing.T) {
	e := mustEnv(t)
	if m := e.ok(t, http.MethodPost, ontologyPath+"/objects/Employee/count", nil); m["count"] != json.Number("48") {
		t.Fatalf("got %v", m)
	}
	if m := e.ok(t, http.MethodPost, ontologyPath+"/objects/Assignment/count", "{}"); m["count"] != json.Number(fmt.Sprint(len(apidemo.AssignmentRows()))) {
		t.Fatalf("got %v", m)
	}
}

func TestObjects_typeErrors(t *testing.T) {
	e := mustEnv(t)
	set := func(typ string) map[string]any {
		return map[string]any{"objectSet": map[string]any{"type": "base", "objectType": typ}}
	}
	endpoints := []struct {
		method, path string
		body         any
	}{
		{http.MethodGet, "/objects/%s", nil},
		{http.MethodGet, "/objects/%s/1", nil},
		{http.MethodPost, "/objects/%s/search", "{}"},
		{http.MethodPost, "/objects/%s/count", nil},
		{http.MethodPost, "/objects/%s/aggregate", map[string]any{"aggregation": []any{map[string]any{"type": "count"}}, "groupBy": []any{}}},
	}
	for _, ep := range endpoints {
		t.Run("not synced "+ep.method+ep.path, func(t *testing.T) {
			m := e.fail(t, ep.method, ontologyPath+fmt.Sprintf(ep.path, "Ghost"), ep.body, 409, "ObjectTypeNotSynced")
			if msg, _ := m["message"].(string); m["errorCode"] != "CONFLICT" || !strings.HasPrefix(msg, "ObjectTypeNotSynced: Ghost has no build to serve yet: ") {
				t.Fatalf("got %v", m)
			}
		})
		t.Run("not found "+ep.method+ep.path, func(t *testing.T) {
			e.fail(t, ep.method, ontologyPath+fmt.Sprintf(ep.path, "Nope"), ep.body, 404, "ObjectTypeNotFound")
		})
	}
	e.fail(t, http.MethodPost, ontologyPath+"/objectSets/loadObjects", set("Ghost"), 409, "ObjectTypeNotSynced")
	e.fail(t, http.MethodPost, ontologyPath+"/objectSets/loadObjects", set("Nope"), 404, "ObjectTypeNotFound")
}

func TestRequests_errors(t *testing.T) {
	e := mustEnv(t)
	search := ontologyPath + "/objects/Employee/search"
	e.fail(t, http.MethodPost, search, nil, 400, "MissingPostBody")
	e.fail(t, http.MethodPost, search, "{", 400, "MalformedRequestBody")
	e.fail(t, http.MethodPost, search, `{"wher":{}}`, 400, "MalformedRequestBody")
	e.fail(t, http.MethodPost, search, `{"pageSize":"ten"}`, 400, "InvalidPageSize")
	e.fail(t, http.MethodPost, search, `{"select":"name"}`, 400, "MalformedRequestBody")
	e.fail(t, http.MethodPost, search, `{} {}`, 400, "MalformedRequestBody")
	e.fail(t, http.MethodPost, search, map[string]any{"select": []string{"nope"}}, 404, "PropertiesNotFound")
	e.fail(t, http.MethodPost, search, map[string]any{"orderBy": map[string]any{"orderType": "score", "fields": []any{}}}, 400, "InvalidOrderType")
	e.fail(t, http.MethodPost, search, map[string]any{"orderBy": orderBody("age:sideways")}, 400, "InvalidSortOrder")
	e.fail(t, http.MethodPost, search, map[string]any{"orderBy": orderBody("age", "name", "age:desc")}, 400, "DuplicateOrderBy")
	e.fail(t, http.MethodPost, search, map[string]any{"orderBy": orderBody("bio", "tags")}, 400, "PropertiesNotSortable")
	e.fail(t, http.MethodGet, "/api/v2/nothing", nil, 404, "ApiNotFound")
	e.fail(t, http.MethodDelete, ontologyPath+"/objects/Employee/10", nil, 405, "MethodNotAllowed") // more in TestRequests_methods

	t.Run("selectV2", func(t *testing.T) {
		objs, _ := e.search(t, "Employee", map[string]any{"pageSize": 1, "selectV2": []any{map[string]any{"type": "property", "apiName": "dept"}}})
		if _, ok := objs[0]["name"]; ok || objs[0]["dept"] == nil {
			t.Fatalf("got %v", objs[0])
		}
	})
}
