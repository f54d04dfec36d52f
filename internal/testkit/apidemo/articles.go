package apidemo

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/apache/iceberg-go"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
	"github.com/ontoindex/ontoindex/objects"
)

// The articles are a fourth, separate part of the demo: one object type,
// Article, with a vector property (embedding) over a list<float> column,
// for nearestNeighbors. Like the shop, it leaves Specs alone; a test or
// the end-to-end seed adds ArticleSpecs to serve it.

// Articles is the number of article rows; ArticleDimension the length of
// their embeddings.
const (
	Articles         = 60
	ArticleDimension = 8
)

var articleTopics = []string{"maps", "search", "storage"}

// ArticleID is the primary key of article i (1-based).
func ArticleID(i int) string { return fmt.Sprintf("a%02d", i) }

// ArticleEmbedding is the embedding of article i: drawn from a fixed seed,
// near its topic's direction (articles of a topic are each other's
// neighbours). Article 7 has none (a null vector).
func ArticleEmbedding(i int) []float64 {
	if i == 7 {
		return nil
	}
	r := rand.New(rand.NewPCG(uint64(i), 26))
	v := make([]float64, ArticleDimension)
	topic := i % len(articleTopics)
	for j := range v {
		v[j] = r.NormFloat64() * 0.3
		if j%len(articleTopics) == topic {
			v[j] += 1
		}
	}
	return v
}

// ArticleRows returns the article rows: article i is on topic
// articleTopics[i%3], with ArticleEmbedding(i).
func ArticleRows() []icebergtest.Row {
	rows := make([]icebergtest.Row, 0, Articles)
	for i := 1; i <= Articles; i++ {
		r := icebergtest.Row{"article_id": ArticleID(i), "title": fmt.Sprintf("Article %d", i),
			"topic": articleTopics[i%len(articleTopics)], "emb": nil}
		if v := ArticleEmbedding(i); v != nil {
			r["emb"] = v
		}
		rows = append(rows, r)
	}
	return rows
}

var articleSchema = iceberg.NewSchemaWithIdentifiers(1, []int{1},
	iceberg.NestedField{ID: 1, Name: "article_id", Type: iceberg.PrimitiveTypes.String, Required: true},
	iceberg.NestedField{ID: 2, Name: "title", Type: iceberg.PrimitiveTypes.String},
	iceberg.NestedField{ID: 3, Name: "topic", Type: iceberg.PrimitiveTypes.String},
	iceberg.NestedField{ID: 4, Name: "emb", Type: &iceberg.ListType{ElementID: 5, Element: iceberg.PrimitiveTypes.Float32}},
)

// CreateArticles writes demo.articles into w.
func CreateArticles(ctx context.Context, w *icebergtest.Warehouse) error {
	_, err := w.WriteTable(ctx, "demo.articles", articleSchema, nil, ArticleRows())
	return err
}

// ArticleSpecs is the Article object type over a catalog named catalog,
// its embedding a cosine vector.
func ArticleSpecs(catalog string) []objects.TypeSpec {
	return []objects.TypeSpec{{
		APIName: "Article", DisplayName: "Article", PluralDisplayName: "Articles", Table: catalog + ".demo.articles", TitleProperty: "title",
		Properties: map[string]objects.PropertySpec{"articleId": {Column: "article_id", Search: objects.SearchKeyword},
			"title": {Column: "title"}, "topic": {Column: "topic", Search: objects.SearchKeyword},
			"embedding": {Column: "emb", Type: "vector", Dimension: ArticleDimension, Similarity: objects.SimilarityCosine}},
	}}
}
