package jsonid_test

import (
	"encoding/json"
	"testing"

	"github.com/ontoindex/ontoindex/internal/jsonid"
)

func TestInt64(t *testing.T) {
	const big = 372056263949486138 // above 2^53: a double would round it to ...140
	tests := []struct {
		in   string
		want int64
		err  bool
	}{
		{`"372056263949486138"`, big, false},
		{`372056263949486138`, big, false}, // as earlier releases wrote it
		{`"-9223372036854775808"`, -9223372036854775808, false},
		{`0`, 0, false},
		{`null`, 7, false}, // left as it was
		{`"9223372036854775808"`, 0, true},
		{`1.5`, 0, true},
		{`"abc"`, 0, true},
		{`""`, 0, true},
		{`true`, 0, true},
	}
	for _, tt := range tests {
		n := jsonid.Int64(7)
		err := json.Unmarshal([]byte(tt.in), &n)
		if (err != nil) != tt.err {
			t.Errorf("%s: err = %v, want error %v", tt.in, err, tt.err)
			continue
		}
		if err == nil && int64(n) != tt.want {
			t.Errorf("%s: %d, want %d", tt.in, n, tt.want)
		}
	}
}
