package api_test

import (
	"regexp"
	"strings"

	"github.com/ontoindex/ontoindex/internal/spelling"
	"github.com/ontoindex/ontoindex/objects"
)

// The oracle's filter evaluation, written from the wire contract (api/
// README.md) and not from the engine: which objects a where clause or an
// object set selects.

// dfBad reports whether a clause must be refused with 400: a text query
// on a text property whose text has no terms.
func (s *dfState) dfBad(w *dfWhere) bool {
	for _, l := range w.leaves() {
		p, _ := s.prop(l.prop)
		switch l.op {
		case "containsAllTerms", "containsAnyTerm", "containsAllTermsInOrder", "containsAllTermsInOrderPrefixLastTerm", "startsWith":
			if p.Search == objects.SearchText && len(dfTerms(l.text)) == 0 {
				return true
			}
		}
	}
	return false
}

// matches evaluates a where clause on one object (nil: every object).
func (s *dfState) matches(w *dfWhere, ob *dfObj) bool {
	if w == nil {
		return true
	}
	switch w.op {
	case "and":
		for _, k := range w.kids {
			if !s.matches(k, ob) {
				return false
			}
		}
		return true
	case "or":
		for _, k := range w.kids {
			if s.matches(k, ob) {
				return true
			}
		}
		return false
	case "not":
		return !s.matches(w.kids[0], ob)
	}
	p, i := s.prop(w.prop)
	v := ob.o.Values[i]
	anyElem := func(f func(e any) bool) bool {
		for _, e := range dfElems(v) {
			if f(e) {
				return true
			}
		}
		return false
	}
	switch w.op {
	case "isNull":
		return (v == nil) == w.value.(bool)
	case "eq", "contains":
		return anyElem(func(e any) bool { return dfCmp(e, w.value) == 0 })
	case "in":
		if len(w.values) == 0 {
			return true
		}
		return anyElem(func(e any) bool {
			for _, x := range w.values {
				if dfCmp(e, x) == 0 {
					return true
				}
			}
			return false
		})
	case "gt":
		return anyElem(func(e any) bool { return dfCmp(e, w.value) > 0 })
	case "gte":
		return anyElem(func(e any) bool { return dfCmp(e, w.value) >= 0 })
	case "lt":
		return anyElem(func(e any) bool { return dfCmp(e, w.value) < 0 })
	case "lte":
		return anyElem(func(e any) bool { return dfCmp(e, w.value) <= 0 })
	case "wildcard":
		re := dfWildcardRE(w.text)
		return anyElem(func(e any) bool { return re.MatchString(e.(string)) })
	case "regex":
		re := regexp.MustCompile(`^(?:` + w.text + `)$`)
		return anyElem(func(e any) bool { return re.MatchString(e.(string)) })
	}
	if p.Search == objects.SearchKeyword { // startsWith, ...PrefixLastTerm: the whole value
		return anyElem(func(e any) bool { return strings.HasPrefix(e.(string), w.text) })
	}
	return dfTextMatch(w.op, dfTerms(w.text), w.fuzzy, ob.toks[i])
}

// dfTextMatch evaluates a text query over the terms of each element.
func dfTextMatch(op string, q []string, fuzzy bool, elems [][]string) bool {
	hasTerm := func(t string, match func(qt, vt string) bool) bool {
		for _, el := range elems {
			for _, vt := range el {
				if match(t, vt) {
					return true
				}
			}
		}
		return false
	}
	term := func(qt, vt string) bool {
		if fuzzy {
			return spelling.Distance(qt, vt) <= dfFuzziness(qt)
		}
		return qt == vt
	}
	exact := func(qt, vt string) bool { return qt == vt }
	switch op {
	case "containsAllTerms":
		for _, t := range q {
			if !hasTerm(t, term) {
				return false
			}
		}
		return true
	case "containsAnyTerm":
		for _, t := range q {
			if hasTerm(t, term) {
				return true
			}
		}
		return false
	case "containsAllTermsInOrder":
		if len(q) == 1 {
			return hasTerm(q[0], exact)
		}
		return dfPhrase(q, elems, false)
	}
	// containsAllTermsInOrderPrefixLastTerm, startsWith
	if len(q) == 1 {
		return hasTerm(q[0], func(qt, vt string) bool { return strings.HasPrefix(vt, qt) })
	}
	return dfPhrase(q, elems, true)
}

