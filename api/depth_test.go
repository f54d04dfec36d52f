package api_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// TestLimits_deepBodies sends where clauses and object sets nested from
// just past server.maxWhereDepth to far beyond encoding/json's own limit
// of 10,000 levels: every one is refused as too deep, naming the limit,
// and valid JSON is never called invalid. Syntax errors stay syntax
// errors.
func TestLimits_deepBodies(t *testing.T) {
	e := mustEnv(t) // server.maxWhereDepth 32, maxBodyBytes 1 MiB
	search := ontologyPath + "/objects/Employee/search"
	const baseSet = `{"type":"base","objectType":"Employee"}`
	ands := func(n int) string { return wrap(n, `{"type":"and","value":[`, wSales, `]}`) }
	filters := func(n int) string { return wrap(n, `{"type":"filter","objectSet":`, baseSet, `,"where":`+wSales+`}`) }
	unions := func(n int) string { return wrap(n, `{"type":"union","objectSets":[`, baseSet, `]}`) }
	tooDeep := func(t *testing.T, path, body string) {
		t.Helper()
		m := e.fail(t, http.MethodPost, path, body, 400, "WhereClauseTooComplex")
		if p := m["parameters"].(map[string]any); fmt.Sprint(p["maxDepth"]) != "32" || !strings.Contains(m["message"].(string), "32 levels") {
			t.Fatalf("%s: the error does not name the limit: %v", path, m)
		}
	}
	for _, depth := range []int{33, 50, 5000, 10_000, 20_000} {
		t.Run(fmt.Sprint(depth), func(t *testing.T) {
			tooDeep(t, search, `{"where":`+nested(depth)+`}`)
			tooDeep(t, search, `{"where":`+ands(depth)+`}`)
			tooDeep(t, ontologyPath+"/objects/Employee/aggregate", `{"aggregation":[],"groupBy":[],"where":`+nested(depth)+`}`)
			tooDeep(t, ontologyPath+"/objectSets/loadObjects", `{"objectSet":`+unions(depth)+`}`)
			if depth <= 10_000 { // deeper filters are larger than the body limit
				tooDeep(t, ontologyPath+"/objectSets/loadObjects", `{"objectSet":`+filters(depth)+`}`)
				tooDeep(t, ontologyPath+"/objectSets/aggregate", `{"aggregation":[{"type":"count"}],"groupBy":[],"objectSet":`+filters(depth)+`}`)
			}
		})
	}
	// A value nested deep is valid JSON too deep to read.
	deepValue := strings.Repeat("[", 12_000) + strings.Repeat("]", 12_000)
	tooDeep(t, search, `{"where":{"type":"eq","field":"dept","value":`+deepValue+`}}`)
	// Syntax errors found before the depth limit are syntax errors.
	for _, body := range []string{
		`{"where":` + nested(5) + `,}`,
		`{"where":{"type":"in","field":"dept","value":["Sales" "Research"` + deepValue + `]}}`,
		`{"where":` + strings.Repeat(`{"type":"not","value":`, 40) + `nope` + strings.Repeat("}", 40) + `}`,
	} {
		m := e.fail(t, http.MethodPost, search, body, 400, "MalformedRequestBody")
		if !strings.Contains(m["message"].(string), "invalid JSON at offset") {
			t.Fatalf("%.60s: %v", body, m)
		}
	}
	e.ok(t, http.MethodPost, search, `{"where":`+nested(32)+`}`)
	e.ok(t, http.MethodPost, search, `{"where":`+ands(32)+`}`)
}
