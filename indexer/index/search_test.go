package index

import (
	"errors"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// randValue returns a filter value for a property, often one the objects
// hold.
func randValue(r *rand.Rand, p objects.Property, want state, i int) any {
	if r.IntN(3) > 0 {
		for range 10 {
			o := want[uint32(r.IntN(len(want)+1))]
			if o == nil {
				continue
			}
			if els := elements(o.Values[i]); len(els) > 0 {
				return els[r.IntN(len(els))]
			}
		}
	}
	switch p.Type.Primitive().Kind {
	case objects.KindString:
		return testCities[r.IntN(len(testCities))]
	case objects.KindLong:
		return int64(r.IntN(60) - 5)
	case objects.KindDouble:
		return float64(r.IntN(2000)-1000) / 4
	case objects.KindDecimal:
		return objects.Decimal{Unscaled: big.NewInt(int64(r.IntN(1e6) - 5e5)), Scale: 2}
	case objects.KindDate:
		return objects.Date(19000 + r.IntN(100))
	case objects.KindTimestampTZ:
		return time.Unix(1.7e9+int64(r.IntN(1000)), 0).UTC()
	case objects.KindBoolean:
		return r.IntN(2) == 0
	}
	return nil
}

func randFilter(r *rand.Rand, t *objects.Type, want state, keys map[uint32][]byte, depth int) *query.Filter {
	if depth > 0 && r.IntN(3) == 0 {
		n := r.IntN(4)
		kids := make([]*query.Filter, n)
		for i := range kids {
			kids[i] = randFilter(r, t, want, keys, depth-1)
		}
		switch r.IntN(3) {
		case 0:
			return query.And(kids...)
		case 1:
			return query.Or(kids...)
		}
		return query.Not(randFilter(r, t, want, keys, depth-1))
	}
	if r.IntN(30) == 0 {
		var ks [][]byte
		for range r.IntN(5) {
			if k, ok := keys[uint32(r.IntN(len(keys)+2))]; ok {
				ks = append(ks, k)
			}
		}
		return query.Keys(ks...)
	}
	var p objects.Property
	var i int
	for {
		i = r.IntN(len(t.Properties))
		if p = t.Properties[i]; p.Searchable() || r.IntN(4) == 0 {
			break
		}
	}
	if !p.Searchable() || r.IntN(8) == 0 {
		return query.IsNull(p.APIName, r.IntN(2) == 0)
	}
	word := func() string { return testWords[r.IntN(len(testWords))] }
	if p.Search == objects.SearchText && r.IntN(2) == 0 {
		text := word()
		for range r.IntN(3) {
			text += " " + word()
		}
		ops := []query.Op{query.OpAllTerms, query.OpAnyTerm, query.OpPhrase, query.OpPhrasePrefix, query.OpStartsWith}
		f := query.Text(ops[r.IntN(len(ops))], p.APIName, text)
		if f.Op == query.OpPhrasePrefix || f.Op == query.OpStartsWith {
			f.Text = f.Text[:len(f.Text)-r.IntN(3)]
		}
		if (f.Op == query.OpAllTerms || f.Op == query.OpAnyTerm) && r.IntN(2) == 0 {
			f.Fuzzy = true
			f.Text = text[:len(text)-1] + "x"
		}
		return f
	}
	if p.Type.Primitive().Kind == objects.KindString && r.IntN(3) == 0 {
		// Leading wildcards (*0, ?0001*) visit more of code's distinct
		// values than the walk's budget and scan; c01*5 scans the run of
		// its prefix; c0001* walks.
		wildcards := []string{"*m*", "?erlin", "A*", "c0001*", "*", "*\\*", "*0", "*1?", "?0001*", "*3*7", "c01*5", "*in"}
		regexps := []string{"[A-C].*", "c00[0-4].", ".*o", "(Oslo|Cairo)", ".*[05]", "c01.*[05]", "(?i).*IN"}
		switch r.IntN(3) {
		case 0:
			return query.Text(query.OpWildcard, p.APIName, wildcards[r.IntN(len(wildcards))])
		case 1:
			return query.Text(query.OpRegex, p.APIName, regexps[r.IntN(len(regexps))])
		}
		if p.Search == objects.SearchKeyword {
			return query.Text(query.OpStartsWith, p.APIName, []string{"A", "c001", "", "Z", "a"}[r.IntN(5)])
		}
	}
	v := randValue(r, p, want, i)
	switch r.IntN(6) {
	case 0:
		vs := make([]any, []int{0, 1, 2, 3, 50}[r.IntN(5)]) // 50: as many as a link asks for
		for j := range vs {
			vs[j] = randValue(r, p, want, i)
		}
		return query.In(p.APIName, vs...)
	case 1, 2:
		if p.Type.Primitive().Kind != objects.KindBoolean {
			ops := []query.Op{query.OpGt, query.OpGte, query.OpLt, query.OpLte}
			return query.Compare(ops[r.IntN(4)], p.APIName, v)
		}
	}
	if p.Type.Kind == objects.KindList && r.IntN(2) == 0 {
		return query.Compare(query.OpContains, p.APIName, v)
	}
	return query.Eq(p.APIName, v)
}

func randSort(r *rand.Rand, t *objects.Type) []query.Sort {
	var out []query.Sort
	used := map[string]bool{}
	for range r.IntN(3) {
		p := t.Properties[r.IntN(len(t.Properties))]
		if !p.Sortable() || used[p.APIName] {
			continue
		}
		used[p.APIName] = true
		out = append(out, query.Sort{Property: p.APIName, Desc: r.IntN(2) == 0})
	}
	return out
}

// pageAll follows a search to its last page with one plan.
func pageAll(tb testing.TB, s *Snapshot, q query.Search, opt searchOptions) ([]uint32, int64, error) {
	var all []uint32
	var total int64 = -1
	for range 10_000 {
		res, err := s.search(tb.Context(), &q, opt)
		if err != nil {
			return nil, 0, err
		}
		if total >= 0 && res.Total != total {
			tb.Fatalf("total changed between pages: %d then %d", total, res.Total)
		}
		total = res.Total
		least := q.PageSize // a page with a next one is full, or Enough
		if q.Enough > 0 {
			least = min(q.Enough, q.PageSize)
		}
		if len(res.Docs) > q.PageSize || (res.Next != nil && len(res.Docs) < least) {
			tb.Fatalf("page of %d documents (page size %d, next %v)", len(res.Docs), q.PageSize, res.Next != nil)
		}
		all = append(all, res.Docs...)
		if res.Next == nil {
			return all, total, nil
		}
		q.After = res.Next
	}
	tb.Fatal("too many pages")
	return nil, 0, nil
}

// TestSnapshot_Search checks random searches, through every plan, against
// the oracle, on a snapshot that random updates have changed.
func TestSnapshot_Search(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	typ := testType(t)
	want := randState(r, 2500)
	s := mustBuild(t, typ, want)
	// Rewrite a third of the objects and delete some, so that the
	// structures searched are updated ones.
	s, keys := mustEdit(t, r, s, want, editMix{deleted: 1, rewritten: 2, outOf: 6})
	or := &oracle{t: typ}
	for i := range oracleCases(240) {
		f := randFilter(r, typ, want, keys, 3)
		q := query.Search{Filter: f, Sort: randSort(r, typ), PageSize: []int{1, 7, 100, 5000}[r.IntN(4)]}
		exp := or.sorted(want, keys, f, q.Sort)
		opts := []searchOptions{{}, {plan: PlanWalk}, {plan: PlanCollect}, {plan: PlanWalk, sparse: true}, {plan: PlanCollect, sparse: true}}
		if i%4 == 0 { // a walk counted through bins; TestSnapshot_SearchBoundedCount has more
			opts = append(opts, searchOptions{plan: PlanWalk, count: countBins})
		}
		for _, opt := range opts {
			got, total, err := pageAll(t, s, q, opt)
			if err != nil {
				t.Fatalf("%d: %v sort %v %+v: %v", i, f, q.Sort, opt, err)
			}
			if total != int64(len(exp)) || !slices.Equal(got, exp) {
				t.Fatalf("%d: %v sort %v %+v: total %d, want %d\ngot  %v\nwant %v", i, f, q.Sort, opt, total, len(exp), head(got), head(exp))
			}
			// With pages that may stop at Enough, and without the count,
			// the same objects.
			nq := q
			nq.NoTotal, nq.Enough = r.IntN(2) == 0, 1+r.IntN(q.PageSize)
			wantTotal := int64(len(exp))
			if nq.NoTotal {
				wantTotal = 0
			}
			if got, total, err = pageAll(t, s, nq, opt); err != nil || total != wantTotal || !slices.Equal(got, exp) {
				t.Fatalf("%d: %v sort %v %+v, no total %v, enough %d: total %d, %v\ngot  %v\nwant %v", i, f, q.Sort, opt, nq.NoTotal, nq.Enough, total, err, head(got), head(exp))
			}
		}
		// A count without groups, the API's count, counts the filter.
		ar, err := s.Aggregate(t.Context(), &query.Aggregate{Filter: f, Metrics: []query.Metric{{Kind: query.Count}}}, nil)
		if err != nil || len(ar.Groups) != 1 || ar.Groups[0].Count != int64(len(exp)) {
			t.Fatalf("%d: count %v = %+v, %v; want %d", i, f, ar, err, len(exp))
		}
	}
}

func TestSnapshot_SearchLimits(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	typ := testType(t)
	want := state{}
	keys := map[uint32][]byte{}
	for i := range 500 {
		o := randObject(r, int64(i))
		o.Values[1] = []string{"alpha beta", "alpine gamma alphx", "also delta"}[i%3]
		want[uint32(i)] = o
		keys[uint32(i)] = mustKey(t, typ, o)
	}
	s := mustBuild(t, typ, want)
	limits := query.Limits{MaxTerms: 1}
	// Prefixes and fuzzy terms of a text property expand to its terms, and
	// more than MaxTerms of them are refused.
	for _, f := range []*query.Filter{
		query.Text(query.OpStartsWith, "name", "al"),
		{Op: query.OpAllTerms, Property: "name", Text: "alpha", Fuzzy: true},
	} {
		_, err := s.Search(t.Context(), &query.Search{Filter: f, PageSize: 10, Limits: limits})
		var te *query.TooExpensiveError
		if !errors.As(err, &te) || te.Property != f.Property {
			t.Errorf("%v: got %v, want a TooExpensiveError", f, err)
		}
	}
	// A phrase prefix expands its last term only; a wildcard or regex over
	// exact values is served whatever it matches: beyond MaxTerms values it
	// scans them.
	or := &oracle{t: typ}
	for _, f := range []*query.Filter{
		query.Text(query.OpPhrasePrefix, "name", "alpha b"),
		query.Text(query.OpWildcard, "code", "*"),
		query.Text(query.OpWildcard, "code", "*1"),
		query.Text(query.OpWildcard, "code", "c0*"),
		query.Text(query.OpRegex, "city", ".*"),
		query.Text(query.OpWildcard, "name", "*a"),
	} {
		got, total, err := pageAll(t, s, query.Search{Filter: f, PageSize: 100, Limits: limits}, searchOptions{})
		exp := or.sorted(want, keys, f, nil)
		if err != nil || total != int64(len(exp)) || !slices.Equal(got, exp) {
			t.Errorf("%v: %d matches, %v; want %d", f, total, err, len(exp))
		}
	}
	if _, err := s.Search(t.Context(), &query.Search{PageSize: 10, After: []byte("garbage")}); !errors.Is(err, query.ErrBadCursor) {
		t.Errorf("bad cursor: %v", err)
	}
	res := mustSearch(t, s, &query.Search{PageSize: 10, Sort: []query.Sort{{Property: "city"}}})
	if _, err := s.Search(t.Context(), &query.Search{PageSize: 10, After: res.Next}); !errors.Is(err, query.ErrBadCursor) {
		t.Errorf("cursor of another sort: %v", err)
	}
}

// TestSnapshot_Cursor checks that a search resumed from the cursor of any
// document of its answer continues right after that document, as a
// merge of several types' pages resumes each.
func TestSnapshot_Cursor(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	typ := testType(t)
	want := randState(r, 800)
	s, keys := mustEdit(t, r, mustBuild(t, typ, want), want, editMix{deleted: 1, rewritten: 1, outOf: 6})
	or := &oracle{t: typ}
	for i := range 60 {
		f := randFilter(r, typ, want, keys, 2)
		sort := randSort(r, typ)
		exp := or.sorted(want, keys, f, sort)
		if len(exp) == 0 {
			continue
		}
		j := r.IntN(len(exp))
		c, err := s.Cursor(sort, exp[j])
		if err != nil {
			t.Fatalf("%d: cursor: %v", i, err)
		}
		got, _, err := pageAll(t, s, query.Search{Filter: f, Sort: sort, PageSize: 1 + r.IntN(50), After: c}, searchOptions{})
		if err != nil {
			t.Fatalf("%d: %v", i, err)
		}
		if !slices.Equal(got, exp[j+1:]) {
			t.Fatalf("%d: %v sort %v after document %d of %d: got %v, want %v", i, f, sort, j, len(exp), head(got), head(exp[j+1:]))
		}
	}
}
