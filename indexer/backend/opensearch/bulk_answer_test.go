package opensearch

import (
	"encoding/json"
	"testing"
)

// TestBulkAnswer_UnmarshalJSON: an answer without failures is counted,
// not decoded; one with failures, or one that does not say, is decoded
// item by item.
func TestBulkAnswer_UnmarshalJSON(t *testing.T) {
	tests := []struct {
		name        string
		answer      string
		count       int
		decoded     bool
		firstStatus int // of the first decoded item
	}{
		{"no failures", `{"errors":false,"items":[{"index":{"status":201}},{"delete":{"status":404}},{"index":{"status":200}}]}`, 3, false, 0},
		{"a conflict", `{"errors":true,"items":[{"index":{"status":409,"error":{"type":"version_conflict_engine_exception","reason":"status"}}},{"index":{"status":201}}]}`, 2, true, 409},
		{"no errors flag", `{"items":[{"index":{"status":429}}]}`, 1, true, 429},
		{"no items", `{"errors":false}`, 0, false, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var a bulkAnswer
			if err := json.Unmarshal([]byte(tc.answer), &a); err != nil {
				t.Fatal(err)
			}
			if a.Count != tc.count || a.decoded() != tc.decoded {
				t.Fatalf("count %d, decoded %v; want %d, %v", a.Count, a.decoded(), tc.count, tc.decoded)
			}
			if tc.decoded && a.Items[0]["index"].Status != tc.firstStatus {
				t.Errorf("first item %+v, want status %d", a.Items[0], tc.firstStatus)
			}
		})
	}
}
