package objects

import (
	"errors"
	"strings"
	"testing"
)

func testColumns() []Column {
	return []Column{
		{Name: "customer_id", FieldID: 1, Type: DataType{Kind: KindLong}, Required: true},
		{Name: "name", FieldID: 2, Type: DataType{Kind: KindString}},
		{Name: "tags", FieldID: 3, Type: DataType{Kind: KindList, Elem: &DataType{Kind: KindString}}},
		{Name: "attributes", FieldID: 4, Unsupported: "a map"},
		{Name: "balance", FieldID: 5, Type: DataType{Kind: KindDecimal, Precision: 12, Scale: 2}},
		{Name: "signup", FieldID: 6, Type: DataType{Kind: KindDate}},
	}
}

func TestTypeSpec_Resolve(t *testing.T) {
	tests := []struct {
		name    string
		spec    TypeSpec
		ident   []string
		wantErr string // substring; empty = success
		notErr  string // a substring the error must not hold
		check   func(t *testing.T, typ *Type)
	}{
		{name: "defaults", spec: TypeSpec{APIName: "Customer", Table: "w.s.c"}, ident: []string{"customer_id"},
			check: func(t *testing.T, typ *Type) {
				if len(typ.Properties) != 5 { // the map column is skipped
					t.Errorf("properties = %v", typ.Properties)
				}
				if typ.PrimaryKey[0] != "customer_id" || typ.TitleProperty != "customer_id" || typ.Properties[0].APIName != "customer_id" {
					t.Errorf("key %v title %s", typ.PrimaryKey, typ.TitleProperty)
				}
				if p, _ := typ.Property("name"); p.Search != SearchText {
					t.Errorf("name role = %s", p.Search)
				}
				if p, _ := typ.Property("balance"); p.Search != SearchNumeric {
					t.Errorf("balance role = %s", p.Search)
				}
				if typ.OnInvalidRow != InvalidRowSkip || typ.PluralDisplayName != "Customer" {
					t.Errorf("defaults: %+v", typ)
				}
			}},
		{name: "explicit", spec: TypeSpec{APIName: "Customer", Table: "w.s.c", PrimaryKey: []string{"customer_id"}, TitleProperty: "fullName",
			Properties: map[string]PropertySpec{"customerId": {Column: "customer_id"}, "fullName": {Column: "name", Search: SearchKeyword}}},
			check: func(t *testing.T, typ *Type) {
				if typ.PrimaryKey[0] != "customerId" || len(typ.Properties) != 2 || typ.TitleProperty != "fullName" {
					t.Errorf("type = %+v", typ)
				}
			}},
		{name: "no key anywhere", spec: TypeSpec{APIName: "C", Table: "w.s.c"}, wantErr: "C.primaryKey: is not set and table w.s.c has no identifier fields"},
		{name: "missing column", spec: TypeSpec{APIName: "C", Table: "w.s.c", PrimaryKey: []string{"customer_id"},
			Properties: map[string]PropertySpec{"id": {Column: "customer_id"}, "city": {Column: "city"}}}, wantErr: `C.properties.city.column: table w.s.c has no column "city"`, notErr: "did you mean"},
		{name: "misspelled column", spec: TypeSpec{APIName: "C", Table: "w.s.c", PrimaryKey: []string{"customer_id"},
			Properties: map[string]PropertySpec{"id": {Column: "customer_id"}, "name": {Column: "nmae"}}}, wantErr: `C.properties.name.column: table w.s.c has no column "nmae" (did you mean "name"?)`},
		{name: "misspelled key column", spec: TypeSpec{APIName: "C", Table: "w.s.c", PrimaryKey: []string{"customerid"}},
			wantErr: `C.primaryKey: table w.s.c has no column "customerid" (did you mean "customer_id"?)`},
		{name: "map column mapped", spec: TypeSpec{APIName: "C", Table: "w.s.c", PrimaryKey: []string{"customer_id"},
			Properties: map[string]PropertySpec{"id": {Column: "customer_id"}, "attrs": {Column: "attributes"}}}, wantErr: `column "attributes" of table w.s.c is a map`},
		{name: "role does not fit", spec: TypeSpec{APIName: "C", Table: "w.s.c", PrimaryKey: []string{"customer_id"},
			Properties: map[string]PropertySpec{"id": {Column: "customer_id"}, "n": {Column: "name", Search: SearchNumeric}}}, wantErr: "search role numeric does not fit"},
		{name: "key not mapped", spec: TypeSpec{APIName: "C", Table: "w.s.c", PrimaryKey: []string{"customer_id"},
			Properties: map[string]PropertySpec{"n": {Column: "name"}}}, wantErr: `column "customer_id" is not mapped by any property`},
		{name: "list key", spec: TypeSpec{APIName: "C", Table: "w.s.c", PrimaryKey: []string{"tags"}}, wantErr: "cannot be part of a primary key"},
		{name: "bad title", spec: TypeSpec{APIName: "C", Table: "w.s.c", PrimaryKey: []string{"customer_id"}, TitleProperty: "nope"}, wantErr: `C.titleProperty: "nope" is not a property`},
		{name: "misspelled title", spec: TypeSpec{APIName: "C", Table: "w.s.c", PrimaryKey: []string{"customer_id"}, TitleProperty: "nmae"},
			wantErr: `C.titleProperty: "nmae" is not a property of C (did you mean "name"?)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			typ, err := tt.spec.Resolve(testColumns(), tt.ident)
			if tt.wantErr != "" {
				var fe *FieldError
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.As(err, &fe) {
					t.Fatalf("err = %v, want a FieldError containing %q", err, tt.wantErr)
				}
				if tt.notErr != "" && strings.Contains(err.Error(), tt.notErr) {
					t.Errorf("err = %v, want no %q", err, tt.notErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, typ)
		})
	}
}

func TestTypeSpec_Validate(t *testing.T) {
	tests := []struct {
		spec TypeSpec
		want string
	}{
		{TypeSpec{Table: "a.b.c"}, "objectTypes[0].apiName: is required"},
		{TypeSpec{APIName: "9x", Table: "a.b.c"}, "objectTypes[0].apiName"},
		{TypeSpec{APIName: "X", Table: "a.b"}, "objectTypes[0].table"},
		{TypeSpec{APIName: "X", Table: "a.b.c", OnInvalidRow: "ignore"}, "objectTypes[0].onInvalidRow"},
		{TypeSpec{APIName: "X", Table: "a.b.c", ReadMode: "append"}, `objectTypes[0].readMode: "append" must be changelog or appendOnly`},
		{TypeSpec{APIName: "X", Table: "a.b.c", MergeOnRead: "apply"}, `objectTypes[0].mergeOnRead: "apply" must be refuse or index`},
		{TypeSpec{APIName: "X", Table: "a.b.c", MergeOnRead: MergeOnReadIndex, ReadMode: ReadModeAppendOnly}, "objectTypes[0].mergeOnRead: index needs readMode changelog"},
		{TypeSpec{APIName: "X", Table: "a.b.c", Properties: map[string]PropertySpec{"p": {}}}, "objectTypes[0].properties.p.column: is required"},
		{TypeSpec{APIName: "X", Table: "a.b.c", Properties: map[string]PropertySpec{"p": {Column: "c", Search: "fuzzy"}}}, "objectTypes[0].properties.p.search"},
		{TypeSpec{APIName: "X", Table: "a.b.c", Properties: map[string]PropertySpec{"__p": {Column: "c"}}}, "reserved"},
		{TypeSpec{APIName: "X", Table: "a.b.c", Properties: map[string]PropertySpec{"p": {Column: "c", Type: "point"}}},
			`objectTypes[0].properties.p.type: "point" must be geopoint, geoshape or vector`},
	}
	for _, tt := range tests {
		err := tt.spec.Validate("objectTypes[0]")
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Validate(%+v) = %v, want %q", tt.spec, err, tt.want)
		}
	}
	for _, policy := range []MergeOnReadPolicy{"", MergeOnReadRefuse, MergeOnReadIndex} {
		if err := (&TypeSpec{APIName: "Ok", Table: "a.b.c", MergeOnRead: policy}).Validate("x"); err != nil {
			t.Errorf("valid spec (mergeOnRead %q): %v", policy, err)
		}
	}
}

func TestType_MappingHash(t *testing.T) {
	spec := TypeSpec{APIName: "C", Table: "w.s.c", PrimaryKey: []string{"customer_id"}}
	a, _ := spec.Resolve(testColumns(), nil)
	cols := testColumns()
	cols[0].Type = DataType{Kind: KindLong} // same
	cols[4].Type.Precision = 20             // a widened decimal
	b, _ := spec.Resolve(cols, nil)
	if a.MappingHash() != b.MappingHash() {
		t.Error("type promotion changed the mapping hash")
	}
	spec.TitleProperty = "name"
	c, _ := spec.Resolve(testColumns(), nil)
	if a.MappingHash() == c.MappingHash() {
		t.Error("title change kept the mapping hash")
	}
}
