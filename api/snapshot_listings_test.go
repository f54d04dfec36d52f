package api_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/ontoindex/ontoindex/api"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
)

// listingPage is one page of a listing: the objects' keys and names, and
// the next token ("" at the end).
type listingPage struct {
	rows []string // "key=name"
	next string
}

// listingRequest sends one page of a listing of customers at an endpoint
// (loadObjects, loadObjectsMultipleObjectTypes or search).
func (e *linksEnv) listingPage(tb testing.TB, endpoint string, snapshot bool, token string) listingPage {
	tb.Helper()
	body := map[string]any{"pageSize": 7, "snapshot": snapshot}
	path := ontologyPath + "/objectSets/" + endpoint
	if endpoint == "search" {
		path = ontologyPath + "/objects/Customer/search"
	} else {
		body["objectSet"] = baseSet("Customer")
	}
	if token != "" {
		body["pageToken"] = token
	}
	m := e.ok(tb, http.MethodPost, path, body)
	var p listingPage
	for _, o := range objectsOf(tb, m) {
		p.rows = append(p.rows, fmt.Sprintf("%v=%v", o["id"], o["name"]))
	}
	p.next, _ = m["nextPageToken"].(string)
	return p
}

// customerRows is "key=name" of rows in key order.
func customerRows(rows []icebergtest.Row) []string {
	var out []string
	for _, r := range rows {
		out = append(out, fmt.Sprintf("%v=%v", r["id"], r["name"]))
	}
	slices.SortFunc(out, func(a, b string) int {
		var x, y int
		fmt.Sscan(strings.Split(a, "=")[0], &x)
		fmt.Sscan(strings.Split(b, "=")[0], &y)
		return x - y
	})
	return out
}

// editCustomers deletes the customer of the last key, renames the one of
// the first and adds one, and builds Customer: a build between the pages
// of a listing that changes its first page, its last page and its size.
func (e *linksEnv) editCustomers(tb testing.TB, round int) {
	tb.Helper()
	ctx := context.Background()
	rows := e.rows.customers
	first, last := rows[0], rows[len(rows)-1]
	if err := e.customers.Delete(ctx, iceberg.EqualTo(iceberg.Reference("id"), last["id"].(int64))); err != nil {
		tb.Fatal(err)
	}
	renamed := icebergtest.Row{"id": first["id"], "name": fmt.Sprintf("renamed %d", round), "city": first["city"]}
	if err := e.customers.Overwrite(ctx, iceberg.EqualTo(iceberg.Reference("id"), first["id"].(int64)), []icebergtest.Row{renamed}); err != nil {
		tb.Fatal(err)
	}
	added := icebergtest.Row{"id": int64(100000 + round), "name": "added", "city": first["city"]}
	if err := e.customers.Append(ctx, []icebergtest.Row{added}); err != nil {
		tb.Fatal(err)
	}
	if _, err := e.ix.Build(ctx, "Customer", indexer.BuildOptions{}); err != nil {
		tb.Fatal(err)
	}
	e.rows.customers = append(append([]icebergtest.Row{renamed}, rows[1:len(rows)-1]...), added)
}

// TestSnapshotListings_pages: every page of a listing with snapshot: true
// reads the snapshot of its first page, whatever builds commit between
// pages; without it, later pages read the latest build. At each endpoint
// that takes snapshot, and the listing's snapshots are released once its
// last page is served.
func TestSnapshotListings_pages(t *testing.T) {
	for round, endpoint := range []string{"loadObjects", "loadObjectsMultipleObjectTypes", "search"} {
		t.Run(endpoint, func(t *testing.T) {
			e := mustLinksEnv(t, uint64(round+1))
			before := customerRows(e.rows.customers)
			held := e.listingPage(t, endpoint, true, "")
			plain := e.listingPage(t, endpoint, false, "")
			if held.next == "" || !slices.Equal(held.rows, plain.rows) {
				t.Fatalf("first pages differ or end at once: %v / %v", held.rows, plain.rows)
			}
			if n := api.HeldListings(e.api); n != 1 {
				t.Fatalf("%d listings held after a first page, want 1", n)
			}
			e.editCustomers(t, round)
			gotHeld, gotPlain := held.rows, plain.rows
			for p := held; p.next != ""; {
				p = e.listingPage(t, endpoint, true, p.next)
				gotHeld = append(gotHeld, p.rows...)
			}
			for p := plain; p.next != ""; {
				p = e.listingPage(t, endpoint, false, p.next)
				gotPlain = append(gotPlain, p.rows...)
			}
			if !slices.Equal(gotHeld, before) {
				t.Fatalf("snapshot listing:\n got %v\nwant %v", gotHeld, before)
			}
			// The plain listing moved to the new build: its last pages miss
			// the deleted customer and hold the added one (its first page,
			// served before the build, still has the old name).
			after := customerRows(e.rows.customers)
			if slices.Equal(gotPlain, before) || !slices.Equal(gotPlain[len(held.rows):], after[len(held.rows):]) {
				t.Fatalf("plain listing:\n got %v\nwant the build's %v", gotPlain, after)
			}
			if n := api.HeldListings(e.api); n != 0 {
				t.Fatalf("%d listings held after the last page, want 0", n)
			}
		})
	}
}

