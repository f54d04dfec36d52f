package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/internal/testkit/apidemo"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
	"github.com/ontoindex/ontoindex/objects"
)

// mustStoreEnv is mustEnv with apidemo's Store served too: a struct
// property (address) over a real Iceberg struct column.
func mustStoreEnv(tb testing.TB) *testEnv {
	tb.Helper()
	ctx := context.Background()
	stores := func(cfg *config.Config) {
		w, err := icebergtest.NewWarehouse(cfg.Catalogs["warehouse"].Properties["warehouse"])
		if err != nil {
			tb.Fatal(err)
		}
		if err := apidemo.CreateStores(ctx, w); err != nil {
			tb.Fatal(err)
		}
		cfg.ObjectTypes = append(cfg.ObjectTypes, apidemo.StoreSpecs("warehouse")...)
	}
	e := mustEnv(tb, stores)
	if _, err := e.ix.Build(ctx, "Store", indexer.BuildOptions{}); err != nil {
		tb.Fatalf("build Store: %v", err)
	}
	return e
}

// jsonOf decodes a JSON text as the responses are decoded (numbers as
// json.Number).
func jsonOf(tb testing.TB, s string) any {
	tb.Helper()
	return response{body: []byte(`{"v":` + s + `}`)}.json(tb)["v"]
}

func TestStruct_objects(t *testing.T) {
	e := mustStoreEnv(t)
	want := map[string]string{
		"s1": `{"area":12.5,"city":"Lyon","opened":"2020-02-10","street":"1 Main Street","zip":10111}`,
		"s3": ``,                                                                         // a null struct: no address key
		"s5": `{"area":62.5,"opened":"2020-07-19","street":"5 Main Street","zip":10555}`, // a null field: no key
		"s7": `{"area":87.5,"city":"Lyon","opened":"2020-10-07","street":"7 Main Street"}`,
	}
	// One object is read from the store, a page from the index's columns:
	// both write the struct the same way.
	page, _ := e.search(t, "Store", map[string]any{"pageSize": 100})
	for id, w := range want {
		got := e.ok(t, http.MethodGet, ontologyPath+"/objects/Store/"+id, nil)
		i := slices.IndexFunc(page, func(o map[string]any) bool { return o["__primaryKey"] == id })
		if i < 0 {
			t.Fatalf("%s not in the page", id)
		}
		for from, o := range map[string]map[string]any{"get": got, "search": page[i]} {
			address, ok := o["address"]
			if w == "" {
				if ok {
					t.Errorf("%s (%s): address = %v, want none", id, from, address)
				}
				continue
			}
			if !reflect.DeepEqual(address, jsonOf(t, w)) {
				t.Errorf("%s (%s): address = %v, want %s", id, from, address, w)
			}
			for k := range o {
				if k != "address" && len(k) > 7 && k[:8] == "address." {
					t.Errorf("%s (%s): hidden property %s shown", id, from, k)
				}
			}
		}
	}
}

func TestStruct_metadata(t *testing.T) {
	e := mustStoreEnv(t)
	m := e.ok(t, http.MethodGet, ontologyPath+"/objectTypes/Store", nil)
	props := m["properties"].(map[string]any)
	if len(props) != 3 {
		t.Fatalf("properties = %v, want storeId, name and address", props)
	}
	dt := props["address"].(map[string]any)["dataType"].(map[string]any)
	if dt["type"] != "struct" {
		t.Fatalf("address dataType = %v", dt)
	}
	var fields []string
	for _, f := range dt["structFieldTypes"].([]any) {
		fm := f.(map[string]any)
		fields = append(fields, fm["apiName"].(string)+":"+fm["dataType"].(map[string]any)["type"].(string))
		if fm["rid"] == "" || fm["typeClasses"] == nil {
			t.Errorf("field %v lacks rid or typeClasses", fm)
		}
	}
	if want := []string{"street:string", "city:string", "zip:integer", "opened:date", "area:double"}; !slices.Equal(fields, want) {
		t.Errorf("fields = %v, want %v", fields, want)
	}
}

// field is a structField property identifier of address.
func field(name string) string {
	return `{"type":"structField","propertyApiName":"address","structFieldApiName":"` + name + `"}`
}

