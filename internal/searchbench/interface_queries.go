package searchbench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"

	"github.com/ontoindex/ontoindex/internal/benchdata"
)

// The ontology of `ontolab bench interface`: Customer over every row of
// the customers table, and CustomerLow and CustomerHigh over two tables
// that hold its lower and upper half of the ids; the two halves implement
// the interface Client, Customer does not. A query over Client and the
// same query over Customer must answer the same objects.
const (
	clientInterface = "Client"
	lowType         = "CustomerLow"
	highType        = "CustomerHigh"
	lowIdent        = "bench.customers_low"
	highIdent       = "bench.customers_high"
)

// customerProperties are the properties of the three types, and of the
// interface under the same names.
var customerProperties = []struct{ name, column, search, dataType string }{
	{"id", "id", "numeric", "long"},
	{"name", "name", "text", "string"},
	{"city", "city", "keyword", "string"},
	{"balance", "balance", "numeric", "double"},
	{"visits", "visits", "numeric", "integer"},
	{"active", "active", "boolean", "boolean"},
}

// interfaceConfig is the config the server of the interface bench runs
// with: the search bench's head, the interface and the three types.
func interfaceConfig() string {
	var b strings.Builder
	b.WriteString(strings.Replace(serverConfigHead, "bench search", "bench interface", 1))
	b.WriteString("interfaces:\n  - apiName: " + clientInterface + "\n    properties:\n")
	for _, p := range customerProperties {
		fmt.Fprintf(&b, "      %s: {dataType: %s}\n", p.name, p.dataType)
	}
	b.WriteString("objectTypes:\n")
	writeCustomerType(&b, objectType, benchdata.CustomersIdent, false)
	writeCustomerType(&b, lowType, lowIdent, true)
	writeCustomerType(&b, highType, highIdent, true)
	return b.String()
}

// writeCustomerType writes one object type over a customers table, with
// the implementation of Client when implements is set.
func writeCustomerType(b *strings.Builder, apiName, ident string, implements bool) {
	fmt.Fprintf(b, "  - apiName: %s\n    table: warehouse.%s\n    primaryKey: [id]\n    titleProperty: name\n    properties:\n", apiName, ident)
	for _, p := range customerProperties {
		fmt.Fprintf(b, "      %s: {column: %s, search: %s}\n", p.name, p.column, p.search)
	}
	if !implements {
		return
	}
	mapping := make([]string, 0, len(customerProperties))
	for _, p := range customerProperties {
		mapping = append(mapping, p.name+": "+p.name)
	}
	fmt.Fprintf(b, "    implements:\n      %s:\n        properties: {%s}\n", clientInterface, strings.Join(mapping, ", "))
}

// An ifaceQuery is one row of the interface bench: the same question
// asked of Customer (one) and of the interface Client (iface).
type ifaceQuery struct {
	id, name string
	gen      func(r *rand.Rand) params
	// paged: the answer is a page whose token the check follows.
	paged       bool
	one, iface  ifaceCall
	description string // how each side asks, for the report's notes
}

// ifaceCall asks a page (after token, "" for the first) or an
// aggregation; next is the page's token ("" at the end or for an
// aggregation).
type ifaceCall func(ctx context.Context, c *ontoClient, p params, token string) (r result, next string, err error)

// pageSearchRequest is a search body both routes take: the interface
// search has no excludeRid, so neither side sets it and both pages carry
// rids.
type pageSearchRequest struct {
	Where     *where   `json:"where,omitempty"`
	OrderBy   *orderBy `json:"orderBy,omitempty"`
	PageSize  int      `json:"pageSize"`
	PageToken string   `json:"pageToken,omitempty"`
}

// setPageRequest is a loadObjects body with a page token.
type setPageRequest struct {
	ObjectSet  objectSet `json:"objectSet"`
	OrderBy    *orderBy  `json:"orderBy,omitempty"`
	PageSize   int       `json:"pageSize"`
	PageToken  string    `json:"pageToken,omitempty"`
	ExcludeRid bool      `json:"excludeRid"`
}

// searchAt posts searches built by req to path.
func searchAt(path string, req func(p params) pageSearchRequest) ifaceCall {
	return func(ctx context.Context, c *ontoClient, p params, token string) (result, string, error) {
		body := req(p)
		body.PageToken = token
		var page pageResponse
		err := c.do(ctx, http.MethodPost, path, body, &page)
		r, err := pageTotalResult(page, err)
		return r, page.NextPageToken, err
	}
}

// loadAt posts loadObjects requests of the set made by set to path.
func loadAt(path string, set func(p params) objectSet, order *orderBy) ifaceCall {
	return func(ctx context.Context, c *ontoClient, p params, token string) (result, string, error) {
		var page pageResponse
		err := c.do(ctx, http.MethodPost, path, setPageRequest{ObjectSet: set(p), OrderBy: order, PageSize: pageSize, PageToken: token, ExcludeRid: true}, &page)
		r, err := pageTotalResult(page, err)
		return r, page.NextPageToken, err
	}
}

// aggregateOf posts aggregations built by req to path, grouped by group.
func aggregateOf(path string, req func(p params) aggregateRequest, group string) ifaceCall {
	return func(ctx context.Context, c *ontoClient, p params, _ string) (result, string, error) {
		r, err := countsResult(c.aggregateAt(ctx, path, req(p), group))
		return r, "", err
	}
}