// TestSnapshotListings_expiry: a listing's snapshot is held for the
// retention after its latest page, and at most maxListings at once (the
// least recently used goes first); a page token of a released one is a
// 400 ListingSnapshotExpired that says to start again.
func TestSnapshotListings_expiry(t *testing.T) {
	e := mustLinksEnv(t, 9, func(cfg *config.Config) {
		cfg.Server.SnapshotListings.Retention = time.Minute
		cfg.Server.SnapshotListings.MaxListings = 2
	})
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	api.SetListingsClock(e.api, func() time.Time { return now })
	expired := func(tb testing.TB, token string) {
		tb.Helper()
		m := e.fail(tb, http.MethodPost, ontologyPath+"/objectSets/loadObjects",
			map[string]any{"objectSet": baseSet("Customer"), "pageSize": 7, "snapshot": true, "pageToken": token}, 400, "ListingSnapshotExpired")
		params := m["parameters"].(map[string]any)
		if params["retention"] != "1m0s" || !strings.Contains(fmt.Sprint(params["reason"]), "start it again") {
			tb.Fatalf("error %v", m)
		}
	}

	t.Run("within the retention of the latest page", func(t *testing.T) {
		p := e.listingPage(t, "loadObjects", true, "")
		now = now.Add(50 * time.Second)
		p = e.listingPage(t, "loadObjects", true, p.next)
		now = now.Add(50 * time.Second) // 100 s after the first page, 50 after the second
		p = e.listingPage(t, "loadObjects", true, p.next)
		now = now.Add(time.Minute + time.Second)
		expired(t, p.next)
		if n := api.HeldListings(e.api); n != 0 {
			t.Fatalf("%d listings held after expiry", n)
		}
	})
	t.Run("least recently used evicted", func(t *testing.T) {
		a := e.listingPage(t, "loadObjects", true, "")
		now = now.Add(time.Second)
		b := e.listingPage(t, "loadObjects", true, "")
		now = now.Add(time.Second)
		a = e.listingPage(t, "loadObjects", true, a.next) // a is now the most recently used
		now = now.Add(time.Second)
		c := e.listingPage(t, "search", true, "")
		expired(t, b.next)
		e.listingPage(t, "loadObjects", true, a.next)
		e.listingPage(t, "search", true, c.next)
	})
	t.Run("a listing never held", func(t *testing.T) {
		p := e.listingPage(t, "loadObjects", false, "")
		expired(t, p.next+"."+strings.Repeat("A", 26))
	})
	t.Run("no listing's token", func(t *testing.T) {
		for _, tok := range []string{".", "AgI.NOSUCHLISTING", "." + strings.Repeat("A", 26)} {
			e.fail(t, http.MethodPost, ontologyPath+"/objectSets/loadObjects",
				map[string]any{"objectSet": baseSet("Customer"), "snapshot": true, "pageToken": tok}, 400, "InvalidPageToken")
		}
	})
}

