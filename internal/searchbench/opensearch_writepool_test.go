package searchbench

import (
	"reflect"
	"testing"
)

func TestWritePoolOf(t *testing.T) {
	for _, tc := range []struct {
		name    string
		samples []int
		want    *WritePool
	}{
		{"none busy", []int{0, 0}, nil},
		{"no samples", nil, nil},
		{"idle before and after left out", []int{0, 2, 0, 1, 1, 0, 0}, &WritePool{Samples: 4, Idle: 0.25, MeanActive: 1}},
		{"always busy", []int{2, 2}, &WritePool{Samples: 2, Idle: 0, MeanActive: 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := writePoolOf(tc.samples); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("writePoolOf(%v) = %+v, want %+v", tc.samples, got, tc.want)
			}
		})
	}
}
