package objects

import (
	"encoding/json"
	"slices"
	"sync"
	"testing"
)

// testTypes returns one type made each way a Type is made, all with the
// properties of testColumns, key first.
func testTypes(t *testing.T) map[string]*Type {
	t.Helper()
	resolved, err := (&TypeSpec{APIName: "Customer", Table: "w.s.c"}).Resolve(testColumns(), []string{"customer_id"})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(resolved)
	if err != nil {
		t.Fatal(err)
	}
	var decoded Type
	if err := json.Unmarshal(raw, &decoded); err != nil {
		t.Fatal(err)
	}
	literal := &Type{APIName: resolved.APIName, PrimaryKey: resolved.PrimaryKey, TitleProperty: resolved.TitleProperty,
		Properties: resolved.Properties}
	return map[string]*Type{
		"resolved": resolved,
		"decoded":  &decoded,
		"NewType":  NewType(*literal),
		"literal":  literal,
	}
}

func TestType_PropertyIndex(t *testing.T) {
	for how, typ := range testTypes(t) {
		t.Run(how, func(t *testing.T) {
			if indexed := typ.byName != nil; indexed != (how != "literal") {
				t.Errorf("index built: %v", indexed)
			}
			tests := []struct {
				name string
				want int
			}{
				{"customer_id", 0},
				{"name", 1},
				{"signup", 4},
				{"address", -1}, // an unsupported column is no property
				{"Name", -1},
				{"", -1},
			}
			for _, tt := range tests {
				got := typ.PropertyIndex(tt.name)
				p, ok := typ.Property(tt.name)
				if got != tt.want || ok != (tt.want >= 0) || ok && p.APIName != tt.name {
					t.Errorf("%q: PropertyIndex %d, Property %v %v; want %d", tt.name, got, p.APIName, ok, tt.want)
				}
			}
			if ki, ti := typ.KeyIndexes(), typ.TitleIndex(); len(ki) != 1 || ki[0] != 0 || ti != 0 {
				t.Errorf("KeyIndexes %v, TitleIndex %d", ki, ti)
			}
		})
	}
}

// TestType_Property_concurrent looks properties up from many goroutines at
// once, as the requests sharing a type do; under -race it fails if a
// lookup writes to the type.
func TestType_Property_concurrent(t *testing.T) {
	for how, typ := range testTypes(t) {
		t.Run(how, func(t *testing.T) {
			var wg sync.WaitGroup
			for range 16 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for range 100 {
						for _, p := range []string{"customer_id", "name", "tags", "balance", "signup", "nope"} {
							typ.Property(p)
							typ.PropertyIndex(p)
						}
						typ.KeyIndexes()
						typ.TitleIndex()
						typ.KeyHash()
					}
				}()
			}
			wg.Wait()
		})
	}
}

// TestType_UnmarshalJSON checks that decoding replaces the index of a type
// decoded into twice, so that it follows the properties.
func TestType_UnmarshalJSON(t *testing.T) {
	var typ Type
	for _, tt := range []struct {
		json string
		name string
		want int
	}{
		{`{"properties": [{"apiName": "a"}, {"apiName": "b"}]}`, "b", 1},
		{`{"properties": [{"apiName": "b"}]}`, "b", 0},
		{`{"properties": [{"apiName": "c"}]}`, "b", -1},
	} {
		if err := json.Unmarshal([]byte(tt.json), &typ); err != nil {
			t.Fatal(err)
		}
		if got := typ.PropertyIndex(tt.name); got != tt.want {
			t.Errorf("%s: PropertyIndex(%q) = %d, want %d", tt.json, tt.name, got, tt.want)
		}
	}
	if err := json.Unmarshal([]byte(`{"properties": 1}`), &typ); err == nil {
		t.Error("bad JSON decoded")
	}
}

