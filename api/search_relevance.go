package api

import (
	"strconv"

	"github.com/ontoindex/ontoindex/api/wire"
)

// orderRelevance is SearchOrderByType relevance: the engine's BM25 order
// over the text terms of the where clause, then primary key. Each object
// of such a page carries its score as __score (which @osdk/client 2.22.0
// returns as $score).
const orderRelevance = "relevance"

// relevanceOrder checks an orderBy of type relevance.
func relevanceOrder(ob *orderByV2) ([]sortField, error) {
	if len(ob.Fields) > 0 {
		return nil, wire.Err(wire.NameInvalidOrderType, map[string]any{"orderType": ob.OrderType,
			"reason": "an orderBy of type relevance takes no fields (send fields: [])"})
	}
	return []sortField{{relevance: true}}, nil
}

// relevanceOfOneType refuses relevance on a set of several types or an
// interface: their scores would come from different statistics.
func relevanceOfOneType() error {
	return wire.Err(wire.NameInvalidOrderType, map[string]any{"orderType": orderRelevance,
		"reason": "relevance order applies to a search of one object type, not to interfaces or sets of several types"})
}

// appendScore adds "__score" to the object row that ends b.
func appendScore(b []byte, score float64) []byte {
	b = append(b[:len(b)-1], `,"__score":`...)
	return append(strconv.AppendFloat(b, score, 'g', -1, 64), '}')
}
