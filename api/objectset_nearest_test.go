package api_test

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/internal/testkit/apidemo"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
)

// mustArticleEnv is mustEnv with apidemo's Article served too: a vector
// property (embedding) over a real Iceberg list<float> column.
func mustArticleEnv(tb testing.TB) *testEnv {
	tb.Helper()
	ctx := context.Background()
	articles := func(cfg *config.Config) {
		w, err := icebergtest.NewWarehouse(cfg.Catalogs["warehouse"].Properties["warehouse"])
		if err != nil {
			tb.Fatal(err)
		}
		if err := apidemo.CreateArticles(ctx, w); err != nil {
			tb.Fatal(err)
		}
		cfg.ObjectTypes = append(cfg.ObjectTypes, apidemo.ArticleSpecs("warehouse")...)
	}
	e := mustEnv(tb, articles)
	if _, err := e.ix.Build(ctx, "Article", indexer.BuildOptions{}); err != nil {
		tb.Fatalf("build Article: %v", err)
	}
	return e
}

func nearest(set any, property string, k any, q any) map[string]any {
	return map[string]any{"type": "nearestNeighbors", "objectSet": set, "propertyIdentifier": map[string]any{"type": "property", "apiName": property},
		"numNeighbors": k, "query": q}
}

func vectorQuery(v []float64) map[string]any { return map[string]any{"type": "vector", "value": v} }

// articleCosines is the oracle: the cosine of every article with an
// embedding (as stored: float32) to q, by id.
func articleCosines(q []float64) map[string]float64 {
	out := map[string]float64{}
	for i := 1; i <= apidemo.Articles; i++ {
		v := apidemo.ArticleEmbedding(i)
		if v == nil {
			continue
		}
		var dot, nv, nq float64
		for j := range v {
			x := float64(float32(v[j]))
			dot += x * q[j]
			nv += x * x
			nq += q[j] * q[j]
		}
		out[apidemo.ArticleID(i)] = dot / math.Sqrt(nv) / math.Sqrt(nq)
	}
	return out
}