// kindFacts is what each kind is, for the Kind method tests; every kind is
// in it, so that a new kind has to be placed.
var kindFacts = []struct {
	kind     Kind
	numeric  bool
	dateLike bool
	role     SearchRole // DefaultRole of the kind
}{
	{KindInvalid, false, false, SearchNone},
	{KindBoolean, false, false, SearchBoolean},
	{KindInteger, true, false, SearchNumeric},
	{KindLong, true, false, SearchNumeric},
	{KindFloat, true, false, SearchNumeric},
	{KindDouble, true, false, SearchNumeric},
	{KindDecimal, true, false, SearchNumeric},
	{KindString, false, false, SearchText},
	{KindUUID, false, false, SearchKeyword},
	{KindDate, false, true, SearchDate},
	{KindTime, false, false, SearchKeyword},
	{KindTimestamp, false, true, SearchDate},
	{KindTimestampTZ, false, true, SearchDate},
	{KindList, false, false, SearchNone},   // a list of nothing; its elements have the facts
	{KindStruct, false, false, SearchNone}, // its fields have the facts
	{KindGeoPoint, false, false, SearchNone},
	{KindGeoShape, false, false, SearchNone},
	{KindVector, false, false, SearchNone},
}

func TestKind_facts(t *testing.T) {
	if len(kindFacts) != len(kindNames) {
		t.Fatalf("kindFacts has %d kinds, kindNames %d", len(kindFacts), len(kindNames))
	}
	for i, tt := range kindFacts {
		if tt.kind != Kind(i) {
			t.Fatalf("kindFacts[%d] is %s", i, tt.kind)
		}
	}
}

func TestKind_Numeric(t *testing.T) {
	for _, tt := range kindFacts {
		t.Run(tt.kind.String(), func(t *testing.T) {
			if got := tt.kind.Numeric(); got != tt.numeric {
				t.Errorf("Numeric() = %v, want %v", got, tt.numeric)
			}
		})
	}
}

func TestKind_DateLike(t *testing.T) {
	for _, tt := range kindFacts {
		t.Run(tt.kind.String(), func(t *testing.T) {
			if got := tt.kind.DateLike(); got != tt.dateLike {
				t.Errorf("DateLike() = %v, want %v", got, tt.dateLike)
			}
		})
	}
}

func TestDefaultRole(t *testing.T) {
	for _, tt := range kindFacts {
		t.Run(tt.kind.String(), func(t *testing.T) {
			dt := DataType{Kind: tt.kind}
			if got := DefaultRole(dt); got != tt.role {
				t.Errorf("DefaultRole(%s) = %s, want %s", dt, got, tt.role)
			}
			if tt.kind == KindList {
				return
			}
			// A list takes the role of its elements, and every kind may
			// take its default role.
			if got := DefaultRole(DataType{Kind: KindList, Elem: &dt}); got != tt.role {
				t.Errorf("DefaultRole(list<%s>) = %s, want %s", dt, got, tt.role)
			}
			if !slices.Contains(rolesFor(dt), tt.role) {
				t.Errorf("rolesFor(%s) = %v lacks %s", dt, rolesFor(dt), tt.role)
			}
		})
	}
}

func TestDataType_Equal(t *testing.T) {
	long, str := DataType{Kind: KindLong}, DataType{Kind: KindString}
	list := func(e DataType) DataType { return DataType{Kind: KindList, Elem: &e} }
	for _, tc := range []struct {
		name string
		a, b DataType
		want bool
	}{
		{"same primitive", long, DataType{Kind: KindLong}, true},
		{"other primitive", long, str, false},
		{"decimal scale", DataType{Kind: KindDecimal, Precision: 10, Scale: 2}, DataType{Kind: KindDecimal, Precision: 10, Scale: 3}, false},
		{"lists of one element type, two pointers", list(long), list(DataType{Kind: KindLong}), true},
		{"lists of two element types", list(long), list(str), false},
		{"list without element", DataType{Kind: KindList}, list(long), false},
		{"vector dimension", DataType{Kind: KindVector, Dimension: 3}, DataType{Kind: KindVector, Dimension: 4}, false},
		{"vector similarity", DataType{Kind: KindVector, Dimension: 3, Similarity: "cosine"}, DataType{Kind: KindVector, Dimension: 3, Similarity: "euclidean"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.a.Equal(tc.b); got != tc.want {
				t.Errorf("%v.Equal(%v) = %v, want %v", tc.a, tc.b, got, tc.want)
			}
			if got := tc.b.Equal(tc.a); got != tc.want {
				t.Errorf("%v.Equal(%v) = %v, want %v", tc.b, tc.a, got, tc.want)
			}
		})
	}
}
