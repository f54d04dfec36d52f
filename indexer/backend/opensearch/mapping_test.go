package opensearch

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/ontoindex/ontoindex/objects"
)

func TestMapping(t *testing.T) {
	m := Mapping(flightType())
	if m["dynamic"] != "strict" {
		t.Errorf("dynamic = %v, want strict", m["dynamic"])
	}
	props := m["properties"].(map[string]any)
	disabled := map[string]any{"type": "object", "enabled": false}
	tests := []struct {
		field string
		want  map[string]any
	}{
		{keyField, map[string]any{"type": "keyword"}},
		{nullsField, map[string]any{"type": "keyword"}},
		{"id", map[string]any{"type": "keyword"}},
		{"name", map[string]any{"type": "text", "analyzer": textAnalyzer, "fields": map[string]any{"keyword": map[string]any{"type": "keyword", "ignore_above": textIgnoreAbove}}}},
		{"seats", map[string]any{"type": "long"}},
		{"gate", map[string]any{"type": "integer"}},
		{"fare", map[string]any{"type": "double", "fields": map[string]any{"exact": map[string]any{"type": "keyword"}}}},
		{"delay", map[string]any{"type": "double"}},
		{"onTime", map[string]any{"type": "boolean"}},
		{"day", map[string]any{"type": "date", "format": "strict_date"}},
		{"departs", map[string]any{"type": "date", "format": "strict_date_optional_time"}},
		{"ref", map[string]any{"type": "keyword"}},
		{"loc", map[string]any{"type": "geo_point"}},  // indexed whatever the role
		{"area", map[string]any{"type": "geo_shape"}}, // indexed whatever the role
		{"tags", map[string]any{"type": "keyword"}},   // a list maps as its element
		{"note", disabled},
		{"crew", map[string]any{"type": "object", "dynamic": "strict", "properties": map[string]any{
			presentField: map[string]any{"type": "boolean"},
			"captain":    map[string]any{"type": "keyword"},
			"size":       map[string]any{"type": "long"},
		}}},
	}
	for _, tt := range tests {
		t.Run(tt.field, func(t *testing.T) {
			if got := props[tt.field]; !reflect.DeepEqual(got, tt.want) {
				t.Errorf("mapping of %s = %v, want %v", tt.field, got, tt.want)
			}
		})
	}
	if _, ok := props["crew.captain"]; ok {
		t.Error("a struct field is mapped at the top level too")
	}
	if len(props) != len(tests) {
		t.Errorf("%d mapped fields, want %d: %v", len(props), len(tests), props)
	}
}

func TestFieldMapping_kinds(t *testing.T) {
	kind := func(k objects.Kind, role objects.SearchRole) objects.Property {
		return objects.Property{APIName: "p", Type: objects.DataType{Kind: k}, Search: role}
	}
	tests := []struct {
		name string
		p    objects.Property
		want string
	}{
		{"float", kind(objects.KindFloat, objects.SearchNumeric), "float"},
		{"time as keyword", kind(objects.KindTime, objects.SearchKeyword), "keyword"},
		{"long as keyword", kind(objects.KindLong, objects.SearchKeyword), "long"},
		{"date as keyword", kind(objects.KindDate, objects.SearchKeyword), "date"},
		{"uuid as keyword", kind(objects.KindUUID, objects.SearchKeyword), "keyword"},
		{"timestamp", kind(objects.KindTimestamp, objects.SearchDate), "date"},
		{"geopoint searchable", kind(objects.KindGeoPoint, objects.SearchKeyword), "geo_point"},
		{"geopoint", objects.Property{Type: objects.DataType{Kind: objects.KindGeoPoint}, Search: "geo"}, "geo_point"},
		{"geoshape", objects.Property{Type: objects.DataType{Kind: objects.KindGeoShape}, Search: "geo"}, "geo_shape"},
		{"vector", objects.Property{Type: objects.DataType{Kind: objects.KindVector, Dimension: 3}, Search: "geo"}, "object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := FieldMapping(tt.p)
			if got := m["type"]; got != tt.want {
				t.Errorf("type = %v, want %s", got, tt.want)
			}
			fields, _ := m["fields"].(map[string]any)
			if _, text := fields[keywordTextField]; text != (tt.p.Search == objects.SearchKeyword && tt.want != "keyword" && tt.want != "geo_point") {
				t.Errorf("mapping %v: text sub-field %v", m, text)
			}
		})
	}
}

