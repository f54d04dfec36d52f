package index

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/internal/spelling"
)

// referenceBM25 is the formula as written in docs/api.md, apart from the
// engine: k1 = 1.2, b = 0.75, idf = ln(1 + (N - df + 0.5) / (df + 0.5)).
func referenceBM25(n, df, tf, length, average float64) float64 {
	idf := math.Log(1 + (n-df+0.5)/(df+0.5))
	return idf * (tf * 2.2) / (tf + 1.2*(0.25+0.75*length/average))
}

// referenceScores scores every document of want for filter f from the
// objects alone: the terms of each document, each term's document
// frequency, the average length, and the slots of f (a term, or a prefix
// or fuzzy term as its best expansion).
func referenceScores(or *oracle, want state, f *query.Filter) map[uint32]float64 {
	type slot struct {
		prop  string
		match func(term string) bool
	}
	var slots []slot
	seen := map[string]bool{}
	add := func(prop, key string, match func(string) bool) {
		if !seen[prop+"\x00"+key] {
			seen[prop+"\x00"+key] = true
			slots = append(slots, slot{prop, match})
		}
	}
	exact := func(prop, t string) { add(prop, "="+t, func(s string) bool { return s == t }) }
	prefix := func(prop, p string) { add(prop, "^"+p, func(s string) bool { return strings.HasPrefix(s, p) }) }
	fuzzy := func(prop, t string, edits int) {
		add(prop, fmt.Sprintf("~%d%s", edits, t), func(s string) bool {
			return s == t || utf8.ValidString(s) && spelling.Distance(s, t) <= edits
		})
	}
	var rule func(prop string, r *query.Rule)
	rule = func(prop string, r *query.Rule) {
		terms := query.Analyze(r.Query)
		switch r.Kind {
		case query.RuleMatch:
			for _, t := range terms {
				exact(prop, t)
			}
		case query.RulePrefix:
			for _, t := range terms[:len(terms)-1] {
				exact(prop, t)
			}
			prefix(prop, terms[len(terms)-1])
		case query.RuleFuzzy:
			e := r.Fuzziness
			if e < 0 {
				e = query.Fuzziness(terms[0])
			}
			fuzzy(prop, terms[0], e)
		}
		for _, k := range r.Rules {
			rule(prop, k)
		}
	}
	var walk func(f *query.Filter)
	walk = func(f *query.Filter) {
		switch f.Op {
		case query.OpAnd, query.OpOr:
			for _, k := range f.Kids {
				walk(k)
			}
			return
		case query.OpAllTerms, query.OpAnyTerm:
			for _, t := range query.Analyze(f.Text) {
				if f.Fuzzy {
					fuzzy(f.Property, t, query.Fuzziness(t))
				} else {
					exact(f.Property, t)
				}
			}
		case query.OpPhrase:
			for _, t := range query.Analyze(f.Text) {
				exact(f.Property, t)
			}
		case query.OpPhrasePrefix:
			terms := query.Analyze(f.Text)
			for _, t := range terms[:len(terms)-1] {
				exact(f.Property, t)
			}
			prefix(f.Property, terms[len(terms)-1])
		case query.OpInterval:
			rule(f.Property, f.Interval)
		}
	}
	walk(f)
	// The terms of each document, per property.
	docTerms := func(d uint32, prop string) ([]string, bool) {
		v := want[d].Values[or.t.PropertyIndex(prop)]
		if v == nil {
			return nil, false
		}
		var toks []string
		for _, e := range elements(v) {
			toks = append(toks, query.Analyze(e.(string))...)
		}
		return toks, true
	}
	out := map[uint32]float64{}
	for d := range want {
		out[d] = 0
	}
	for _, sl := range slots {
		n, total := 0.0, 0.0
		df := map[string]float64{}
		for d := range want {
			toks, ok := docTerms(d, sl.prop)
			if !ok {
				continue
			}
			n++
			total += float64(len(toks))
			distinct := map[string]bool{}
			for _, t := range toks {
				distinct[t] = true
			}
			for t := range distinct {
				df[t]++
			}
		}
		for d := range want {
			toks, _ := docTerms(d, sl.prop)
			tf := map[string]float64{}
			for _, t := range toks {
				if sl.match(t) {
					tf[t]++
				}
			}
			best := 0.0
			for t, c := range tf {
				best = math.Max(best, referenceBM25(n, df[t], c, float64(len(toks)), total/n))
			}
			out[d] += best
		}
	}
	return out
}