// bothSearch is a search of Customer and the same one of Client.
func bothSearch(req func(p params) pageSearchRequest) (one, iface ifaceCall) {
	return searchAt("/objects/"+objectType+"/search", req), searchAt("/interfaces/"+clientInterface+"/search", req)
}

// bothAggregate is an aggregation of Customer and the same one of Client.
func bothAggregate(req func(p params) aggregateRequest, group string) (one, iface ifaceCall) {
	return aggregateOf("/objects/"+objectType+"/aggregate", req, group), aggregateOf("/interfaces/"+clientInterface+"/aggregate", req, group)
}

// ifaceQueries are the rows of the interface bench, in order.
func ifaceQueries(rows int) []ifaceQuery {
	textReq := func(p params) pageSearchRequest {
		return pageSearchRequest{Where: text("containsAllTerms", "name", p.terms), OrderBy: order("id", "asc"), PageSize: pageSize}
	}
	sortedWhere := func(p params) *where {
		return and(eq("city", p.city), gte("balance", p.lo), lt("balance", p.hi), eq("active", false))
	}
	sortedReq := func(p params) pageSearchRequest {
		return pageSearchRequest{Where: sortedWhere(p), OrderBy: order("balance", "desc"), PageSize: pageSize}
	}
	getReq := func(p params) pageSearchRequest {
		return pageSearchRequest{Where: eq("id", p.id), PageSize: pageSize}
	}
	countReq := func(p params) aggregateRequest {
		return aggregateRequest{Aggregation: []map[string]string{{"type": "count"}}, GroupBy: []map[string]any{},
			Where: and(gte("balance", p.lo), lt("balance", p.hi))}
	}
	groupReq := func(p params) aggregateRequest {
		return aggregateRequest{Aggregation: []map[string]string{{"type": "count"}},
			GroupBy: []map[string]any{{"type": "exact", "field": "city"}}, Where: eq("active", true)}
	}
	qs := []ifaceQuery{
		{id: "get", name: "get-like: id = X", gen: genID(rows), paged: true,
			description: "a search where id = X, of Customer and of Client"},
		{id: "text", name: "text: two terms on name; sort id, page 100", gen: genTerms, paged: true,
			description: "a search, of Customer and of Client"},
		{id: "sorted", name: "sorted: city = X, balance in [lo, lo+50k), not active; balance desc, page 100", gen: genSorted, paged: true,
			description: "a search, of Customer and of Client"},
		{id: "sortedSet", name: "objectSets: the sorted query as a filter of a base set", gen: genSorted, paged: true,
			description: "loadObjects of a filter of base Customer, loadObjectsMultipleObjectTypes of a filter of interfaceBase Client (excludeRid on both)"},
		{id: "count", name: "count: balance in a 10% range", gen: genCountRange,
			description: "an aggregation, of Customer and of Client"},
		{id: "group", name: "aggregate: count by city where active", gen: genNone,
			description: "an aggregation, of Customer and of Client"},
	}
	for i := range qs {
		q := &qs[i]
		switch q.id {
		case "get":
			q.one, q.iface = bothSearch(getReq)
		case "text":
			q.one, q.iface = bothSearch(textReq)
		case "sorted":
			q.one, q.iface = bothSearch(sortedReq)
		case "sortedSet":
			base := &objectSet{Type: "base", ObjectType: objectType}
			ifaceBase := &objectSet{Type: "interfaceBase", InterfaceType: clientInterface}
			q.one = loadAt("/objectSets/loadObjects", func(p params) objectSet {
				return objectSet{Type: "filter", ObjectSet: base, Where: sortedWhere(p)}
			}, order("balance", "desc"))
			q.iface = loadAt("/objectSets/loadObjectsMultipleObjectTypes", func(p params) objectSet {
				return objectSet{Type: "filter", ObjectSet: ifaceBase, Where: sortedWhere(p)}
			}, order("balance", "desc"))
		case "count":
			q.one, q.iface = bothAggregate(countReq, "")
		case "group":
			q.one, q.iface = bothAggregate(groupReq, "city")
		}
	}
	return qs
}

// checkPages is how many pages the check reads of each paged answer.
const checkPages = 3

// answer reads what a side answers to p: the ids of up to checkPages
// pages, followed by their tokens, with the first page's total; or the
// counts of an aggregation.
func answer(ctx context.Context, c *ontoClient, call ifaceCall, p params, paged bool) (result, error) {
	r, next, err := call(ctx, c, p, "")
	if err != nil || !paged {
		return r, err
	}
	for range checkPages - 1 {
		if next == "" {
			break
		}
		var more result
		if more, next, err = call(ctx, c, p, next); err != nil {
			return result{}, fmt.Errorf("next page: %w", err)
		}
		r.ids = append(r.ids, more.ids...)
	}
	return r, nil
}

// compareAnswers describes how the interface's answer differs from the
// one type's; "" when they agree.
func compareAnswers(one, iface result) string {
	return diffNamed(iface, one, "interface "+clientInterface, "one type "+objectType, objectType+"'s")
}
