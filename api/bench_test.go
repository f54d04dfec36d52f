package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/ontoindex/ontoindex/api"
	"github.com/ontoindex/ontoindex/api/serverconfig"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
	"github.com/ontoindex/ontoindex/objects"
)

// The search benchmark builds an object type of -api.bench-objects objects
// (default 1,000,000) with the real engine from a real Iceberg table, and
// measures search over HTTP. It only runs with -bench; building a million
// objects takes minutes, so -api.bench-dir keeps the warehouse and the
// index for later runs:
//
//	go test ./api -run '^$' -bench BenchmarkSearchHTTP -benchtime 400x \
//	    -api.bench-dir /tmp/ontoindex-bench
var (
	benchObjects = flag.Int("api.bench-objects", 1_000_000, "objects of the search benchmark")
	benchDir     = flag.String("api.bench-dir", "", "directory that keeps the benchmark warehouse and index between runs (default: a temporary directory)")
)

var benchWords = []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo", "lima", "mike", "november", "oscar", "papa"}

func benchRows(from, to int) []icebergtest.Row {
	start := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	rows := make([]icebergtest.Row, 0, to-from)
	for i := from; i < to; i++ {
		h := uint64(i) * 0x9E3779B97F4A7C15
		rows = append(rows, icebergtest.Row{
			"id":       int64(i),
			"name":     fmt.Sprintf("%s %s %s item %d", benchWords[h%16], benchWords[(h>>8)%16], benchWords[(h>>16)%16], i),
			"category": fmt.Sprintf("cat-%02d", (h>>24)%50),
			"price":    float64((h>>32)%100000) / 100,
			"qty":      int((h >> 48) % 1000),
			"created":  start.Add(time.Duration(h>>40%(4*365*24*3600)) * time.Second).Format(time.RFC3339),
			"active":   (h>>56)%2 == 0,
		})
	}
	return rows
}

// mustBenchEnv builds (or reopens) the benchmark index and serves it.
func mustBenchEnv(b *testing.B) (*httptest.Server, string) {
	b.Helper()
	ctx := context.Background()
	dir := *benchDir
	if dir == "" {
		dir = b.TempDir()
	}
	dir = filepath.Join(dir, fmt.Sprintf("objects-%d", *benchObjects))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	w, err := icebergtest.NewWarehouse(filepath.Join(dir, "warehouse"))
	if err != nil {
		b.Fatal(err)
	}
	done := filepath.Join(dir, "table-written")
	if _, err := os.Stat(done); err != nil {
		sc := iceberg.NewSchemaWithIdentifiers(1, []int{1},
			iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
			iceberg.NestedField{ID: 2, Name: "name", Type: iceberg.PrimitiveTypes.String},
			iceberg.NestedField{ID: 3, Name: "category", Type: iceberg.PrimitiveTypes.String},
			iceberg.NestedField{ID: 4, Name: "price", Type: iceberg.PrimitiveTypes.Float64},
			iceberg.NestedField{ID: 5, Name: "qty", Type: iceberg.PrimitiveTypes.Int32},
			iceberg.NestedField{ID: 6, Name: "created", Type: iceberg.PrimitiveTypes.TimestampTz},
			iceberg.NestedField{ID: 7, Name: "active", Type: iceberg.PrimitiveTypes.Bool},
		)
		_ = os.RemoveAll(filepath.Join(dir, "warehouse"))
		if w, err = icebergtest.NewWarehouse(filepath.Join(dir, "warehouse")); err != nil {
			b.Fatal(err)
		}
		tbl, err := w.CreateTable(ctx, "bench.items", sc, nil)
		if err != nil {
			b.Fatal(err)
		}
		const batch = 100_000
		for from := 0; from < *benchObjects; from += batch {
			if err := tbl.Append(ctx, benchRows(from, min(from+batch, *benchObjects))); err != nil {
				b.Fatal(err)
			}
		}
		if err := os.WriteFile(done, nil, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	cfg := config.Default()
	cfg.Ontology.APIName = "bench"
	cfg.DataDir = filepath.Join(dir, "data")
	cfg.Catalogs = map[string]config.Catalog{"warehouse": {Type: "hadoop", Properties: map[string]string{"warehouse": w.Dir}}}
	cfg.ObjectTypes = []objects.TypeSpec{{APIName: "Item", Table: "warehouse.bench.items", TitleProperty: "name",
		Properties: map[string]objects.PropertySpec{"id": {Column: "id"}, "name": {Column: "name"}, "category": {Column: "category", Search: objects.SearchKeyword},
			"price": {Column: "price"}, "qty": {Column: "qty"}, "created": {Column: "created"}, "active": {Column: "active"}}}}
	cfg.Auth.Tokens = []serverconfig.Token{{Name: "bench", Token: appToken, ObjectTypes: []string{"*"}}}
	if err := cfg.Validate(); err != nil {
		b.Fatal(err)
	}
	ix, err := indexer.Open(ctx, cfg, indexer.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = ix.Close() })
	start := time.Now()
	res, err := ix.Build(ctx, "Item", indexer.BuildOptions{})
	if err != nil {
		b.Fatal(err)
	}
	if res.Upserts > 0 {
		b.Logf("built %d objects in %s", res.Upserts, time.Since(start).Round(time.Second))
	}
	s, err := api.New(ix, api.Options{})
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	b.Cleanup(srv.Close)
	srv.Client().Transport.(*http.Transport).MaxIdleConnsPerHost = 64
	return srv, srv.URL + "/api/v2/ontologies/bench/objects/Item/search"
}

// benchQueries are filtered and sorted searches of one page of 100.
var benchQueries = []struct {
	name string
	body string
}{
	{"keyword+range/sort=price", `{"pageSize":100,"where":{"type":"and","value":[{"type":"eq","field":"category","value":"cat-07"},{"type":"gte","field":"price","value":100},{"type":"lt","field":"price","value":600}]},"orderBy":{"fields":[{"field":"price","direction":"desc"}]}}`},
	{"text+bool/sort=created", `{"pageSize":100,"where":{"type":"and","value":[{"type":"containsAllTerms","field":"name","value":"alpha kilo"},{"type":"eq","field":"active","value":true}]},"orderBy":{"fields":[{"field":"created","direction":"desc"}]}}`},
	{"or+not/sort=category,qty", `{"pageSize":100,"where":{"type":"and","value":[{"type":"or","value":[{"type":"startsWith","field":"name","value":"echo golf"},{"type":"in","field":"category","value":["cat-01","cat-02"]}]},{"type":"not","value":{"type":"lt","field":"qty","value":500}}]},"orderBy":{"fields":[{"field":"category"},{"field":"qty","direction":"desc"}]}}`},
	{"broad(50%)/sort=price", `{"pageSize":100,"where":{"type":"eq","field":"active","value":true},"orderBy":{"fields":[{"field":"price","direction":"asc"}]}}`},
}

func post(tb testing.TB, client *http.Client, url, body string) map[string]any {
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader([]byte(body)))
	req.Header.Set("Authorization", "Bearer "+appToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		tb.Fatalf("status %d: %s", resp.StatusCode, raw)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		tb.Fatal(err)
	}
	return m
}

