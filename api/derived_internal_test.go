package api

import (
	"testing"
	"time"

	"github.com/ontoindex/ontoindex/api/wire"
	"github.com/ontoindex/ontoindex/objects"
)

func TestCompute(t *testing.T) {
	long, double := objects.DataType{Kind: objects.KindLong}, objects.DataType{Kind: objects.KindDouble}
	date := objects.DataType{Kind: objects.KindDate}
	integer := objects.DataType{Kind: objects.KindInteger}
	d1, d2 := objects.Date(19000), objects.Date(19500) // 2022-01-08, 2023-05-23
	ts := time.Date(2024, 11, 5, 23, 30, 0, 0, time.FixedZone("x", -2*3600))
	tests := []struct {
		name string
		kind string
		typ  objects.DataType
		part string
		args []any
		want any
	}{
		{"add longs", wire.DerivedAdd, long, "", []any{int64(2), int64(3), int64(4)}, int64(9)},
		{"add doubles", wire.DerivedAdd, double, "", []any{int64(2), 0.5}, 2.5},
		{"add with a null", wire.DerivedAdd, long, "", []any{int64(2), nil}, nil},
		{"subtract", wire.DerivedSubtract, long, "", []any{int64(2), int64(5)}, int64(-3)},
		{"multiply", wire.DerivedMultiply, double, "", []any{1.5, int64(4)}, 6.0},
		{"divide", wire.DerivedDivide, double, "", []any{int64(7), int64(2)}, 3.5},
		{"divide by zero", wire.DerivedDivide, double, "", []any{int64(7), int64(0)}, nil},
		{"negate", wire.DerivedNegate, long, "", []any{int64(7)}, int64(-7)},
		{"absolute value", wire.DerivedAbsolute, double, "", []any{-2.5}, 2.5},
		{"least skips nulls", wire.DerivedLeast, long, "", []any{nil, int64(4), int64(-1)}, int64(-1)},
		{"greatest of mixed numbers", wire.DerivedGreatest, double, "", []any{int64(4), 4.5}, 4.5},
		{"greatest of dates", wire.DerivedGreatest, date, "", []any{d1, d2}, d2},
		{"least of nulls", wire.DerivedLeast, long, "", []any{nil, nil}, nil},
		{"extract years of a date", wire.DerivedExtract, integer, "YEARS", []any{d2}, int64(2023)},
		{"extract months of a date", wire.DerivedExtract, integer, "MONTHS", []any{d2}, int64(5)},
		{"extract days in UTC", wire.DerivedExtract, integer, "DAYS", []any{ts}, int64(6)},
		{"extract quarters", wire.DerivedExtract, integer, "QUARTERS", []any{ts}, int64(4)},
		{"extract of a null", wire.DerivedExtract, integer, "YEARS", []any{nil}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			def := &wire.DerivedDef{Kind: tc.kind, Type: tc.typ, Part: tc.part}
			if got := compute(def, tc.args); got != tc.want {
				t.Fatalf("compute = %v (%T), want %v (%T)", got, got, tc.want, tc.want)
			}
		})
	}
}

func TestAccumulator_result(t *testing.T) {
	vals := []any{3.0, nil, 1.0, 3.0, 2.0}
	tests := []struct {
		op         string
		limit      int
		percentile float64
		want       any
	}{
		{op: "count", want: int64(5)},
		{op: "sum", want: 9.0},
		{op: "avg", want: 2.25},
		{op: "min", want: 1.0},
		{op: "max", want: 3.0},
		{op: "exactDistinct", want: int64(3)},
		{op: "approximateDistinct", want: int64(3)},
		// Nearest rank of 1, 2, 3, 3, as the engine's metric: ceil(p*4).
		{op: "approximatePercentile", percentile: 0, want: 1.0},
		{op: "approximatePercentile", percentile: 0.3, want: 2.0},
		{op: "approximatePercentile", percentile: 0.5, want: 2.0},
		{op: "approximatePercentile", percentile: 0.75, want: 3.0},
		{op: "approximatePercentile", percentile: 1, want: 3.0},
		{op: "collectList", limit: 3, want: "[3 1 3]"},
		{op: "collectSet", limit: 5, want: "[3 1 2]"},
	}
	for _, tc := range tests {
		t.Run(tc.op, func(t *testing.T) {
			def := &wire.DerivedDef{Op: tc.op, Limit: tc.limit, Percentile: tc.percentile}
			var a accumulator
			for _, v := range vals {
				if tc.op == "count" {
					a.add(def, nil)
					continue
				}
				a.add(def, v)
			}
			got := a.result(def)
			if list, ok := got.([]any); ok {
				if s := sprint(list); s != tc.want {
					t.Fatalf("%s = %s, want %v", tc.op, s, tc.want)
				}
				return
			}
			if got != tc.want {
				t.Fatalf("%s = %v, want %v", tc.op, got, tc.want)
			}
		})
	}
	t.Run("no values", func(t *testing.T) {
		for _, op := range []string{"sum", "avg", "min", "max", "approximatePercentile"} {
			var a accumulator
			if got := a.result(&wire.DerivedDef{Op: op}); got != nil {
				t.Fatalf("%s of nothing = %v, want null", op, got)
			}
		}
	})
}

func sprint(list []any) string {
	s := "["
	for i, v := range list {
		if i > 0 {
			s += " "
		}
		s += objects.TextOf(v)
	}
	return s + "]"
}
