package index

import (
	"fmt"
	"maps"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// testType is an object type with a property of every kind the index
// treats differently.
func testType(tb testing.TB) *objects.Type {
	tb.Helper()
	str := objects.DataType{Kind: objects.KindString}
	long := objects.DataType{Kind: objects.KindLong}
	t := &objects.Type{APIName: "Item", PrimaryKey: []string{"id"}, TitleProperty: "id", Properties: []objects.Property{
		{APIName: "id", Type: long, Search: objects.SearchNumeric},
		{APIName: "name", Type: str, Search: objects.SearchText},
		{APIName: "city", Type: str, Search: objects.SearchKeyword},
		{APIName: "code", Type: str, Search: objects.SearchKeyword},
		{APIName: "balance", Type: objects.DataType{Kind: objects.KindDouble}, Search: objects.SearchNumeric},
		{APIName: "visits", Type: long, Search: objects.SearchNumeric},
		{APIName: "amount", Type: objects.DataType{Kind: objects.KindDecimal, Precision: 38, Scale: 2}, Search: objects.SearchNumeric},
		{APIName: "day", Type: objects.DataType{Kind: objects.KindDate}, Search: objects.SearchDate},
		{APIName: "at", Type: objects.DataType{Kind: objects.KindTimestampTZ}, Search: objects.SearchDate},
		{APIName: "active", Type: objects.DataType{Kind: objects.KindBoolean}, Search: objects.SearchBoolean},
		{APIName: "tags", Type: objects.DataType{Kind: objects.KindList, Elem: &str}, Search: objects.SearchKeyword},
		{APIName: "notes", Type: objects.DataType{Kind: objects.KindList, Elem: &str}, Search: objects.SearchText},
		{APIName: "scores", Type: objects.DataType{Kind: objects.KindList, Elem: &long}, Search: objects.SearchNumeric},
		{APIName: "blob", Type: str, Search: objects.SearchNone},
		{APIName: "weight", Type: objects.DataType{Kind: objects.KindDouble}, Search: objects.SearchNone},
	}}
	return t
}

var (
	testWords  = strings.Fields("amber basalt cedar delta ember fjord granite harbor indigo juniper kestrel lagoon")
	testCities = []string{"Amsterdam", "Berlin", "Cairo", "Delhi", "amsterdam", "", "Zürich", "Oslo"}
)

// randState returns n random objects, document i with key i.
func randState(r *rand.Rand, n int) state {
	want := state{}
	for i := range n {
		want[uint32(i)] = randObject(r, int64(i))
	}
	return want
}

// randObject returns a random object with primary key id.
func randObject(r *rand.Rand, id int64) *objects.Object {
	null := func() bool { return r.IntN(8) == 0 }
	pick := func(xs []string) string { return xs[r.IntN(len(xs))] }
	words := func(n int) string {
		ws := make([]string, n)
		for i := range ws {
			ws[i] = pick(testWords)
		}
		return strings.Join(ws, " ")
	}
	v := make([]any, 15)
	v[0] = id
	if !null() {
		v[1] = words(1 + r.IntN(4))
	}
	if !null() {
		v[2] = pick(testCities)
	}
	if !null() {
		v[3] = fmt.Sprintf("c%05d", r.IntN(5000))
	}
	if !null() {
		switch r.IntN(20) {
		case 0:
			v[4] = math.Copysign(0, -1)
		case 1:
			v[4] = math.Inf(1)
		default:
			v[4] = float64(r.IntN(2000)-1000) / 4
		}
	}
	if !null() {
		if r.IntN(10) == 0 {
			v[5] = int64(math.MaxInt64 - r.IntN(3))
		} else {
			v[5] = int64(r.IntN(50))
		}
	}
	if !null() {
		u := new(big.Int).Mul(big.NewInt(int64(r.IntN(1e6)-5e5)), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(r.IntN(25))), nil))
		v[6] = objects.Decimal{Unscaled: u, Scale: 2}
	}
	if !null() {
		v[7] = objects.Date(19000 + r.IntN(100))
	}
	if !null() {
		v[8] = time.Unix(1.7e9+int64(r.IntN(1000)), int64(r.IntN(3))*333).UTC()
	}
	if !null() {
		v[9] = r.IntN(2) == 0
	}
	if !null() {
		tags := make([]any, r.IntN(4))
		for i := range tags {
			tags[i] = pick(testCities)
		}
		v[10] = tags
	}
	if !null() {
		notes := make([]any, r.IntN(3))
		for i := range notes {
			notes[i] = words(1 + r.IntN(3))
		}
		v[11] = notes
	}
	if !null() {
		scores := make([]any, r.IntN(3))
		for i := range scores {
			if r.IntN(5) == 0 {
				scores[i] = nil
			} else {
				scores[i] = int64(r.IntN(10))
			}
		}
		v[12] = scores
	}
	if !null() {
		v[13] = words(2)
	}
	if !null() {
		v[14] = float64(r.IntN(100))
	}
	return &objects.Object{Values: v}
}

