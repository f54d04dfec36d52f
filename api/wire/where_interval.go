package wire

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// An interval query (IntervalQuery) carries a tree of rules
// (IntervalQueryRule) instead of a value. Each rule counts as a clause and
// a level of depth, like the queries of and and or; an error names the
// rule by its path from the query (rule.rules[1].maxGaps).

const opInterval = "interval"

// maxUnorderedParts matches the engine's bound on the parts of an
// unordered match or allOf.
const maxUnorderedParts = 12

// interval decodes an interval query, at depth.
func (d *WhereDecoder) interval(head Fields, depth int) (*query.Filter, error) {
	var q rawWhere
	var rule json.RawMessage
	for _, kv := range head {
		switch kv.Key {
		case "type":
		case "field", "propertyIdentifier":
			one := Fields{kv}
			r, err := whereOf(one)
			if err != nil {
				return nil, Malformed(opInterval, err.Error())
			}
			if r.Field != nil {
				q.Field = r.Field
			}
			if r.PropertyIdentifier != nil {
				q.PropertyIdentifier = r.PropertyIdentifier
			}
		case "rule":
			rule = kv.Val
		default:
			return nil, Malformed(opInterval, fmt.Sprintf("json: unknown field %q (interval takes field or propertyIdentifier, and rule)", kv.Key))
		}
	}
	p, err := d.property(opInterval, q)
	if err != nil {
		return nil, err
	}
	if p.Search != objects.SearchText {
		return nil, notSupported(opInterval, p, fmt.Sprintf("interval applies to text properties; %s has search role %s", p.APIName, p.Search))
	}
	if IsNull(rule) {
		return nil, Malformed(opInterval, "interval needs rule: an IntervalQueryRule")
	}
	r, err := d.rule(rule, "rule", depth+1)
	if err != nil {
		return nil, err
	}
	return query.Interval(p.APIName, r), nil
}

// rule decodes the rule at path.
func (d *WhereDecoder) rule(raw json.RawMessage, path string, depth int) (*query.Rule, error) {
	if depth > d.MaxDepth {
		return nil, Err(NameWhereClauseTooComplex, map[string]any{"maxDepth": d.MaxDepth, "reason": fmt.Sprintf("%s is nested deeper than %d levels", path, d.MaxDepth)})
	}
	if err := d.Count(1); err != nil {
		return nil, err
	}
	bad := func(format string, args ...any) error {
		return Malformed(opInterval, path+": "+fmt.Sprintf(format, args...))
	}
	head, ok := JSONObject(raw)
	if !ok {
		return nil, bad("a rule must be a JSON object with a type, not %s", JSONKind(raw))
	}
	typ, _ := JSONString(head.Get("type"))
	kinds := map[string]query.RuleKind{"match": query.RuleMatch, "prefixOnLastToken": query.RulePrefix,
		"fuzzy": query.RuleFuzzy, "allOf": query.RuleAllOf, "anyOf": query.RuleAnyOf}
	keys := map[string]string{"match": "query maxGaps ordered", "prefixOnLastToken": "query",
		"fuzzy": "term fuzziness", "allOf": "rules maxGaps ordered", "anyOf": "rules"}
	kind, ok := kinds[typ]
	if !ok {
		return nil, bad("unknown rule type %q (allOf, anyOf, match, prefixOnLastToken, fuzzy)", typ)
	}
	r := &query.Rule{Kind: kind, MaxGaps: query.NoGapLimit, Fuzziness: -1}
	allowed := strings.Fields(keys[typ])
	for _, kv := range head {
		k, v := kv.Key, kv.Val
		if k == "type" {
			continue
		}
		if !slices.Contains(allowed, k) {
			return nil, bad("json: unknown field %q (a %s rule takes %s)", k, typ, strings.Join(allowed, ", "))
		}
		if IsNull(v) {
			continue
		}
		switch k {
		case "query", "term":
			s, ok := JSONString(v)
			if !ok {
				return nil, bad("%s must be a string, not %s", k, JSONKind(v))
			}
			r.Query = s
		case "ordered":
			if err := json.Unmarshal(v, &r.Ordered); err != nil {
				return nil, bad("ordered must be a boolean, not %s", JSONKind(v))
			}
		case "maxGaps", "fuzziness":
			var n int
			if err := json.Unmarshal(v, &n); err != nil || n < 0 || k == "fuzziness" && n > 2 {
				limit := "a non-negative integer"
				if k == "fuzziness" {
					limit = "0, 1 or 2"
				}
				return nil, bad("%s must be %s, not %s", k, limit, strings.TrimSpace(string(v)))
			}
			if k == "maxGaps" {
				r.MaxGaps = n
			} else {
				r.Fuzziness = n
			}
		case "rules":
			list, ok := JSONArray(v)
			if !ok || len(list) == 0 {
				return nil, bad("rules must be a non-empty array of rules")
			}
			if kind == query.RuleAllOf && len(list) > maxUnorderedParts {
				// An ordered allOf could take more, but one bound is easier to state.
				return nil, bad("allOf takes at most %d rules", maxUnorderedParts)
			}
			for i, kr := range list {
				k, err := d.rule(kr, fmt.Sprintf("%s.rules[%d]", path, i), depth+1)
				if err != nil {
					return nil, err
				}
				r.Rules = append(r.Rules, k)
			}
		}
	}
	switch kind {
	case query.RuleAllOf, query.RuleAnyOf:
		if len(r.Rules) == 0 {
			return nil, bad("%s needs rules: a non-empty array of rules", typ)
		}
		return r, nil
	}
	terms := query.Analyze(r.Query)
	what := "query"
	if kind == query.RuleFuzzy {
		what = "term"
	}
	switch {
	case len(terms) == 0:
		return nil, bad("%s needs %s: a string holding at least one term", typ, what)
	case kind == query.RuleFuzzy && len(terms) > 1:
		return nil, bad("fuzzy term %q holds %d terms; it takes one", r.Query, len(terms))
	case kind == query.RuleMatch && len(terms) > maxUnorderedParts:
		return nil, bad("match takes at most %d terms", maxUnorderedParts)
	}
	return r, nil
}