func reportLatency(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[min(len(lat)-1, len(lat)*99/100)].Microseconds())/1000, "p99-ms")
}

func BenchmarkSearchHTTP(b *testing.B) {
	srv, url := mustBenchEnv(b)
	client := srv.Client()
	for _, q := range benchQueries {
		m := post(b, client, url, q.body)
		b.Logf("%s: totalCount %v", q.name, m["totalCount"])
		b.Run(q.name, func(b *testing.B) {
			lat := make([]time.Duration, 0, b.N)
			for b.Loop() {
				t0 := time.Now()
				post(b, client, url, q.body)
				lat = append(lat, time.Since(t0))
			}
			reportLatency(b, lat)
			b.ReportMetric(float64(len(lat))/b.Elapsed().Seconds(), "req/s")
		})
		b.Run(q.name+"/parallel", func(b *testing.B) {
			var mu sync.Mutex
			var lat []time.Duration
			b.SetParallelism(4)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				var mine []time.Duration
				for pb.Next() {
					t0 := time.Now()
					post(b, client, url, q.body)
					mine = append(mine, time.Since(t0))
				}
				mu.Lock()
				lat = append(lat, mine...)
				mu.Unlock()
			})
			reportLatency(b, lat)
			b.ReportMetric(float64(len(lat))/b.Elapsed().Seconds(), "req/s")
		})
	}
	// Deep paging: each iteration is the next page of 1000 of a sorted,
	// filtered search; the latency of a page does not grow with its depth.
	b.Run("paging-depth", func(b *testing.B) {
		const q = `{"pageSize":1000,"where":{"type":"gte","field":"qty","value":500},"orderBy":{"fields":[{"field":"price"}]}`
		var lat []time.Duration
		tok := ""
		for b.Loop() {
			body := q + "}"
			if tok != "" {
				body = q + `,"pageToken":"` + tok + `"}`
			}
			t0 := time.Now()
			m := post(b, client, url, body)
			lat = append(lat, time.Since(t0))
			tok, _ = m["nextPageToken"].(string)
		}
		n := min(10, len(lat))
		first, last := slices.Clone(lat[:n]), slices.Clone(lat[len(lat)-n:])
		slices.Sort(first)
		slices.Sort(last)
		b.ReportMetric(float64(len(lat)), "pages")
		b.ReportMetric(float64(first[n/2].Microseconds())/1000, "first10-p50-ms")
		b.ReportMetric(float64(last[n/2].Microseconds())/1000, "last10-p50-ms")
	})
}