func TestStruct_where(t *testing.T) {
	e := mustStoreEnv(t)
	tests := []struct {
		name, where string
		want        []string
	}{
		{"eq", `{"type":"eq","propertyIdentifier":` + field("city") + `,"value":"Paris"}`, []string{"s6"}},
		{"eq by dotted field", `{"type":"eq","field":"address.city","value":"Berlin"}`, []string{"s2", "s8"}},
		{"not eq", `{"type":"not","value":{"type":"eq","propertyIdentifier":` + field("city") + `,"value":"Lyon"}}`, []string{"s2", "s3", "s5", "s6", "s8"}},
		{"gt integer", `{"type":"gt","propertyIdentifier":` + field("zip") + `,"value":10555}`, []string{"s6", "s8"}},
		{"lte double", `{"type":"lte","propertyIdentifier":` + field("area") + `,"value":25}`, []string{"s1", "s2"}},
		{"gte date", `{"type":"gte","propertyIdentifier":` + field("opened") + `,"value":"2020-09-01"}`, []string{"s7", "s8"}},
		{"in", `{"type":"in","propertyIdentifier":` + field("zip") + `,"value":[10111,10444,1]}`, []string{"s1", "s4"}},
		{"field isNull", `{"type":"isNull","propertyIdentifier":` + field("city") + `,"value":true}`, []string{"s3", "s5"}},
		{"field not null", `{"type":"isNull","propertyIdentifier":` + field("zip") + `,"value":false}`, []string{"s1", "s2", "s4", "s5", "s6", "s8"}},
		{"struct isNull", `{"type":"isNull","field":"address","value":true}`, []string{"s3"}},
		{"startsWith", `{"type":"startsWith","propertyIdentifier":` + field("street") + `,"value":"4 Ma"}`, []string{"s4"}},
		{"containsAllTerms", `{"type":"containsAllTerms","propertyIdentifier":` + field("street") + `,"value":"main 2"}`, []string{"s2"}},
		{"and with a property", `{"type":"and","value":[{"type":"eq","propertyIdentifier":` + field("city") + `,"value":"Lyon"},{"type":"eq","field":"name","value":"Store 4"}]}`, []string{"s4"}},
		{"load level", `{"type":"eq","propertyIdentifier":{"type":"propertyWithLoadLevel","propertyIdentifier":` + field("city") + `},"value":"Paris"}`, []string{"s6"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, _ := e.search(t, "Store", map[string]any{"where": where(tt.where), "pageSize": 100})
			got := ids(objs)
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("ids = %v, want %v", got, tt.want)
			}
		})
	}
	failures := []struct {
		name, where string
		status      int
		error       string
	}{
		{"eq on the struct", `{"type":"eq","field":"address","value":"x"}`, 400, "PropertiesNotSearchable"},
		{"unknown field", `{"type":"eq","propertyIdentifier":` + field("country") + `,"value":"x"}`, 404, "PropertiesNotFound"},
		{"no field name", `{"type":"eq","propertyIdentifier":{"type":"structField","propertyApiName":"address"},"value":"x"}`, 400, "MalformedPropertyFilters"},
		{"wrong value type", `{"type":"eq","propertyIdentifier":` + field("zip") + `,"value":"x"}`, 400, "InvalidPropertyFilterValue"},
	}
	for _, tt := range failures {
		t.Run(tt.name, func(t *testing.T) {
			e.fail(t, http.MethodPost, ontologyPath+"/objects/Store/search", map[string]any{"where": where(tt.where)}, tt.status, tt.error)
		})
	}
}

