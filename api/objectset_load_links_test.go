package api_test

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"testing"

	"github.com/ontoindex/ontoindex/api"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
)

const loadLinksPath = ontologyPath + "/objectSets/loadLinks"

// linkTargets is the link type and target type of each link side of the
// links env.
var linkTargets = map[string]string{"Order.customer": "Customer", "Customer.orders": "Order", "Order.tags": "Tag", "Tag.orders": "Order"}

// wantLinks is the brute-force answer of loadLinks: source key, link and
// target key of each link of the rows, by source key (rows are in key
// order), then link as named, then target key (around's order).
func (lr linkRows) wantLinks(src string, rows []icebergtest.Row, links []string) []string {
	var out []string
	for _, r := range rows {
		for _, l := range links {
			for _, k := range lr.around(src, l, []icebergtest.Row{r}) {
				out = append(out, key(r)+" "+l+" "+k)
			}
		}
	}
	return out
}

// loadLinks pages loadLinks to its end and returns the links it lists,
// checking each page: at most pageSize links, sources in key order each
// with at least one link, every object a locator of the right type.
func (e *linksEnv) loadLinks(tb testing.TB, token, src string, set map[string]any, links []string, pageSize int) []string {
	tb.Helper()
	body := map[string]any{"objectSet": set, "links": links}
	if pageSize > 0 {
		body["pageSize"] = pageSize
	}
	var out []string
	for pages := 0; ; pages++ {
		if pages > 10_000 {
			tb.Fatalf("loadLinks never ends: %v", body)
		}
		r := e.do(tb, http.MethodPost, loadLinksPath+"?preview=true", token, body)
		if r.status != http.StatusOK {
			tb.Fatalf("loadLinks %v: status %d: %s", body, r.status, r.body)
		}
		m := r.json(tb)
		n := 0
		for _, d := range m["data"].([]any) {
			entry := d.(map[string]any)
			source := entry["sourceObject"].(map[string]any)
			checkLocator(tb, source, src)
			linked := entry["linkedObjects"].([]any)
			if len(linked) == 0 {
				tb.Fatalf("an entry without links: %v", entry)
			}
			for _, l := range linked {
				lo := l.(map[string]any)
				link := lo["linkType"].(string)
				target := lo["targetObject"].(map[string]any)
				checkLocator(tb, target, linkTargets[src+"."+link])
				out = append(out, fmt.Sprint(source["__primaryKey"], " ", link, " ", target["__primaryKey"]))
				n++
			}
		}
		if pageSize > 0 && n > pageSize {
			tb.Fatalf("a page of %d links, pageSize %d", n, pageSize)
		}
		tok, ok := m["nextPageToken"].(string)
		if !ok {
			return out
		}
		body["pageToken"] = tok
	}
}

// checkLocator checks that an object of a LinksFromObject names its type,
// key and rid.
func checkLocator(tb testing.TB, o map[string]any, typ string) {
	tb.Helper()
	if o["__apiName"] != typ || o["__primaryKey"] == nil || o["__rid"] == nil {
		tb.Fatalf("object %v, want one of %s with __primaryKey and __rid", o, typ)
	}
}

// TestLoadLinks_bruteForce lists the links of random sets through each
// link side (ONE, MANY and many to many) and through two at once, paged to
// the end with small and default page sizes, and compares them with the
// links of the table rows.
func TestLoadLinks_bruteForce(t *testing.T) {
	e := mustLinksEnv(t, 21)
	r := rand.New(rand.NewPCG(4, 5))
	tests := []struct {
		src   string
		links []string
	}{
		{"Order", []string{"customer"}},
		{"Customer", []string{"orders"}},
		{"Order", []string{"tags"}},
		{"Tag", []string{"orders"}},
		{"Order", []string{"tags", "customer"}},
		{"Order", []string{"customer", "tags", "customer"}},
	}
	for i := range 3 {
		for _, tt := range tests {
			set, rows := e.sourceSet(r, tt.src)
			var once []string // a link named twice is listed once
			for _, l := range tt.links {
				if !slices.Contains(once, l) {
					once = append(once, l)
				}
			}
			want := e.rows.wantLinks(tt.src, rows, once)
			for _, size := range []int{1, 2, 7, 0} {
				t.Run(fmt.Sprintf("%d %s %v pageSize %d", i, tt.src, tt.links, size), func(t *testing.T) {
					got := e.loadLinks(t, appToken, tt.src, set, tt.links, size)
					if !slices.Equal(got, want) {
						t.Fatalf("links of %v:\n got %v\nwant %v", set, got, want)
					}
				})
			}
		}
	}
	t.Run("every order", func(t *testing.T) {
		want := e.rows.wantLinks("Order", e.rows.orders, []string{"customer", "tags"})
		if len(want) < 100 {
			t.Fatalf("only %d links: the env should have more", len(want))
		}
		if got := e.loadLinks(t, appToken, "Order", baseSet("Order"), []string{"customer", "tags"}, 5); !slices.Equal(got, want) {
			t.Fatalf("got %v\nwant %v", got, want)
		}
	})
	t.Run("a stored set", func(t *testing.T) {
		rid := e.createTemporary(t, appToken, cityFilter(linkCities[2]))
		rows := e.rows.rowsOf("Customer", e.rows.customersIn(linkCities[2]))
		want := e.rows.wantLinks("Customer", rows, []string{"orders"})
		if got := e.loadLinks(t, appToken, "Customer", referenceSet(rid), []string{"orders"}, 3); !slices.Equal(got, want) {
			t.Fatalf("got %v\nwant %v", got, want)
		}
	})
	t.Run("an empty set", func(t *testing.T) {
		empty := map[string]any{"type": "static", "objects": []string{}}
		if got := e.loadLinks(t, appToken, "Order", empty, []string{"customer"}, 3); len(got) != 0 {
			t.Fatalf("got %v", got)
		}
	})
}

