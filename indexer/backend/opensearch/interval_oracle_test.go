//go:build integration_opensearch

package opensearch

import (
	"math/rand/v2"
	"strings"

	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// randomRule is a random interval rule of depth at most depth, of the
// rules the OpenSearch backend translates (no allOf, no match able to
// span two values of a list), over a few words so that terms repeat.
func randomRule(r *rand.Rand, p objects.Property, depth int) *query.Rule {
	words := func(n int) string {
		ws := make([]string, n)
		for i := range ws {
			ws[i] = itemWords[r.IntN(4)*3]
		}
		return strings.Join(ws, []string{" ", ", ", "-"}[r.IntN(3)])
	}
	switch r.IntN(6) {
	case 0:
		if depth > 0 {
			kids := make([]*query.Rule, 1+r.IntN(3))
			for i := range kids {
				kids[i] = randomRule(r, p, depth-1)
			}
			return &query.Rule{Kind: query.RuleAnyOf, Rules: kids}
		}
	case 1:
		w := []rune(itemWords[r.IntN(len(itemWords))])
		w[r.IntN(len(w))] = 'x'
		return &query.Rule{Kind: query.RuleFuzzy, Query: string(w), Fuzziness: r.IntN(4) - 1}
	case 2:
		q := words(1 + r.IntN(3))
		return &query.Rule{Kind: query.RulePrefix, Query: q[:len(q)-r.IntN(4)]}
	}
	gaps := []int{query.NoGapLimit, 0, 1, 3}[r.IntN(4)]
	if p.Type.Kind == objects.KindList && gaps == query.NoGapLimit {
		gaps = 2
	}
	return &query.Rule{Kind: query.RuleMatch, Query: words(1 + r.IntN(3)), Ordered: r.IntN(2) == 0, MaxGaps: gaps}
}