// randTextFilter draws a filter of text queries on name and notes, now
// and then with another filter beside it.
func randTextFilter(r *rand.Rand, depth int) *query.Filter {
	prop := []string{"name", "notes"}[r.IntN(2)]
	words := func() string {
		ws := make([]string, 1+r.IntN(3))
		for i := range ws {
			ws[i] = testWords[r.IntN(len(testWords))]
			if r.IntN(5) == 0 {
				ws[i] = ws[i][:2+r.IntN(3)]
			}
		}
		return strings.Join(ws, " ")
	}
	switch k := r.IntN(7); {
	case k == 0 && depth > 0:
		return query.And(randTextFilter(r, depth-1), randTextFilter(r, depth-1))
	case k == 1 && depth > 0:
		return query.Or(randTextFilter(r, depth-1), randTextFilter(r, depth-1))
	case k == 2:
		return query.Interval(prop, randRule(r, 1))
	case k == 3:
		return query.Text(query.OpPhrase, prop, words())
	case k == 4:
		return query.Text(query.OpPhrasePrefix, prop, words())
	case k == 5:
		f := query.Text(query.OpAllTerms, prop, words())
		f.Fuzzy = r.IntN(2) == 0
		return f
	}
	f := query.Text(query.OpAnyTerm, prop, words())
	f.Fuzzy = r.IntN(3) == 0
	return f
}

// TestSnapshot_SearchRelevance checks relevance searches against the
// oracle's matches and the reference scores: every match once, each
// score equal to the reference's, in score order then key order, across
// pages of every size.
func TestSnapshot_SearchRelevance(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 2))
	typ := testType(t)
	want := randState(r, 800)
	s := mustBuild(t, typ, want)
	s, keys := mustEdit(t, r, s, want, editMix{deleted: 1, rewritten: 2, outOf: 6})
	or := &oracle{t: typ}
	// The lengths the update kept equal a count from scratch.
	for _, name := range []string{"name", "notes"} {
		pi := s.property(name)
		kept := s.textTokens(pi)
		saved := pi.text.length
		pi.text.length = &textLength{}
		if counted := s.textTokens(pi); counted != kept {
			t.Fatalf("%s: kept length %d, counted %d", name, kept, counted)
		}
		pi.text.length = saved
	}
	nonzero := 0
	for i := range oracleCases(300) {
		f := randTextFilter(r, 2)
		ref := referenceScores(or, want, f)
		exp := or.sorted(want, keys, f, nil)
		q := query.Search{Filter: f, Relevance: true, PageSize: []int{1, 4, 50, 5000}[r.IntN(4)]}
		var got []scored
		for page := 0; ; page++ {
			res, err := s.Search(t.Context(), &q)
			if err != nil {
				t.Fatalf("%d: %v: %v", i, f, err)
			}
			if res.Total != int64(len(exp)) || len(res.Scores) != len(res.Docs) {
				t.Fatalf("%d: %v: total %d, want %d; %d scores for %d docs", i, f, res.Total, len(exp), len(res.Scores), len(res.Docs))
			}
			for j, d := range res.Docs {
				got = append(got, scored{doc: d, score: res.Scores[j], key: string(keys[d])})
			}
			if res.Next == nil {
				break
			}
			q.After = res.Next
		}
		if len(got) != len(exp) {
			t.Fatalf("%d: %v: %d rows over the pages, want %d", i, f, len(got), len(exp))
		}
		matched := map[uint32]bool{}
		for _, d := range exp {
			matched[d] = true
		}
		for j, g := range got {
			if !matched[g.doc] {
				t.Fatalf("%d: %v: row %d is doc %d, which does not match", i, f, j, g.doc)
			}
			delete(matched, g.doc)
			if w := ref[g.doc]; math.Abs(g.score-w) > 1e-9*math.Max(1, w) {
				t.Fatalf("%d: %v: doc %d scores %v, reference %v", i, f, g.doc, g.score, w)
			}
			if g.score > 0 {
				nonzero++
			}
			if j > 0 {
				p := got[j-1]
				if p.score < g.score || p.score == g.score && bytes.Compare([]byte(p.key), []byte(g.key)) >= 0 {
					t.Fatalf("%d: %v: rows %d and %d out of order: %+v then %+v", i, f, j-1, j, p, g)
				}
			}
		}
	}
	if nonzero < 1000 {
		t.Fatalf("only %d rows scored above zero: the test draws too few matching queries", nonzero)
	}
}

func TestSnapshot_SearchRelevanceErrors(t *testing.T) {
	typ := testType(t)
	s := mustBuild(t, typ, randState(rand.New(rand.NewPCG(1, 2)), 20))
	f := query.Text(query.OpAnyTerm, "name", "amber")
	for _, tc := range []struct {
		name string
		q    query.Search
	}{
		{"sort fields", query.Search{Filter: f, Relevance: true, PageSize: 5, Sort: []query.Sort{{Property: "city"}}}},
		{"field cursor", query.Search{Filter: f, Relevance: true, PageSize: 5, After: []byte{cursorVersion, 0}}},
		{"short cursor", query.Search{Filter: f, Relevance: true, PageSize: 5, After: []byte{relevanceCursor, 1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := s.Search(t.Context(), &tc.q); err == nil {
				t.Fatal("no error")
			}
		})
	}
}