// TestLoadLinks_errors: the request's errors, and a token that may not
// see a link's target.
func TestLoadLinks_errors(t *testing.T) {
	e := mustLinksEnv(t, 22)
	orders := baseSet("Order")
	tests := []struct {
		name   string
		token  string
		body   any
		status int
		error  string
	}{
		{"no links", appToken, map[string]any{"objectSet": orders}, 400, "MalformedRequestBody"},
		{"no set", appToken, map[string]any{"links": []string{"customer"}}, 400, "MalformedObjectSet"},
		{"unknown link", appToken, map[string]any{"objectSet": orders, "links": []string{"nope"}}, 404, "LinkTypeNotFound"},
		{"target out of scope", ordersOnlyToken, map[string]any{"objectSet": orders, "links": []string{"customer"}}, 404, "LinkTypeNotFound"},
		{"source out of scope", ordersOnlyToken, map[string]any{"objectSet": baseSet("Customer"), "links": []string{"orders"}}, 404, "ObjectTypeNotFound"},
		{"bad page size", appToken, map[string]any{"objectSet": orders, "links": []string{"customer"}, "pageSize": 0}, 400, "InvalidPageSize"},
		{"not a token", appToken, map[string]any{"objectSet": orders, "links": []string{"customer"}, "pageToken": "x"}, 400, "InvalidPageToken"},
		{"unknown key", appToken, map[string]any{"objectSet": orders, "links": []string{"customer"}, "orderBy": 1}, 400, "MalformedRequestBody"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.failAs(t, tt.token, http.MethodPost, loadLinksPath, tt.body, tt.status, tt.error)
		})
	}
	t.Run("token of another request", func(t *testing.T) {
		m := e.ok(t, http.MethodPost, loadLinksPath, map[string]any{"objectSet": orders, "links": []string{"customer"}, "pageSize": 2})
		tok := m["nextPageToken"]
		if tok == nil {
			t.Fatalf("no nextPageToken: %v", m)
		}
		for _, body := range []map[string]any{
			{"objectSet": orders, "links": []string{"tags"}, "pageSize": 2, "pageToken": tok},
			{"objectSet": baseSet("Customer"), "links": []string{"orders"}, "pageSize": 2, "pageToken": tok},
			{"objectSet": orders, "pageSize": 2, "pageToken": tok, "links": []string{"customer", "tags"}},
		} {
			e.fail(t, http.MethodPost, loadLinksPath, body, 400, "InvalidPageToken")
		}
		e.fail(t, http.MethodPost, ontologyPath+"/objectSets/loadObjects", map[string]any{"objectSet": orders, "pageToken": tok}, 400, "InvalidPageToken")
	})
	t.Run("a token with a forged cursor", func(t *testing.T) {
		body := map[string]any{"objectSet": baseSet("Customer"), "links": []string{"orders"}, "pageSize": 2}
		m := e.ok(t, http.MethodPost, loadLinksPath, body)
		tok, _ := m["nextPageToken"].(string)
		held, ok := api.TokenValues(tok)
		if !ok || len(held) != 4 || held[1] == "" {
			t.Fatalf("token values %q", held)
		}
		with := func(i int, v string) []string { c := slices.Clone(held); c[i] = v; return c }
		for _, values := range [][]string{
			with(0, "garbage"), // the sources' cursor
			with(3, "garbage"), // the targets' cursor of the source the page ends in
			with(2, "1"),       // a link the request does not name
			with(2, "x"),       // not a link index
			held[:3],           // too few values
		} {
			forged, ok := api.WithCursor(tok, values...)
			if !ok {
				t.Fatalf("no token: %v", m)
			}
			body["pageToken"] = forged
			e.fail(t, http.MethodPost, loadLinksPath, body, 400, "InvalidPageToken")
		}
	})
	t.Run("the orders token follows tags", func(t *testing.T) {
		// Tag is not in its scope either: the link does not exist for it.
		e.failAs(t, ordersOnlyToken, http.MethodPost, loadLinksPath, map[string]any{"objectSet": orders, "links": []string{"tags"}}, 404, "LinkTypeNotFound")
	})
}
