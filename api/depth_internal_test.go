package api

import (
	"errors"
	"strings"
	"testing"

	"github.com/ontoindex/ontoindex/api/wire"
)

func TestExcessAt(t *testing.T) {
	for _, tc := range []struct {
		body  string
		limit int
		want  int
	}{
		{`{"a":[1,{"b":2}]}`, 3, -1},
		{`{"a":[1,{"b":2}]}`, 2, 8},
		{`{"a":"[[[[{{{{"}`, 1, -1},         // brackets in strings do not nest
		{`{"a":"\"[[[[","b":[[1]]}`, 2, 19}, // nor after an escaped quote
		{`{"a":"\\","b":[[1]]}`, 2, 15},     // an escaped backslash ends nothing
		{`]]]]{"a":[1]}`, 1, -1},            // stray closers only lower the count
		{strings.Repeat("[", 50), 49, 49},
	} {
		if got := excessAt([]byte(tc.body), tc.limit); got != tc.want {
			t.Errorf("excessAt(%s, %d) = %d, want %d", tc.body, tc.limit, got, tc.want)
		}
	}
}

// TestCheckDepth_jsonLimit checks a server whose where limit admits more
// JSON levels than encoding/json reads: the body is refused as too deep,
// naming both limits, never as invalid JSON.
func TestCheckDepth_jsonLimit(t *testing.T) {
	body := `{"where":` + strings.Repeat(`{"type":"and","value":[`, 5999) + `{}` + strings.Repeat(`]}`, 5999) + `}`
	var ae *wire.Error
	if err := checkDepth([]byte(body), 6000); !errors.As(err, &ae) || ae.Name != wire.NameWhereClauseTooComplex ||
		!strings.Contains(ae.Params["reason"].(string), "10000 levels") || ae.Params["maxDepth"] != 6000 {
		t.Fatalf("got %v", err)
	}
	if err := checkDepth([]byte(`{"where":`+strings.Repeat(`{"type":"not","value":`, 4000)+`{}`+strings.Repeat(`}`, 4000)+`}`), 6000); err != nil {
		t.Fatalf("4000 levels under a limit of 6000: %v", err)
	}
}