// dfPhrase: the terms as consecutive tokens of one element; with prefix,
// the last query term only needs to start the last token.
func dfPhrase(q []string, elems [][]string, prefix bool) bool {
	for _, el := range elems {
		for at := 0; at+len(q) <= len(el); at++ {
			ok := true
			for j, t := range q {
				vt := el[at+j]
				if j == len(q)-1 && prefix {
					ok = strings.HasPrefix(vt, t)
				} else {
					ok = vt == t
				}
				if !ok {
					break
				}
			}
			if ok {
				return true
			}
		}
	}
	return false
}

// dfFuzziness is the edit distance a fuzzy term allows: 0 for 1-2 runes,
// 1 for 3-5, 2 beyond.
func dfFuzziness(t string) int {
	switch n := len([]rune(t)); {
	case n <= 2:
		return 0
	case n <= 5:
		return 1
	}
	return 2
}

// dfWildcardRE: * any run of runes, ? one rune, \ takes the next rune
// literally; the whole value, case-sensitive.
func dfWildcardRE(p string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString(`^(?s:`)
	rs := []rune(p)
	for i := 0; i < len(rs); i++ {
		switch rs[i] {
		case '*':
			b.WriteString(`.*`)
		case '?':
			b.WriteString(`.`)
		case '\\':
			if i+1 < len(rs) {
				i++
			}
			b.WriteString(regexp.QuoteMeta(string(rs[i])))
		default:
			b.WriteString(regexp.QuoteMeta(string(rs[i])))
		}
	}
	b.WriteString(`)$`)
	return regexp.MustCompile(b.String())
}

// filter returns the objects a clause matches, in primary-key order.
func (s *dfState) filter(w *dfWhere) []*dfObj {
	var out []*dfObj
	for _, ob := range s.objs {
		if s.matches(w, ob) {
			out = append(out, ob)
		}
	}
	return out
}

// members evaluates an object set: in[i] says whether s.objs[i] is in
// it; typed reports whether the set names the object type at all (a set
// built only of empty static sets does not).
func (s *dfState) members(set *dfSet) (in []bool, typed bool) {
	in = make([]bool, len(s.objs))
	switch set.kind {
	case "base":
		for i := range in {
			in[i] = true
		}
		return in, true
	case "filter":
		inner, typed := s.members(set.kids[0])
		if !typed {
			return in, false
		}
		for i, ob := range s.objs {
			in[i] = inner[i] && s.matches(set.where, ob)
		}
		return in, true
	case "static":
		want := map[string]bool{}
		for _, rid := range set.rids {
			want[rid] = true
		}
		for i, ob := range s.objs {
			in[i] = want[dfRID(ob.key)]
		}
		return in, len(set.rids) > 0
	}
	var kids [][]bool
	for _, k := range set.kids {
		m, t := s.members(k)
		kids = append(kids, m)
		typed = typed || t
	}
	for i := range in {
		switch set.kind {
		case "union":
			for _, k := range kids {
				in[i] = in[i] || k[i]
			}
		case "intersect":
			in[i] = true
			for _, k := range kids {
				in[i] = in[i] && k[i]
			}
		case "subtract":
			in[i] = kids[0][i]
			for _, k := range kids[1:] {
				in[i] = in[i] && !k[i]
			}
		}
	}
	return in, typed
}

// setBad reports whether an object set must be refused with 400: a bad
// where clause in one of its filters.
func (s *dfState) setBad(set *dfSet) bool {
	for _, k := range set.kids {
		if s.setBad(k) {
			return true
		}
	}
	return set.kind == "filter" && s.dfBad(set.where)
}

// setUnclear reports a set the contract does not decide: a bad where
// clause filtering a set of no type (nothing to check the clause against).
func (s *dfState) setUnclear(set *dfSet) bool {
	for _, k := range set.kids {
		if s.setUnclear(k) {
			return true
		}
	}
	if set.kind == "filter" && s.dfBad(set.where) {
		_, typed := s.members(set.kids[0])
		return !typed
	}
	return false
}
