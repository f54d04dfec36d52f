package objects

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// structColumns has a struct of scalars (address) and structs holding a
// nested struct (geo) and a list (labels).
func structColumns() []Column {
	return []Column{
		{Name: "id", FieldID: 1, Type: DataType{Kind: KindLong}, Required: true},
		{Name: "address", FieldID: 2, Type: DataType{Kind: KindStruct}, Fields: []Column{
			{Name: "city", FieldID: 3, Type: DataType{Kind: KindString}},
			{Name: "zip", FieldID: 4, Type: DataType{Kind: KindInteger}},
			{Name: "since", FieldID: 5, Type: DataType{Kind: KindDate}},
		}},
		{Name: "geo", FieldID: 6, Type: DataType{Kind: KindStruct}, Fields: []Column{
			{Name: "point", FieldID: 7, Type: DataType{Kind: KindStruct}, Fields: []Column{{Name: "x", FieldID: 8, Type: DataType{Kind: KindDouble}}}},
		}},
		{Name: "labels", FieldID: 9, Type: DataType{Kind: KindStruct}, Fields: []Column{
			{Name: "names", FieldID: 10, Type: DataType{Kind: KindList, Elem: &DataType{Kind: KindString}}},
		}},
		{Name: "odd", FieldID: 11, Type: DataType{Kind: KindStruct}, Fields: []Column{
			{Name: "bin", FieldID: 12, Unsupported: "binary"},
		}},
	}
}