func mustKey(tb testing.TB, t *objects.Type, o *objects.Object) []byte {
	tb.Helper()
	k, err := t.Key(o)
	if err != nil {
		tb.Fatal(err)
	}
	return k
}

// state is the objects a snapshot should hold, by document.
type state map[uint32]*objects.Object

// docs is the state's documents in order. A test that draws from its
// random source once per object walks them in this order, not the map's:
// the map's order changes from run to run, and with it every draw after,
// so that a seed would not give the same objects and filters twice.
func (w state) docs() []uint32 {
	return slices.Sorted(maps.Keys(w))
}

// shuffleChanges puts changes in an order drawn from r: Apply takes them
// in any order, and the tests that make them in document order should not
// test that one alone.
func shuffleChanges(r *rand.Rand, changes []Change) {
	r.Shuffle(len(changes), func(i, j int) { changes[i], changes[j] = changes[j], changes[i] })
}

// verify checks every structure of s against the objects it should hold.
func verify(tb testing.TB, s *Snapshot, want state) {
	tb.Helper()
	t := s.typ
	if got := s.alive.GetCardinality(); got != uint64(len(want)) {
		tb.Fatalf("alive: %d documents, want %d", got, len(want))
	}
	docs := make([]uint32, 0, len(want))
	for d, o := range want {
		if !s.alive.Contains(d) {
			tb.Fatalf("document %d is not alive", d)
		}
		if got, wk := s.keys.get(d), string(mustKey(tb, t, o)); got != wk {
			tb.Fatalf("document %d: key %x, want %x", d, got, wk)
		}
		docs = append(docs, d)
	}
	byKey := slices.Clone(docs)
	slices.SortFunc(byKey, s.compareKeys)
	checkOrder(tb, "primary key", s.keyOrder, byKey)
	for i, pi := range s.properties {
		verifyProp(tb, s, pi, want, docs, i)
	}
}

func checkOrder(tb testing.TB, what string, o *order, want []uint32) {
	tb.Helper()
	var got []uint32
	o.forEach(0, o.len(), func(_ int, d uint32) bool { got = append(got, d); return true })
	if !slices.Equal(got, want) {
		tb.Fatalf("%s order: got %v\nwant %v", what, head(got), head(want))
	}
	for bi, b := range o.blocks {
		if len(b.doc) == 0 || len(b.doc) > blockMax || len(b.pre) != len(b.doc) {
			tb.Fatalf("%s order: block %d has %d entries", what, bi, len(b.doc))
		}
	}
}

// oracleCases is n random cases, or a third of them in -short runs: the
// race run of CI, where these single-goroutine oracle tests have nothing
// to race and take four times as long; the plain run does all n.
func oracleCases(n int) int {
	if testing.Short() {
		return max(1, n/3)
	}
	return n
}

func head(ds []uint32) []uint32 {
	if len(ds) > 20 {
		return ds[:20]
	}
	return ds
}

