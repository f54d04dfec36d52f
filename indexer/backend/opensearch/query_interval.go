package opensearch

import (
	"fmt"
	"strings"

	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// maxIntervalParts is the engine's bound on the parts of an unordered
// match (indexer/index's maxUnorderedParts), refused the same way.
const maxIntervalParts = 12

// textPositionGap is the positions between two values of a text list
// (the text field's default position_increment_gap).
const textPositionGap = 100

// interval is the query of an interval filter on a text property: an
// intervals query of the rule, whose terms are query.Analyze's, sent so
// that the cluster does not analyze them again (the whitespace analyzer
// for a match's terms, keyword for a fuzzy term and a prefix).
//
// OpenSearch's intervals are Lucene's minimal intervals, and its
// unordered all_of lets two rules' intervals overlap; the engine keeps
// every interval and never lets parts share a position. Whether a rule
// yields an interval at all is the same on both sides for match, fuzzy,
// prefixOnLastToken and anyOf of those (a span that the engine accepts
// holds a minimal one with no more gaps, and terms at distinct positions
// cannot overlap); an allOf over them is not (docs/api.md's example,
// allOf[ordered, maxGaps 0](match "x", match "a b") on "x a a b", matches
// in the engine only; allOf(match "a b", match "b c") on "a b c" in
// OpenSearch only), so allOf is refused.
func (tr translator) interval(p objects.Property, f *query.Filter) (map[string]any, error) {
	if p.Search != objects.SearchText {
		return nil, fmt.Errorf("property %s is not a text property", p.APIName)
	}
	if f.Interval == nil {
		return nil, fmt.Errorf("property %s: interval query without a rule", p.APIName)
	}
	rule, err := intervalRule(p, f.Interval)
	if err != nil {
		return nil, err
	}
	return map[string]any{"intervals": map[string]any{path(p): rule}}, nil
}

// intervalRule is the intervals source of a rule, with the engine's
// refusals (indexer/index's intervalRule) and the backend's own.
func intervalRule(p objects.Property, r *query.Rule) (map[string]any, error) {
	switch r.Kind {
	case query.RuleAnyOf:
		if len(r.Rules) == 0 {
			return nil, fmt.Errorf("property %s: %s needs rules", p.APIName, r.Kind)
		}
		kids := make([]any, len(r.Rules))
		for i, k := range r.Rules {
			kid, err := intervalRule(p, k)
			if err != nil {
				return nil, err
			}
			kids[i] = kid
		}
		return map[string]any{"any_of": map[string]any{"intervals": kids}}, nil
	case query.RuleAllOf:
		return nil, fmt.Errorf("property %s: interval rule %s is not supported by the OpenSearch backend (its minimal intervals and overlaps differ from the engine's)", p.APIName, r.Kind)
	case query.RuleMatch, query.RulePrefix, query.RuleFuzzy:
	default:
		return nil, fmt.Errorf("property %s: unknown interval rule %s", p.APIName, r.Kind)
	}
	terms := query.Analyze(r.Query)
	if len(terms) == 0 {
		return nil, fmt.Errorf("property %s: %s %q holds no terms", p.APIName, r.Kind, r.Query)
	}
	switch r.Kind {
	case query.RuleFuzzy:
		if len(terms) != 1 {
			return nil, fmt.Errorf("property %s: fuzzy %q holds %d terms; it takes one", p.APIName, r.Query, len(terms))
		}
		edits := r.Fuzziness
		if edits < 0 {
			edits = query.Fuzziness(terms[0])
		}
		if edits > 2 {
			return nil, fmt.Errorf("property %s: fuzziness %d: at most 2", p.APIName, edits)
		}
		if edits == 0 {
			return matchRule(terms, true, 0), nil
		}
		return map[string]any{"fuzzy": map[string]any{"term": terms[0], "fuzziness": edits,
			"transpositions": true, "prefix_length": 0, "analyzer": "keyword"}}, nil
	case query.RulePrefix:
		prefix := map[string]any{"prefix": map[string]any{"prefix": terms[len(terms)-1], "analyzer": "keyword"}}
		if len(terms) == 1 {
			return prefix, nil
		}
		// Each term a source of width 1, at adjacent positions.
		kids := make([]any, len(terms))
		for i, t := range terms[:len(terms)-1] {
			kids[i] = matchRule([]string{t}, true, 0)
		}
		kids[len(terms)-1] = prefix
		return map[string]any{"all_of": map[string]any{"intervals": kids, "ordered": true, "max_gaps": 0}}, nil
	}
	if !r.Ordered && len(terms) > maxIntervalParts {
		return nil, fmt.Errorf("property %s: an unordered match takes at most %d terms", p.APIName, maxIntervalParts)
	}
	if len(terms) > 1 && p.Type.Kind == objects.KindList && (r.MaxGaps == query.NoGapLimit || r.MaxGaps >= textPositionGap) {
		// The values of a list are one field, textPositionGap positions
		// apart: a match could span two values, which the engine never
		// does.
		return nil, fmt.Errorf("property %s: a match of several terms on a list of text with maxGaps %s is not supported by the OpenSearch backend (at most %d)",
			p.APIName, gapText(r.MaxGaps), textPositionGap-1)
	}
	return matchRule(terms, r.Ordered, r.MaxGaps), nil
}

// matchRule is a match source of terms, taken as they are.
func matchRule(terms []string, ordered bool, maxGaps int) map[string]any {
	m := map[string]any{"query": strings.Join(terms, " "), "analyzer": "whitespace", "ordered": ordered}
	if maxGaps != query.NoGapLimit {
		m["max_gaps"] = maxGaps
	}
	return map[string]any{"match": m}
}

func gapText(g int) string {
	if g == query.NoGapLimit {
		return "unlimited"
	}
	return fmt.Sprint(g)
}