func TestTypeSpec_Resolve_struct(t *testing.T) {
	tests := []struct {
		name    string
		spec    TypeSpec
		wantErr string // substring; empty = success
		check   func(t *testing.T, typ *Type)
	}{
		{name: "defaults take the struct of scalars only", spec: TypeSpec{APIName: "Store", Table: "w.s.t"},
			check: func(t *testing.T, typ *Type) {
				var names []string
				for _, p := range typ.Properties {
					names = append(names, p.APIName)
				}
				if got := strings.Join(names, " "); got != "id address address.city address.zip address.since" {
					t.Errorf("properties = %s", got)
				}
			}},
		{name: "mapped struct", spec: TypeSpec{APIName: "Store", Table: "w.s.t", PrimaryKey: []string{"id"},
			Properties: map[string]PropertySpec{"id": {Column: "id"}, "place": {Column: "address", DisplayName: "Place"}}},
			check: func(t *testing.T, typ *Type) {
				i := typ.PropertyIndex("place")
				p := typ.Properties[i]
				if p.Type.Kind != KindStruct || p.Search != SearchNone || p.Hidden() || p.DisplayName != "Place" {
					t.Errorf("struct property = %+v", p)
				}
				fields := typ.StructFields(i)
				if len(fields) != 3 {
					t.Fatalf("fields = %v", fields)
				}
				city := typ.Properties[fields[0]]
				if city.APIName != "place.city" || city.Struct != "place" || city.Field != "city" || city.Column != "address" ||
					city.FieldID != 3 || city.Search != SearchText || !city.Hidden() {
					t.Errorf("city = %+v", city)
				}
				if zip := typ.Properties[fields[1]]; zip.Search != SearchNumeric || zip.Type.Kind != KindInteger {
					t.Errorf("zip = %+v", zip)
				}
				if cols := typ.Columns(); strings.Join(cols, ",") != "id,address" {
					t.Errorf("columns = %v", cols)
				}
			}},
		{name: "search none", spec: TypeSpec{APIName: "Store", Table: "w.s.t", PrimaryKey: []string{"id"},
			Properties: map[string]PropertySpec{"id": {Column: "id"}, "address": {Column: "address", Search: SearchNone}}},
			check: func(t *testing.T, typ *Type) {
				for _, p := range typ.Properties[1:] {
					if p.Search != SearchNone {
						t.Errorf("%s role = %s", p.APIName, p.Search)
					}
				}
			}},
		{name: "other role", spec: TypeSpec{APIName: "Store", Table: "w.s.t", PrimaryKey: []string{"id"},
			Properties: map[string]PropertySpec{"id": {Column: "id"}, "address": {Column: "address", Search: SearchKeyword}}},
			wantErr: `Store.properties.address.search: search role keyword does not fit struct column "address"`},
		{name: "nested struct", spec: TypeSpec{APIName: "Store", Table: "w.s.t", PrimaryKey: []string{"id"},
			Properties: map[string]PropertySpec{"id": {Column: "id"}, "geo": {Column: "geo"}}},
			wantErr: `Store.properties.geo.column: column "geo" is a struct whose field "point" is a struct (struct fields must be scalars`},
		{name: "list in a struct", spec: TypeSpec{APIName: "Store", Table: "w.s.t", PrimaryKey: []string{"id"},
			Properties: map[string]PropertySpec{"id": {Column: "id"}, "labels": {Column: "labels"}}},
			wantErr: `Store.properties.labels.column: column "labels" is a struct whose field "names" is a list`},
		{name: "unsupported field", spec: TypeSpec{APIName: "Store", Table: "w.s.t", PrimaryKey: []string{"id"},
			Properties: map[string]PropertySpec{"id": {Column: "id"}, "odd": {Column: "odd"}}},
			wantErr: `column "odd" is a struct whose field "bin" is binary`},
		{name: "struct key", spec: TypeSpec{APIName: "Store", Table: "w.s.t", PrimaryKey: []string{"address"}},
			wantErr: `column "address" of type struct cannot be part of a primary key`},
		{name: "struct title", spec: TypeSpec{APIName: "Store", Table: "w.s.t", PrimaryKey: []string{"id"}, TitleProperty: "address"},
			wantErr: `Store.titleProperty: "address" is a struct`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			typ, err := tt.spec.Resolve(structColumns(), []string{"id"})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
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

// TestConverter_Row_struct reads a struct column: a null struct, null
// fields, and a sliced batch (the fields' offsets follow the struct's).
func TestConverter_Row_struct(t *testing.T) {
	typ, err := (&TypeSpec{APIName: "Store", Table: "w.s.t", PrimaryKey: []string{"id"}}).Resolve(structColumns()[:2], nil)
	if err != nil {
		t.Fatal(err)
	}
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "address", Nullable: true, Type: arrow.StructOf(
			arrow.Field{Name: "city", Type: arrow.BinaryTypes.String, Nullable: true},
			arrow.Field{Name: "zip", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
			arrow.Field{Name: "since", Type: arrow.FixedWidthTypes.Date32, Nullable: true})},
	}, nil)
	js := `[{"id": 0, "address": {"city": "skipped", "zip": 0, "since": null}},
	        {"id": 1, "address": {"city": "Paris", "zip": 75001, "since": "2020-01-02"}},
	        {"id": 2, "address": {"city": null, "zip": 69001, "since": null}},
	        {"id": 3, "address": null}]`
	rec, _, err := array.RecordFromJSON(memory.DefaultAllocator, sc, strings.NewReader(js))
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	sliced := rec.NewSlice(1, 4)
	defer sliced.Release()
	conv, err := NewConverter(typ, sliced.Schema())
	if err != nil {
		t.Fatal(err)
	}
	b, err := conv.Bind(sliced)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`{"__apiName":"Store","__primaryKey":1,"__title":"1","address":{"city":"Paris","since":"2020-01-02","zip":75001},"id":1}`,
		`{"__apiName":"Store","__primaryKey":2,"__title":"2","address":{"zip":69001},"id":2}`,
		`{"__apiName":"Store","__primaryKey":3,"__title":"3","id":3}`,
	}
	for i := range b.Len() {
		var o Object
		if err := b.Row(i, &o); err != nil {
			t.Fatal(err)
		}
		got, err := json.Marshal(typ.JSON(&o))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want[i] {
			t.Errorf("row %d = %s\nwant     %s", i, got, want[i])
		}
		enc, err := o.Encode(nil)
		if err != nil {
			t.Fatal(err)
		}
		back, err := DecodeObject(enc)
		if err != nil {
			t.Fatal(err)
		}
		if again, _ := json.Marshal(typ.JSON(back)); string(again) != want[i] {
			t.Errorf("row %d after the store = %s", i, again)
		}
	}
}