func verifyProp(tb testing.TB, s *Snapshot, pi *propertyIndex, want state, docs []uint32, i int) {
	tb.Helper()
	name := pi.property.APIName
	var nonNull []uint32
	values := map[string][]uint32{} // dictKey -> documents
	termDocs := map[string][]uint32{}
	for _, d := range docs {
		v := want[d].Values[i]
		if v == nil {
			if !pi.nulls.Contains(d) {
				tb.Fatalf("%s: document %d is null but not in nulls", name, d)
			}
			continue
		}
		if pi.nulls.Contains(d) {
			tb.Fatalf("%s: document %d is in nulls with value %v", name, d, v)
		}
		nonNull = append(nonNull, d)
		var els []valueKey
		if pi.isList {
			var err error
			if els, err = elementKeys(pi.elementType.Kind, v, nil); err != nil {
				tb.Fatal(err)
			}
			if pi.listColumn != nil {
				if got := pi.listColumn.get(d, nil); !slices.Equal(got, els) {
					tb.Fatalf("%s: document %d elements %v, want %v", name, d, got, els)
				}
			}
			if pi.text != nil {
				for _, term := range termSet(stringsOf(v)) {
					termDocs[term] = append(termDocs[term], d)
				}
			}
		} else {
			vk, err := valueKeyOf(pi.elementType.Kind, v)
			if err != nil {
				tb.Fatal(err)
			}
			els = []valueKey{vk}
			if pi.column != nil && compareValueKeys(pi.column.get(d), vk) != 0 {
				tb.Fatalf("%s: document %d value %v, want %v", name, d, pi.column.get(d), vk)
			}
			if pi.text != nil {
				for _, term := range termSet([]string{v.(string)}) {
					termDocs[term] = append(termDocs[term], d)
				}
			}
		}
		for _, vk := range distinct(els) {
			values[dictKey(vk)] = append(values[dictKey(vk)], d)
		}
	}
	if pi.nulls.GetCardinality() != uint64(len(docs)-len(nonNull)) {
		tb.Fatalf("%s: %d nulls, want %d", name, pi.nulls.GetCardinality(), len(docs)-len(nonNull))
	}
	if pi.order != nil {
		sorted := slices.Clone(nonNull)
		slices.SortFunc(sorted, func(a, b uint32) int {
			if c := compareValueKeys(pi.column.get(a), pi.column.get(b)); c != 0 {
				return c
			}
			return s.compareKeys(a, b)
		})
		checkOrder(tb, name, pi.order, sorted)
	}
	if pi.dict != nil {
		if len(pi.dict.values) != len(values) {
			tb.Fatalf("%s: dict has %d values, want %d", name, len(pi.dict.values), len(values))
		}
		for k, ds := range values {
			slices.Sort(ds)
			if got := pi.dict.values[k]; got == nil || !slices.Equal(got.ToArray(), ds) {
				tb.Fatalf("%s: dict value %q: wrong documents", name, k)
			}
		}
	}
	if pi.text != nil {
		if pi.text.len() != len(termDocs) {
			tb.Fatalf("%s: %d terms, want %d", name, pi.text.len(), len(termDocs))
		}
		for term, ds := range termDocs {
			slices.Sort(ds)
			p, ok := pi.text.get(term)
			if !ok || !slices.Equal(p.appendTo(nil), ds) {
				tb.Fatalf("%s: term %q: got %v, want %v", name, term, p.appendTo(nil), ds)
			}
		}
		prev := ""
		pi.text.each("", func(term string, _ posting) bool {
			if term <= prev && prev != "" {
				tb.Fatalf("%s: terms out of order: %q after %q", name, term, prev)
			}
			prev = term
			return true
		})
	}
}

// mustBuild builds a snapshot of objects with documents 0..n-1.
func mustBuild(tb testing.TB, t *objects.Type, want state) *Snapshot {
	tb.Helper()
	b := NewBuilder(t)
	for d, o := range want {
		if err := b.Add(d, mustKey(tb, t, o), o); err != nil {
			tb.Fatal(err)
		}
	}
	return b.Finish(1)
}

// editMix is how many objects an edit deletes and rewrites: of every
// outOf objects, deleted and rewritten, drawn at random.
type editMix struct {
	deleted, rewritten, outOf int
}

// mustEdit draws r.IntN(mix.outOf) for each object of want: a draw below
// mix.deleted deletes it, one of the next mix.rewritten values rewrites it
// at random. It applies the changes to s as version 2 (want follows them)
// and returns the new snapshot with the keys of the objects left.
func mustEdit(tb testing.TB, r *rand.Rand, s *Snapshot, want state, mix editMix) (*Snapshot, map[uint32][]byte) {
	tb.Helper()
	t := s.Type()
	var changes []Change
	for _, d := range want.docs() {
		switch n := r.IntN(mix.outOf); {
		case n < mix.deleted:
			changes = append(changes, Change{Doc: d})
			delete(want, d)
		case n < mix.deleted+mix.rewritten:
			o := randObject(r, want[d].Values[0].(int64))
			changes = append(changes, Change{Doc: d, Key: mustKey(tb, t, o), Object: o})
			want[d] = o
		}
	}
	shuffleChanges(r, changes)
	s, err := s.Apply(changes, 2)
	if err != nil {
		tb.Fatal(err)
	}
	return s, mustKeys(tb, t, want)
}

// mustKeys is the encoded primary key of each object of want, by document.
func mustKeys(tb testing.TB, t *objects.Type, want state) map[uint32][]byte {
	tb.Helper()
	keys := make(map[uint32][]byte, len(want))
	for d, o := range want {
		keys[d] = mustKey(tb, t, o)
	}
	return keys
}

// search runs a search and fails the test on error.
func mustSearch(tb testing.TB, s *Snapshot, q *query.Search) *Result {
	tb.Helper()
	res, err := s.Search(tb.Context(), q)
	if err != nil {
		tb.Fatalf("search %v: %v", q.Filter, err)
	}
	return res
}
