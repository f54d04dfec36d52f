package icebergwrite_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/ontoindex/ontoindex/internal/icebergwrite"
)

// placesSchema has a struct column of scalar fields, one of them required.
func placesSchema() *iceberg.Schema {
	return iceberg.NewSchemaWithIdentifiers(1, []int{1},
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "address", Type: &iceberg.StructType{FieldList: []iceberg.NestedField{
			{ID: 3, Name: "city", Type: iceberg.PrimitiveTypes.String, Required: true},
			{ID: 4, Name: "zip", Type: iceberg.PrimitiveTypes.Int32},
		}}},
	)
}

func TestAppend_struct(t *testing.T) {
	ctx := context.Background()
	tbl, err := icebergwrite.CreateTable(ctx, mustCatalog(t), "shop.places", placesSchema())
	if err != nil {
		t.Fatal(err)
	}
	tbl, err = icebergwrite.Append(ctx, tbl, icebergwrite.Values(
		[]any{int64(1), map[string]any{"city": "Paris", "zip": 75001}},
		[]any{int64(2), map[string]any{"city": "Lyon"}}, // a missing field is null
		[]any{int64(3), nil}, // a null struct
	))
	if err != nil {
		t.Fatal(err)
	}
	want := []map[string]any{
		{"id": float64(1), "address": map[string]any{"city": "Paris", "zip": float64(75001)}},
		{"id": float64(2), "address": map[string]any{"city": "Lyon", "zip": nil}},
		{"id": float64(3), "address": nil},
	}
	if got := mustRows(t, tbl); !reflect.DeepEqual(got, want) {
		t.Fatalf("rows = %v, want %v", got, want)
	}

	tests := []struct {
		name, want string
		row        []any
	}{
		{"not a map", "want map[string]any", []any{int64(4), "Paris"}},
		{"unknown field", `no field "street"`, []any{int64(4), map[string]any{"city": "Paris", "street": "x"}}},
		{"null required field", "field city: null in a required field", []any{int64(4), map[string]any{"zip": 1}}},
		{"field of the wrong type", "field zip: cannot take", []any{int64(4), map[string]any{"city": "Paris", "zip": "x"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := icebergwrite.Append(ctx, tbl, icebergwrite.Values(tc.row))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one containing %q", err, tc.want)
			}
		})
	}
}
