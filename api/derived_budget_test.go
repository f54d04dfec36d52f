package api_test

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ontoindex/ontoindex/api"
	"github.com/ontoindex/ontoindex/indexer/config"
)

// The bound on the objects of derived evaluations in flight
// (server.maxDerivedObjects): the links env has 40 customers and 160
// orders, so the count and sum of each customer's orders weigh 200.

// derivedTopBody is the top customers by the sum of their orders, with
// the count.
func derivedTopBody(size int) map[string]any {
	defs := map[string]any{"n": sel(pivot("orders"), "count"), "total": sel(pivot("orders"), "sum", "selectedPropertyApiName", "amount")}
	return map[string]any{"objectSet": withProps(baseSet("Customer"), defs), "pageSize": size,
		"orderBy": map[string]any{"fields": []any{map[string]any{"field": "total", "direction": "desc"}, map[string]any{"field": "id"}}}}
}

// postDerived sends the request from any goroutine: it returns what a
// test reports rather than failing the test itself.
func postDerived(e *linksEnv, body any) (int, map[string]any, error) {
	js, err := json.Marshal(body)
	if err != nil {
		return 0, nil, err
	}
	req, err := http.NewRequest(http.MethodPost, e.srv.URL+ontologyPath+"/objectSets/loadObjects", bytes.NewReader(js))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+appToken)
	resp, err := e.srv.Client().Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, nil, err
	}
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		return resp.StatusCode, nil, fmt.Errorf("decode %s: %w", raw, err)
	}
	return resp.StatusCode, m, nil
}

// checkTop compares a page of derivedTopBody with the brute-force stats.
func checkTop(e *linksEnv, status int, m map[string]any, size int) error {
	if status != http.StatusOK {
		return fmt.Errorf("status %d: %v", status, m)
	}
	want := e.rows.stats()
	sortByTotal(want)
	data, _ := m["data"].([]any)
	if len(data) != min(size, len(want)) {
		return fmt.Errorf("%d objects, want %d", len(data), min(size, len(want)))
	}
	for i, d := range data {
		o := d.(map[string]any)
		if fmt.Sprint(o["__primaryKey"]) != want[i].id || !sameNumber(o["total"], want[i].total) || number(o["n"]) != want[i].n {
			return fmt.Errorf("object %d is %v (n %v, total %v), want %+v", i, o["__primaryKey"], o["n"], o["total"], want[i])
		}
	}
	return nil
}

func TestDerived_budget(t *testing.T) {
	budget := func(n int64, timeout time.Duration) func(*config.Config) {
		return func(c *config.Config) {
			c.Server.MaxDerivedObjects = n
			c.Server.RequestTimeout = timeout
		}
	}
	t.Run("the weight in flight never passes the budget", func(t *testing.T) {
		e := mustLinksEnv(t, 21, budget(300, 0)) // one evaluation of 200 at a time
		var wg sync.WaitGroup
		errs := make(chan error, 64)
		for g := range 16 {
			wg.Go(func() {
				for i := range 4 {
					size := 1 + (g+i)%7
					status, m, err := postDerived(e, derivedTopBody(size))
					if err == nil {
						err = checkTop(e, status, m, size)
					}
					if err != nil {
						errs <- err
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		held, peak := api.DerivedBudget(e.api)
		if held != 0 || peak != 200 {
			t.Fatalf("held %d after the requests, peak %d; want 0 and 200 (one evaluation: two would pass 300)", held, peak)
		}
	})
	t.Run("a request heavier than the budget runs alone", func(t *testing.T) {
		e := mustLinksEnv(t, 22, budget(150, 0))
		status, m, err := postDerived(e, derivedTopBody(5))
		if err == nil {
			err = checkTop(e, status, m, 5)
		}
		if err != nil {
			t.Fatal(err)
		}
		if held, peak := api.DerivedBudget(e.api); held != 0 || peak != 150 {
			t.Fatalf("held %d, peak %d; want 0 and the whole budget, 150", held, peak)
		}
	})
	t.Run("a request waits for the weight, then answers", func(t *testing.T) {
		e := mustLinksEnv(t, 23, budget(300, 0))
		release := api.HoldDerived(e.api, 200) // 100 left: the request's 200 must wait
		done := make(chan error, 1)
		go func() {
			status, m, err := postDerived(e, derivedTopBody(3))
			if err == nil {
				err = checkTop(e, status, m, 3)
			}
			done <- err
		}()
		waitQueued(t, e, done)
		release()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	})
	t.Run("a request waiting for the weight holds no admission slot", func(t *testing.T) {
		// One slot: were it held by the waiting request, the search
		// after it would wait until its deadline (a RequestTimeout).
		e := mustLinksEnv(t, 25, budget(300, 20*time.Second), func(c *config.Config) { c.Server.MaxConcurrentRequests = 1 })
		release := api.HoldDerived(e.api, 200)
		done := make(chan error, 1)
		go func() {
			status, m, err := postDerived(e, derivedTopBody(4))
			if err == nil {
				err = checkTop(e, status, m, 4)
			}
			done <- err
		}()
		waitQueued(t, e, done)
		page := e.ok(t, http.MethodPost, ontologyPath+"/objects/Customer/search", map[string]any{"pageSize": 2})
		if data, _ := page["data"].([]any); len(data) != 2 {
			t.Fatalf("search beside the waiting request: %v", page)
		}
		release()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	})
	t.Run("a request that waits past its deadline is a RequestTimeout", func(t *testing.T) {
		e := mustLinksEnv(t, 24, budget(300, 50*time.Millisecond))
		release := api.HoldDerived(e.api, 300)
		defer release()
		e.fail(t, http.MethodPost, ontologyPath+"/objectSets/loadObjects", derivedTopBody(3), http.StatusInternalServerError, "RequestTimeout")
		if api.DerivedQueued(e.api) != 1 {
			t.Fatalf("queued %v, want 1", api.DerivedQueued(e.api))
		}
	})
}

// waitQueued waits until a derived request waits for weight; done is
// where that request reports, which it must not before.
func waitQueued(t *testing.T, e *linksEnv, done <-chan error) {
	t.Helper()
	for api.DerivedQueued(e.api) < 1 {
		select {
		case err := <-done:
			t.Fatalf("the request answered while the budget was held (err %v)", err)
		case <-time.After(time.Millisecond):
		}
	}
}

// sortByTotal orders stats as derivedTopBody does: by total, descending,
// nulls last, then by id.
func sortByTotal(s []customerStats) {
	slices.SortStableFunc(s, func(a, b customerStats) int {
		switch {
		case a.total == nil && b.total == nil:
		case a.total == nil:
			return 1
		case b.total == nil:
			return -1
		default:
			if c := cmp.Compare(b.total.(float64), a.total.(float64)); c != 0 {
				return c
			}
		}
		return cmp.Compare(len(a.id), len(b.id))*10 + cmp.Compare(a.id, b.id)
	})
}
