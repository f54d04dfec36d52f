package api_test

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/ontoindex/ontoindex/internal/testkit/cputime"

	"github.com/ontoindex/ontoindex/api"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/internal/benchdata"
	"github.com/ontoindex/ontoindex/objects"
)

var handlerRows = flag.Int("api.handler-rows", 100_000, "customers of the handler benchmark")

// handlerEnv is the benchmark's index and server, built once per test
// binary (every -count and sub-benchmark shares it); TestMain removes it.
var handlerEnv struct {
	once    sync.Once
	h       http.Handler
	err     error
	cleanup func()
}

func handler() (http.Handler, error) {
	handlerEnv.once.Do(func() {
		dir, err := os.MkdirTemp("", "ontoindex-handler-")
		if err != nil {
			handlerEnv.err = err
			return
		}
		handlerEnv.cleanup = func() { _ = os.RemoveAll(dir) }
		handlerEnv.h, handlerEnv.err = newHandlerEnv(dir)
	})
	return handlerEnv.h, handlerEnv.err
}

func TestMain(m *testing.M) {
	code := m.Run()
	if handlerEnv.cleanup != nil {
		handlerEnv.cleanup()
	}
	os.Exit(code)
}

func newHandlerEnv(dir string) (http.Handler, error) {
	ctx := context.Background()
	cfg, err := handlerConfig(ctx, dir, *handlerRows)
	if err != nil {
		return nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	ix, err := indexer.Open(ctx, cfg, indexer.Options{})
	if err != nil {
		return nil, err
	}
	for _, res := range ix.BuildAll(ctx, indexer.BuildOptions{}) {
		if res.Error != nil {
			return nil, errors.New(res.Error.Message)
		}
	}
	s, err := api.New(ix, api.Options{})
	if err != nil {
		return nil, err
	}
	return s.Handler(), nil
}

// handlerConfig writes the bench's customers and orders, rows of each,
// into dir and returns the config of a server of them.
func handlerConfig(ctx context.Context, dir string, rows int) (*config.Config, error) {
	if _, err := benchdata.WriteCustomers(ctx, dir, 1, rows, 8); err != nil {
		return nil, err
	}
	if _, err := benchdata.WriteOrders(ctx, dir, 1, rows, rows, 8); err != nil {
		return nil, err
	}
	cfg := config.Default()
	cfg.DataDir = filepath.Join(dir, "data")
	cfg.Catalogs = map[string]config.Catalog{"warehouse": {Type: "hadoop", Properties: map[string]string{"warehouse": benchdata.Warehouse(dir)}}}
	cfg.ObjectTypes = []objects.TypeSpec{{APIName: "Customer", Table: "warehouse." + benchdata.CustomersIdent, TitleProperty: "name",
		Properties: map[string]objects.PropertySpec{"id": {Column: "id"}, "name": {Column: "name", Search: objects.SearchText},
			"city": {Column: "city", Search: objects.SearchKeyword}, "balance": {Column: "balance"}, "visits": {Column: "visits"}, "active": {Column: "active"}}},
		{APIName: "Order", Table: "warehouse." + benchdata.OrdersIdent, Properties: map[string]objects.PropertySpec{
			"id": {Column: "id"}, "customerId": {Column: "customer_id"}, "amount": {Column: "amount"}, "status": {Column: "status", Search: objects.SearchKeyword}},
			Links: []objects.LinkSpec{{APIName: "customer", Target: "Customer", ForeignKey: "customerId", ReverseAPIName: "orders"}}}}
	cfg.Ontology.APIName = "bench"
	return cfg, nil
}

// BenchmarkHandler measures the server's own cost of requests (no
// network, no client): what a request costs beyond the engine.
func BenchmarkHandler(b *testing.B) {
	h, err := handler()
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct{ name, method, path, body string }{
		{"get", http.MethodGet, "/api/v2/ontologies/bench/objects/Customer/%d", ""},
		{"page", http.MethodPost, "/api/v2/ontologies/bench/objects/Customer/search",
			`{"where":{"type":"eq","field":"active","value":true},"orderBy":{"fields":[{"field":"balance"}]},"pageSize":100}`},
		{"sorted", http.MethodPost, "/api/v2/ontologies/bench/objects/Customer/search",
			`{"where":{"type":"and","value":[{"type":"eq","field":"city","value":"Oslo"},{"type":"gte","field":"balance","value":400000},{"type":"lt","field":"balance","value":450000},{"type":"eq","field":"active","value":false}]},"orderBy":{"fields":[{"field":"balance","direction":"desc"}]},"pageSize":100,"excludeRid":true}`},
		{"union", http.MethodPost, "/api/v2/ontologies/bench/objectSets/loadObjects",
			`{"objectSet":{"type":"union","objectSets":[{"type":"filter","objectSet":{"type":"base","objectType":"Customer"},"where":{"type":"eq","field":"city","value":"Oslo"}},{"type":"filter","objectSet":{"type":"base","objectType":"Customer"},"where":{"type":"gt","field":"visits","value":950}}]},"orderBy":{"fields":[{"field":"id","direction":"asc"}]},"pageSize":100}`},
		{"around", http.MethodPost, "/api/v2/ontologies/bench/objectSets/loadObjects",
			`{"objectSet":{"type":"searchAround","objectSet":{"type":"filter","objectSet":{"type":"base","objectType":"Customer"},"where":{"type":"and","value":[{"type":"eq","field":"city","value":"Oslo"},{"type":"gte","field":"balance","value":400000},{"type":"lt","field":"balance","value":480000}]}},"link":"orders"},"orderBy":{"fields":[{"field":"id","direction":"asc"}]},"pageSize":100}`},
		{"groupby", http.MethodPost, "/api/v2/ontologies/bench/objects/Customer/aggregate",
			`{"aggregation":[{"type":"count"}],"where":{"type":"eq","field":"active","value":true},"groupBy":[{"type":"exact","field":"city"}]}`},
		{"derived", http.MethodPost, "/api/v2/ontologies/bench/objectSets/loadObjects",
			`{"objectSet":{"type":"withProperties","objectSet":{"type":"base","objectType":"Customer"},"derivedProperties":{"orderCount":{"type":"selection","objectSet":{"type":"searchAround","objectSet":{"type":"methodInput"},"link":"orders"},"operation":{"type":"count"}},"orderTotal":{"type":"selection","objectSet":{"type":"searchAround","objectSet":{"type":"methodInput"},"link":"orders"},"operation":{"type":"sum","selectedPropertyApiName":"amount"}}}},"orderBy":{"fields":[{"field":"orderTotal","direction":"desc"}]},"pageSize":100}`},
		{"count", http.MethodPost, "/api/v2/ontologies/bench/objects/Customer/aggregate",
			`{"aggregation":[{"type":"count"}],"where":{"type":"and","value":[{"type":"gte","field":"balance","value":100000},{"type":"lt","field":"balance","value":200000}]},"groupBy":[]}`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			i := 0
			// The process's CPU: the request's and the collection of its
			// garbage, steadier than ns/op on a shared machine.
			cpu := cputime.Process(b)
			for b.Loop() {
				path := bc.path
				if bc.method == http.MethodGet {
					// Keys in a scattered order, as clients ask for them: a
					// sequential walk would keep the index's lines in cache.
					path = fmt.Sprintf(path, uint64(i)*2654435761%uint64(*handlerRows))
				}
				i++
				req := httptest.NewRequest(bc.method, path, bytes.NewReader([]byte(bc.body)))
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
				if w.Code != http.StatusOK {
					b.Fatalf("%d %s", w.Code, w.Body)
				}
			}
			cputime.PerOp(b, cpu, cputime.Process)
		})
	}
}
