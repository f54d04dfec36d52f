package api

import "github.com/ontoindex/ontoindex/objects"

// similarityName is the VectorSimilarityFunctionValue of
// @osdk/foundry.ontologies 2.57.0 for a config similarity.
func similarityName(similarity string) string {
	switch similarity {
	case objects.SimilarityDotProduct:
		return "DOT_PRODUCT"
	case objects.SimilarityEuclidean:
		return "EUCLIDEAN_DISTANCE"
	}
	return "COSINE_SIMILARITY"
}

// vectorDataType renders a vector property's type as VectorType: its
// dimension and the one similarity it is searched with. No embeddingModel:
// ontoindex ships none.
func vectorDataType(dt objects.DataType) map[string]any {
	return map[string]any{"type": "vector", "dimension": dt.Dimension,
		"supportsSearchWith": []any{map[string]any{"value": similarityName(dt.Similarity)}}}
}