// TestSnapshotListings_storeMoved: a type whose objects are partly read
// from the store (Employee: arrays and role none) can hold its snapshot
// only while no incremental build commits to its generation; after one,
// its next page is refused rather than served from another snapshot.
func TestSnapshotListings_storeMoved(t *testing.T) {
	e := mustEnv(t)
	page := func(token string) response {
		body := map[string]any{"objectSet": baseSet("Employee"), "pageSize": 5, "snapshot": true}
		if token != "" {
			body["pageToken"] = token
		}
		return e.do(t, http.MethodPost, ontologyPath+"/objectSets/loadObjects", appToken, body)
	}
	first := page("").json(t)
	second := page(first["nextPageToken"].(string))
	if second.status != http.StatusOK {
		t.Fatalf("second page without a build: %d %s", second.status, second.body)
	}
	// A full build would not do: it fills a new generation, and the held
	// one's store stays as it was until the listing releases it.
	ctx := context.Background()
	emp, err := e.w.LoadTable(ctx, "demo.employees")
	if err != nil {
		t.Fatal(err)
	}
	if err := emp.Delete(ctx, iceberg.EqualTo(iceberg.Reference("id"), int64(480))); err != nil {
		t.Fatal(err)
	}
	if _, err := e.ix.Build(ctx, "Employee", indexer.BuildOptions{}); err != nil {
		t.Fatal(err)
	}
	third := page(second.json(t)["nextPageToken"].(string))
	if m := third.json(t); third.status != 400 || m["errorName"] != "ListingSnapshotExpired" || !strings.Contains(fmt.Sprint(m["parameters"]), "Employee") {
		t.Fatalf("after a build: %d %s", third.status, third.body)
	}
}

// TestBranches_refused: a branch or transaction named in a request's query
// (or an aggregation's body) is refused with a 400 naming it, never
// answered from main; an empty one is what clients send without either.
func TestBranches_refused(t *testing.T) {
	e := mustEnv(t)
	tests := []struct {
		name, method, path string
		body               any
		parameter          string // "" when the request succeeds
	}{
		{"branch on a list", http.MethodGet, "/objects/Employee?branch=dev", nil, "branch"},
		{"branch on metadata", http.MethodGet, "/objectTypes/Employee/fullMetadata?preview=true&branch=master", nil, "branch"},
		{"transaction on loadObjects", http.MethodPost, "/objectSets/loadObjects?transactionId=ri.tx.1", map[string]any{"objectSet": baseSet("Employee")}, "transactionId"},
		{"transaction in an aggregation's body", http.MethodPost, "/objectSets/aggregate",
			map[string]any{"objectSet": baseSet("Employee"), "aggregation": []any{map[string]any{"type": "count", "name": "n"}}, "groupBy": []any{}, "transactionId": "ri.tx.2"}, "transactionId"},
		{"empty branch passes", http.MethodGet, "/objects/Employee?branch=&pageSize=1", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.parameter == "" {
				e.ok(t, tt.method, ontologyPath+tt.path, tt.body)
				return
			}
			m := e.fail(t, tt.method, ontologyPath+tt.path, tt.body, 400, "InvalidParameterValue")
			if p := m["parameters"].(map[string]any); p["parameter"] != tt.parameter || !strings.Contains(fmt.Sprint(p["reason"]), tt.parameter) {
				t.Fatalf("error %v, want one naming %s", m, tt.parameter)
			}
		})
	}
}

// TestSnapshotListings_concurrentPages: a page token used by several
// requests at once (a client that retries) serves each the same page, and
// the listing is released once the last of them ends.
func TestSnapshotListings_concurrentPages(t *testing.T) {
	e := mustLinksEnv(t, 4)
	before := customerRows(e.rows.customers)
	first := e.listingPage(t, "loadObjects", true, "")
	e.editCustomers(t, 0)
	const n = 4
	pages := make([]listingPage, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { pages[i] = e.listingPage(t, "loadObjects", true, first.next) })
	}
	wg.Wait()
	for i := 1; i < n; i++ {
		if !slices.Equal(pages[i].rows, pages[0].rows) || pages[i].next != pages[0].next {
			t.Fatalf("request %d got %v %q, request 0 %v %q", i, pages[i].rows, pages[i].next, pages[0].rows, pages[0].next)
		}
	}
	got := append(first.rows, pages[0].rows...)
	for p := pages[0]; p.next != ""; {
		p = e.listingPage(t, "loadObjects", true, p.next)
		got = append(got, p.rows...)
	}
	if !slices.Equal(got, before) {
		t.Fatalf("listing:\n got %v\nwant %v", got, before)
	}
	if h := api.HeldListings(e.api); h != 0 {
		t.Fatalf("%d listings held after the last page", h)
	}
}
