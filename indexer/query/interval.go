package query

import (
	"fmt"
	"strings"
)

// RuleKind is the kind of an interval rule.
type RuleKind uint8

// Interval rule kinds (IntervalQueryRule of the Ontology API).
const (
	_ RuleKind = iota
	// RuleMatch: the terms of Query, each at its own position, in Query's
	// order when Ordered, with at most MaxGaps positions between them.
	RuleMatch
	// RulePrefix: the terms of Query as adjacent terms in order, the last
	// one as a prefix (prefixOnLastToken).
	RulePrefix
	// RuleFuzzy: one term within Fuzziness edits of Query's term.
	RuleFuzzy
	// RuleAllOf: one interval of each of Rules, none overlapping another,
	// in Rules' order when Ordered, with at most MaxGaps positions
	// between them.
	RuleAllOf
	// RuleAnyOf: an interval of any of Rules.
	RuleAnyOf
)

var ruleNames = [...]string{RuleMatch: "match", RulePrefix: "prefixOnLastToken", RuleFuzzy: "fuzzy", RuleAllOf: "allOf", RuleAnyOf: "anyOf"}

func (k RuleKind) String() string {
	if int(k) < len(ruleNames) && ruleNames[k] != "" {
		return ruleNames[k]
	}
	return fmt.Sprintf("rule(%d)", k)
}

// NoGapLimit is the MaxGaps of a rule without a limit.
const NoGapLimit = -1

// Rule is an interval rule: it yields intervals [start, end] of term
// positions of an analyzed value. docs/api.md states the semantics.
type Rule struct {
	Kind      RuleKind
	Query     string // RuleMatch, RulePrefix, RuleFuzzy (its one term)
	Ordered   bool   // RuleMatch, RuleAllOf
	MaxGaps   int    // RuleMatch, RuleAllOf; NoGapLimit for none
	Fuzziness int    // RuleFuzzy: edits allowed, 0..2; -1 for Fuzziness(term)
	Rules     []*Rule
}

// String renders the rule for messages and tests.
func (r *Rule) String() string {
	if r == nil {
		return "nil"
	}
	switch r.Kind {
	case RuleAllOf, RuleAnyOf:
		parts := make([]string, len(r.Rules))
		for i, k := range r.Rules {
			parts[i] = k.String()
		}
		return fmt.Sprintf("%s(%s%s)", r.Kind, strings.Join(parts, ", "), r.flags())
	case RuleFuzzy:
		return fmt.Sprintf("fuzzy(%q, %d)", r.Query, r.Fuzziness)
	}
	return fmt.Sprintf("%s(%q%s)", r.Kind, r.Query, r.flags())
}

func (r *Rule) flags() string {
	if r.Kind != RuleMatch && r.Kind != RuleAllOf {
		return ""
	}
	s := ""
	if r.Ordered {
		s += " ordered"
	}
	if r.MaxGaps != NoGapLimit {
		s += fmt.Sprintf(" maxGaps=%d", r.MaxGaps)
	}
	return s
}

// Interval is a filter matching the objects where rule has an interval in
// one value of the text property.
func Interval(property string, rule *Rule) *Filter {
	return &Filter{Op: OpInterval, Property: property, Interval: rule}
}
