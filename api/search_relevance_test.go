package api_test

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"testing"

	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
)

func TestSearch_interval(t *testing.T) {
	e := mustEnv(t)
	none := func(icebergtest.Row) bool { return false }
	for _, tt := range []struct {
		name, rule string
		want       func(icebergtest.Row) bool
	}{
		{"match ordered", `{"type":"match","query":"north atlantic","ordered":true,"maxGaps":0}`, bioIs(0)},
		{"match out of order", `{"type":"match","query":"atlantic north","ordered":true}`, none},
		{"match unordered", `{"type":"match","query":"atlantic north","ordered":false}`, bioIs(0)},
		{"match gaps", `{"type":"match","query":"flies boeing","ordered":true,"maxGaps":1}`, bioIs(0)},
		{"match too many gaps", `{"type":"match","query":"flies 737","ordered":true,"maxGaps":1}`, none},
		{"prefixOnLastToken", `{"type":"prefixOnLastToken","query":"maintenance man"}`, bioIs(5)},
		{"fuzzy", `{"type":"fuzzy","term":"turbofun"}`, bioIs(3)},
		{"fuzzy distance 0", `{"type":"fuzzy","term":"turbofun","fuzziness":0}`, none},
		{"allOf ordered", `{"type":"allOf","ordered":true,"maxGaps":3,"rules":[{"type":"match","query":"pilot"},{"type":"fuzzy","term":"pilots"}]}`, bioIs(4)},
		{"anyOf", `{"type":"anyOf","rules":[{"type":"match","query":"hangar"},{"type":"prefixOnLastToken","query":"frequent fly"}]}`, bioIs(1, 2)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			body := map[string]any{"where": where(`{"type":"interval","field":"bio","rule":` + tt.rule + `}`), "pageSize": 100}
			objs, _ := e.search(t, "Employee", body)
			want := employeeIDs(tt.want)
			if want == nil {
				want = []string{}
			}
			if got := ids(objs); !slices.Equal(got, want) {
				t.Fatalf("got %v, want %v", got, want)
			}
		})
	}
}

// TestSearch_relevance checks the order, the scores and paging of a
// relevance search on the demo's bios.
func TestSearch_relevance(t *testing.T) {
	e := mustEnv(t)
	w := where(`{"type":"or","value":[{"type":"containsAnyTerm","field":"bio","value":"pilot training maintenance"},{"type":"eq","field":"dept","value":"Sales"}]}`)
	body := map[string]any{"where": w, "orderBy": map[string]any{"orderType": "relevance", "fields": []any{}}, "pageSize": 100}
	objs, resp := e.search(t, "Employee", body)
	if len(objs) == 0 || resp["nextPageToken"] != nil {
		t.Fatalf("one page expected: %v", resp)
	}
	// Bio 4 holds two of the terms, bio 5 one, Sales rows without them
	// none: score 0, last, by key.
	rank := func(o map[string]any) int {
		switch o["bio"] {
		case bioText(4):
			return 0
		case bioText(5):
			return 1
		}
		return 2
	}
	for i, o := range objs {
		s, err := strconv.ParseFloat(fmt.Sprint(o["__score"]), 64)
		if err != nil {
			t.Fatalf("row %d has no __score: %v", i, o)
		}
		if (rank(o) == 2) != (s == 0) {
			t.Fatalf("row %d (%v) scores %v", i, o["bio"], s)
		}
		if i == 0 {
			continue
		}
		p := objs[i-1]
		ps, _ := strconv.ParseFloat(fmt.Sprint(p["__score"]), 64)
		pk, _ := strconv.Atoi(fmt.Sprint(p["__primaryKey"]))
		k, _ := strconv.Atoi(fmt.Sprint(o["__primaryKey"]))
		if rank(p) > rank(o) || ps < s || ps == s && pk >= k {
			t.Fatalf("rows %d and %d out of order: %v (%v) then %v (%v)", i-1, i, p["__primaryKey"], ps, o["__primaryKey"], s)
		}
	}
	// Pages of 3 give the same rows and scores.
	paged, _ := e.pageAll(t, http.MethodPost, ontologyPath+"/objects/Employee/search", body, 3)
	if fmt.Sprint(paged) != fmt.Sprint(objs) {
		t.Fatalf("paged:\n%v\nwant\n%v", paged, objs)
	}
	// A field order's token does not continue a relevance search.
	first := e.ok(t, http.MethodPost, ontologyPath+"/objects/Employee/search", map[string]any{"where": w, "pageSize": 2})
	body["pageToken"] = first["nextPageToken"]
	e.fail(t, http.MethodPost, ontologyPath+"/objects/Employee/search", body, 400, "InvalidPageToken")
}

func TestSearch_relevanceErrors(t *testing.T) {
	e := mustEnv(t)
	e.fail(t, http.MethodPost, ontologyPath+"/objects/Employee/search",
		map[string]any{"orderBy": map[string]any{"orderType": "relevance", "fields": []any{map[string]any{"field": "age"}}}}, 400, "InvalidOrderType")
	e.fail(t, http.MethodPost, ontologyPath+"/objects/Employee/search",
		map[string]any{"orderBy": map[string]any{"orderType": "score"}}, 400, "InvalidOrderType")
}