func TestStruct_orderAndAggregate(t *testing.T) {
	e := mustStoreEnv(t)
	objs, _ := e.search(t, "Store", map[string]any{"orderBy": map[string]any{"fields": []any{map[string]any{"field": "address.zip", "direction": "desc"}}}, "pageSize": 3})
	if got := ids(objs); !slices.Equal(got, []string{"s8", "s6", "s5"}) {
		t.Errorf("ordered by zip desc: %v", got)
	}
	m := e.ok(t, http.MethodPost, ontologyPath+"/objectSets/aggregate", map[string]any{
		"objectSet": map[string]any{"type": "base", "objectType": "Store"},
		"groupBy":   []any{json.RawMessage(`{"type":"exact","propertyIdentifier":` + field("city") + `}`)},
		"aggregation": []any{json.RawMessage(`{"type":"max","propertyIdentifier":` + field("zip") + `,"name":"maxZip"}`),
			json.RawMessage(`{"type":"count","name":"n"}`)},
	})
	got := map[string]string{}
	for _, g := range m["data"].([]any) {
		gm := g.(map[string]any)
		var city any
		for _, v := range gm["group"].(map[string]any) {
			city = v
		}
		var max, n any
		for _, mv := range gm["metrics"].([]any) {
			mm := mv.(map[string]any)
			switch mm["name"] {
			case "maxZip":
				max = mm["value"]
			case "n":
				n = mm["value"]
			}
		}
		got[jsonText(city)] = jsonText(max) + "/" + jsonText(n)
	}
	want := map[string]string{`"Lyon"`: "10444/3", `"Berlin"`: "10888/2", `"Paris"`: "10666/1"} // nulls form no group
	if !reflect.DeepEqual(got, want) {
		t.Errorf("groups = %v, want %v", got, want)
	}
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestStruct_incremental changes a field, nulls a struct and fills one in
// copy-on-write commits: the incremental build upserts exactly the changed
// objects, and the API answers with the new values.
func TestStruct_incremental(t *testing.T) {
	ctx := context.Background()
	e := mustStoreEnv(t)
	w, err := icebergtest.NewWarehouse(e.cfg.Catalogs["warehouse"].Properties["warehouse"])
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := w.LoadTable(ctx, "demo.stores")
	if err != nil {
		t.Fatal(err)
	}
	rows := apidemo.StoreRows()
	moved := rows[1] // s2: Berlin to Rome
	moved["address"].(map[string]any)["city"] = "Rome"
	closed := rows[3] // s4: no address any more
	closed["address"] = nil
	found := rows[2] // s3: an address at last
	found["address"] = map[string]any{"city": "Paris", "zip": 75001}
	same := rows[0] // s1: rewritten unchanged
	in := iceberg.IsIn(iceberg.Reference("store_id"), "s1", "s2", "s3", "s4")
	if err := tbl.Overwrite(ctx, in, []icebergtest.Row{same, moved, found, closed}); err != nil {
		t.Fatal(err)
	}
	res, err := e.ix.Build(ctx, "Store", indexer.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Kind != indexer.KindIncremental || res.Upserts != 3 || res.Deletes != 0 {
		t.Fatalf("build = %s, %d upserts, %d deletes; want incremental, 3 upserts (s1 is unchanged)", res.Kind, res.Upserts, res.Deletes)
	}
	for _, tt := range []struct{ where, want string }{
		{`{"type":"eq","propertyIdentifier":` + field("city") + `,"value":"Rome"}`, "s2"},
		{`{"type":"eq","propertyIdentifier":` + field("zip") + `,"value":75001}`, "s3"},
		{`{"type":"isNull","field":"address","value":true}`, "s4"},
	} {
		objs, _ := e.search(t, "Store", map[string]any{"where": where(tt.where)})
		if got := ids(objs); !slices.Equal(got, []string{tt.want}) {
			t.Errorf("%s: %v, want %s", tt.where, got, tt.want)
		}
	}
	got := e.ok(t, http.MethodGet, ontologyPath+"/objects/Store/s3", nil)["address"]
	if !reflect.DeepEqual(got, jsonOf(t, `{"city":"Paris","zip":75001}`)) {
		t.Errorf("s3 address = %v", got)
	}
}

// TestStruct_nestedRefused builds types over a real table whose structs
// nest a struct, a list and a map: each mapped one fails the build with
// an error naming the column and the field; left to the defaults, the
// columns are skipped and the struct of scalars is kept.
func TestStruct_nestedRefused(t *testing.T) {
	ctx := context.Background()
	sc := iceberg.NewSchemaWithIdentifiers(1, []int{1},
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "geo", Type: &iceberg.StructType{FieldList: []iceberg.NestedField{
			{ID: 3, Name: "point", Type: &iceberg.StructType{FieldList: []iceberg.NestedField{{ID: 4, Name: "x", Type: iceberg.PrimitiveTypes.Float64}}}},
		}}},
		iceberg.NestedField{ID: 5, Name: "labels", Type: &iceberg.StructType{FieldList: []iceberg.NestedField{
			{ID: 6, Name: "names", Type: &iceberg.ListType{ElementID: 7, Element: iceberg.PrimitiveTypes.String}},
		}}},
		iceberg.NestedField{ID: 8, Name: "attrs", Type: &iceberg.StructType{FieldList: []iceberg.NestedField{
			{ID: 9, Name: "extra", Type: &iceberg.MapType{KeyID: 10, KeyType: iceberg.PrimitiveTypes.String, ValueID: 11, ValueType: iceberg.PrimitiveTypes.String}},
		}}},
		iceberg.NestedField{ID: 12, Name: "place", Type: &iceberg.StructType{FieldList: []iceberg.NestedField{
			{ID: 13, Name: "city", Type: iceberg.PrimitiveTypes.String},
		}}},
	)
	mapped := func(name, column string) objects.TypeSpec {
		return objects.TypeSpec{APIName: name, Table: "warehouse.demo.nested",
			Properties: map[string]objects.PropertySpec{"id": {Column: "id"}, column: {Column: column}}}
	}
	e := mustEnv(t, func(cfg *config.Config) {
		w, err := icebergtest.NewWarehouse(cfg.Catalogs["warehouse"].Properties["warehouse"])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.WriteTable(ctx, "demo.nested", sc, nil, []icebergtest.Row{{"id": int64(1), "place": map[string]any{"city": "Rome"}}}); err != nil {
			t.Fatal(err)
		}
		cfg.ObjectTypes = append(cfg.ObjectTypes, mapped("Geo", "geo"), mapped("Labels", "labels"), mapped("Attrs", "attrs"),
			objects.TypeSpec{APIName: "Nested", Table: "warehouse.demo.nested"})
	})
	for _, tt := range []struct{ typ, want string }{
		{"Geo", `Geo.properties.geo.column: column "geo" is a struct whose field "point" is a struct (struct fields must be scalars`},
		{"Labels", `Labels.properties.labels.column: column "labels" is a struct whose field "names" is a list`},
		{"Attrs", `Attrs.properties.attrs.column: column "attrs" is a struct whose field "extra" is a map`},
	} {
		t.Run(tt.typ, func(t *testing.T) {
			_, err := e.ix.Build(ctx, tt.typ, indexer.BuildOptions{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want one containing %q", err, tt.want)
			}
		})
	}
	if _, err := e.ix.Build(ctx, "Nested", indexer.BuildOptions{}); err != nil {
		t.Fatal(err)
	}
	o := e.ok(t, http.MethodGet, ontologyPath+"/objects/Nested/1", nil)
	if _, ok := o["geo"]; ok || !reflect.DeepEqual(o["place"], map[string]any{"city": "Rome"}) {
		t.Errorf("defaulted Nested = %v, want place only", o)
	}
}

func TestStruct_select(t *testing.T) {
	e := mustStoreEnv(t)
	for _, tt := range []struct {
		name string
		body map[string]any
		want string
	}{
		{"the struct", map[string]any{"select": []string{"address"}}, `{"area":12.5,"city":"Lyon","opened":"2020-02-10","street":"1 Main Street","zip":10111}`},
		{"fields", map[string]any{"selectV2": []any{json.RawMessage(field("city")), json.RawMessage(field("zip"))}}, `{"city":"Lyon","zip":10111}`},
		{"a dotted field", map[string]any{"select": []string{"address.street"}}, `{"street":"1 Main Street"}`},
		{"another property", map[string]any{"select": []string{"name"}}, ``},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.body["where"] = where(`{"type":"eq","field":"storeId","value":"s1"}`)
			objs, _ := e.search(t, "Store", tt.body)
			if len(objs) != 1 {
				t.Fatalf("objects = %v", objs)
			}
			address, ok := objs[0]["address"]
			if tt.want == "" {
				if ok {
					t.Errorf("address = %v, want none", address)
				}
				return
			}
			if !reflect.DeepEqual(address, jsonOf(t, tt.want)) {
				t.Errorf("address = %v, want %s", address, tt.want)
			}
		})
	}
}
