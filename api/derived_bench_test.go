package api_test

import (
	"net/http"
	"testing"
)

// BenchmarkDerived_topCustomers is the bench's derived row in process: the
// count and sum of each customer's orders, the top 100 by the sum.
func BenchmarkDerived_topCustomers(b *testing.B) {
	e := mustSizedLinksEnv(b, 1, 20_000, 20_000)
	body := map[string]any{"objectSet": withProps(baseSet("Customer"), map[string]any{
		"n":     sel(pivot("orders"), "count"),
		"total": sel(pivot("orders"), "sum", "selectedPropertyApiName", "amount"),
	}), "orderBy": map[string]any{"fields": []any{map[string]any{"field": "total", "direction": "desc"}}}, "pageSize": 100}
	for b.Loop() {
		e.ok(b, http.MethodPost, ontologyPath+"/objectSets/loadObjects", body)
	}
}