// oracleNearest is the k ids of the highest cosines among those keep
// allows, highest first, ties by id.
func oracleNearest(cos map[string]float64, k int, keep func(id string) bool) []string {
	var ids []string
	for id := range cos {
		if keep(id) {
			ids = append(ids, id)
		}
	}
	slices.SortFunc(ids, func(a, b string) int {
		if cos[a] != cos[b] {
			if cos[a] > cos[b] {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	return ids[:min(k, len(ids))]
}

func articleTopic(id string) string {
	for i := 1; i <= apidemo.Articles; i++ {
		if apidemo.ArticleID(i) == id {
			return apidemo.ArticleRows()[i-1]["topic"].(string)
		}
	}
	return ""
}

func TestObjectSets_nearestNeighbors(t *testing.T) {
	e := mustArticleEnv(t)
	relevance := map[string]any{"orderType": "relevance", "fields": []any{}}
	q := []float64{0.9, 0.1, -0.2, 0.8, 0.3, 0, 0.1, 0.2}
	cos := articleCosines(q)
	isMaps := func(id string) bool { return articleTopic(id) == "maps" }
	all := func(string) bool { return true }
	tests := []struct {
		name  string
		set   any
		k     int
		keep  func(string) bool
		after func(string) bool // a filter over the nearest: narrows them
	}{
		{"all articles", nearest(base("Article"), "embedding", 5, vectorQuery(q)), 5, all, all},
		{"filtered first", nearest(filter(base("Article"), `{"type":"eq","field":"topic","value":"maps"}`), "embedding", 7, vectorQuery(q)), 7, isMaps, all},
		{"filtered after", filter(nearest(base("Article"), "embedding", 10, vectorQuery(q)), `{"type":"eq","field":"topic","value":"maps"}`), 10, all, isMaps},
		{"more than there are", nearest(base("Article"), "embedding", 500, vectorQuery(q)), 500, all, all},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var want []string
			for _, id := range oracleNearest(cos, tt.k, tt.keep) {
				if tt.after(id) {
					want = append(want, id)
				}
			}
			objs, _ := e.load(t, map[string]any{"objectSet": tt.set, "orderBy": relevance, "pageSize": 1000})
			var got []string
			for i, o := range objs {
				id := o["__primaryKey"].(string)
				got = append(got, id)
				score, err := o["__score"].(json.Number).Float64()
				if err != nil {
					t.Fatalf("%s: no __score: %v", id, o)
				}
				if want := (1 + cos[id]) / 2; math.Abs(score-want) > 1e-5 {
					t.Errorf("%s: __score %v, want (1+cos)/2 = %v", id, score, want)
				}
				if i > 0 {
					prev, _ := objs[i-1]["__score"].(json.Number).Float64()
					if score > prev {
						t.Errorf("scores increase at %s", id)
					}
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("nearest = %v, want %v", got, want)
			}
			// Without a relevance order: the same objects, by primary key,
			// without scores.
			objs, _ = e.load(t, map[string]any{"objectSet": tt.set, "pageSize": 1000})
			got = got[:0]
			for _, o := range objs {
				got = append(got, o["__primaryKey"].(string))
				if _, ok := o["__score"]; ok {
					t.Errorf("a score without a relevance order: %v", o)
				}
			}
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("by key: %v, want %v", got, want)
			}
		})
	}
	t.Run("object and metadata", func(t *testing.T) {
		o := e.ok(t, http.MethodGet, ontologyPath+"/objects/Article/a01", nil)
		got, _ := o["embedding"].([]any)
		want := apidemo.ArticleEmbedding(1)
		if len(got) != len(want) {
			t.Fatalf("embedding = %v", o["embedding"])
		}
		for i := range want {
			if x, _ := got[i].(json.Number).Float64(); float32(x) != float32(want[i]) {
				t.Errorf("element %d = %v, want %v", i, got[i], float32(want[i]))
			}
		}
		ot := e.ok(t, http.MethodGet, ontologyPath+"/objectTypes/Article", nil)
		dt := ot["properties"].(map[string]any)["embedding"].(map[string]any)["dataType"]
		b, _ := json.Marshal(dt)
		if string(b) != `{"dimension":8,"supportsSearchWith":[{"value":"COSINE_SIMILARITY"}],"type":"vector"}` {
			t.Errorf("dataType = %s", b)
		}
	})
}

func TestObjectSets_nearestNeighbors_errors(t *testing.T) {
	e := mustArticleEnv(t)
	q := vectorQuery(make([]float64, apidemo.ArticleDimension))
	tests := []struct {
		name    string
		set     any
		status  int
		errName string
		message string
	}{
		{"text query", nearest(base("Article"), "embedding", 5, map[string]any{"type": "text", "value": "maps of Lisbon"}),
			400, "PropertyTypeDoesNotSupportNearestNeighbors", "no embedding model is configured for property embedding"},
		{"wrong dimension", nearest(base("Article"), "embedding", 5, vectorQuery([]float64{1, 2, 3})),
			400, "InvalidVectorDimension", "property embedding has dimension 8"},
		{"not a vector", nearest(base("Article"), "title", 5, q), 400, "PropertyTypeDoesNotSupportNearestNeighbors", "property title is string, not a vector"},
		{"no such property", nearest(base("Article"), "nope", 5, q), 404, "PropertiesNotFound", ""},
		{"no neighbours", nearest(base("Article"), "embedding", 0, q), 400, "TooManyNearestNeighborsRequested", "from 1 to 500"},
		{"too many", nearest(base("Article"), "embedding", 501, q), 400, "TooManyNearestNeighborsRequested", "from 1 to 500"},
		{"a fraction", nearest(base("Article"), "embedding", 2.5, q), 400, "TooManyNearestNeighborsRequested", ""},
		{"not numbers", nearest(base("Article"), "embedding", 5, map[string]any{"type": "vector", "value": []any{"a"}}), 400, "MalformedObjectSet", "array of numbers"},
		{"no query", map[string]any{"type": "nearestNeighbors", "objectSet": base("Article"), "propertyIdentifier": map[string]any{"type": "property", "apiName": "embedding"}, "numNeighbors": 5},
			400, "MalformedObjectSet", "needs objectSet, propertyIdentifier, numNeighbors and query"},
		{"two types", nearest(setOf("union", base("Article"), base("Employee")), "embedding", 5, q), 400, "UnsupportedObjectSet", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := e.fail(t, http.MethodPost, ontologyPath+"/objectSets/loadObjects", map[string]any{"objectSet": tt.set}, tt.status, tt.errName)
			if msg, _ := m["message"].(string); tt.message != "" && !strings.Contains(msg, tt.message) {
				b, _ := json.Marshal(m)
				t.Errorf("error %s does not say %q", b, tt.message)
			}
		})
	}
}