func TestDocument(t *testing.T) {
	typ := flightType()
	r := rand.New(rand.NewPCG(1, 2))
	for n := range 200 {
		o := randomFlight(r, n)
		id := objects.DocID(key(typ, o))
		raw, err := Document(typ, id, o)
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]any
		if err := json.Unmarshal(raw, &got); err != nil {
			t.Fatal(err)
		}
		// The document is the API's JSON of the object (objects.Type.JSON)
		// without its __ fields, with the struct's presence, the key, and
		// the apiNames of the null properties in property order.
		api := typ.JSON(o)
		want := map[string]any{keyField: id}
		var nulls []any
		for i, p := range typ.Properties {
			if o.Values[i] == nil {
				nulls = append(nulls, p.APIName)
			}
		}
		if nulls != nil {
			want[nullsField] = nulls
		}
		for k, v := range api {
			if k[:2] != "__" {
				want[k] = v
			}
		}
		if crew, ok := want["crew"].(map[string]any); ok {
			crew[presentField] = true
		}
		wantRaw, _ := json.Marshal(want)
		var wantJSON map[string]any
		_ = json.Unmarshal(wantRaw, &wantJSON)
		if !reflect.DeepEqual(got, wantJSON) {
			t.Fatalf("document of flight %d:\n got %s\nwant %s", n, raw, wantRaw)
		}
	}
}

func TestIndexBody(t *testing.T) {
	body := IndexBody(flightType(), Options{Shards: 2, Replicas: 1}.withDefaults())
	settings := body["settings"].(map[string]any)["index"].(map[string]any)
	if settings["number_of_shards"] != 2 || settings["number_of_replicas"] != 1 || settings["gc_deletes"] != "86400000ms" {
		t.Errorf("settings = %v", settings)
	}
}

func TestErrorProperty(t *testing.T) {
	tests := []struct {
		reasons []string
		want    string
	}{
		{[]string{"failed to parse field [delay] of type [double] in document with id 'X'. Preview of field's value: 'NaN'"}, "delay"},
		{[]string{"", "failed to parse field [crew.size] of type [long] in document"}, "crew.size"},
		{[]string{"failed to parse field [crew.$present] of type [boolean]"}, "crew"},
		{[]string{"mapping set to strict, dynamic introduction of [extra] within [_doc] is not allowed"}, "extra"},
		{[]string{"mapping set to strict, dynamic introduction of [rank] within [crew] is not allowed"}, "crew.rank"},
		{[]string{`Document contains at least one immense term in field="tags" (whose UTF8 encoding is longer than the max length 32766)`}, "tags"},
		{[]string{"something else", ""}, ""},
	}
	for _, tt := range tests {
		if got := errorProperty(tt.reasons...); got != tt.want {
			t.Errorf("errorProperty(%q) = %q, want %q", tt.reasons, got, tt.want)
		}
	}
}

func TestAppendString(t *testing.T) {
	for _, s := range []string{"", "plain", `quo"te`, `back\slash`, "tab\tnew\nline", "\x00\x1f", "héllo wörld ✈", "bad \xff utf8", "\u2028", "<&>"} {
		var got string
		if err := json.Unmarshal(appendString(nil, s), &got); err != nil {
			t.Errorf("appendString(%q) is no JSON string: %v", s, err)
			continue
		}
		want, _ := json.Marshal(s)
		var wantS string
		_ = json.Unmarshal(want, &wantS)
		if got != wantS {
			t.Errorf("appendString(%q) reads back %q, want %q", s, got, wantS)
		}
	}
}

func TestWriter_encode(t *testing.T) {
	typ := flightType()
	w := (&Cluster{opts: Options{IndexPrefix: "x-"}}).Writer(typ)
	r := rand.New(rand.NewPCG(3, 3))
	o := randomFlight(r, 42)
	o.Values[pName] = "say \"hi\"\n\\ ✈"
	k := key(typ, o)
	for _, tt := range []struct {
		name   string
		change Change
		action string
	}{{"upsert", Change{Key: k, Object: o}, "index"}, {"delete", Change{Key: k}, "delete"}} {
		t.Run(tt.name, func(t *testing.T) {
			b, err := w.encode(tt.change, 1234567890123)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
			var action map[string]map[string]any
			if err := json.Unmarshal([]byte(lines[0]), &action); err != nil {
				t.Fatalf("action line %s: %v", lines[0], err)
			}
			want := map[string]any{"_id": objects.DocID(k), "version": float64(1234567890123), "version_type": "external"}
			if !reflect.DeepEqual(action[tt.action], want) || len(action) != 1 {
				t.Errorf("action %v, want %s: %v", action, tt.action, want)
			}
			if wantLines := map[string]int{"index": 2, "delete": 1}[tt.action]; len(lines) != wantLines {
				t.Fatalf("%d lines, want %d: %s", len(lines), wantLines, b)
			}
			if tt.action == "index" {
				var doc map[string]any
				if err := json.Unmarshal([]byte(lines[1]), &doc); err != nil || doc["name"] != o.Values[pName] {
					t.Errorf("document %s (%v), want the name %q", lines[1], err, o.Values[pName])
				}
			}
		})
	}
}

// TestDocument_negativeZero: -0 is written as a double, whose sign
// OpenSearch keeps (it reads -0 as the integer 0).
func TestDocument_negativeZero(t *testing.T) {
	typ := flightType()
	o := &objects.Object{Values: make([]any, pCount)}
	o.Values[pID], o.Values[pDelay] = "F1", math.Copysign(0, -1)
	raw, err := Document(typ, "x", o)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), `"delay":-0.0`) {
		t.Errorf("document %s, want delay -0.0", raw)
	}
}
