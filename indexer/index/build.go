package index

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/ontoindex/ontoindex/indexer/vector"
	"github.com/ontoindex/ontoindex/objects"
)

// Builder builds a snapshot from scratch: a full build, or the index of a
// generation rebuilt from its store. Add documents in any order, then
// Finish. A Builder is not safe for concurrent use.
type Builder struct {
	s          *Snapshot
	keyEntries []pair
	properties []*propertyBuilder
	scratch    []valueKey
}

type propertyBuilder struct {
	entries []pair
	dict    *dictBuilder
	list    *listBuilder
	terms   *termsBuilder
	vectors []vector.Change // vector properties: the vectors of the build
}

// NewBuilder starts an empty snapshot of type t.
func NewBuilder(t *objects.Type) *Builder {
	s := &Snapshot{typ: t, alive: roaring.New(), keys: &keyColumn{}, bitsets: &sync.Pool{}}
	b := &Builder{s: s}
	for i, p := range t.Properties {
		pi := &propertyIndex{property: p, position: i, elementType: p.Type.Primitive(), isList: p.Type.Kind == objects.KindList, nulls: roaring.New()}
		pb := &propertyBuilder{}
		values, _, text := structures(p)
		if values {
			if pi.isList {
				pb.list = &listBuilder{exact: hasExact(pi.elementType.Kind)}
			} else {
				pi.column = &column{exact: hasExact(pi.elementType.Kind)}
			}
		}
		if p.Searchable() {
			pb.dict = newDictBuilder()
		}
		if text {
			pb.terms = &termsBuilder{ids: map[string]uint32{}}
		}
		if p.Type.Kind == objects.KindVector {
			pi.vectors = newVectorIndex(p)
		}
		s.properties = append(s.properties, pi)
		b.properties = append(b.properties, pb)
	}
	return b
}

// Add indexes the object of document d under its encoded primary key.
func (b *Builder) Add(d uint32, key []byte, o *objects.Object) error {
	s := b.s
	if len(o.Values) != len(s.properties) {
		return fmt.Errorf("object has %d values, type %s has %d properties", len(o.Values), s.typ.APIName, len(s.properties))
	}
	if s.alive.Contains(d) {
		return fmt.Errorf("document %d added twice", d)
	}
	k := string(key)
	s.alive.Add(d)
	s.maxDoc = max(s.maxDoc, d+1)
	s.keys.set(d, k)
	b.keyEntries = append(b.keyEntries, pair{pre: keyPre(k), doc: d})
	for i, pi := range s.properties {
		if err := b.addValue(pi, b.properties[i], d, k, o.Values[i]); err != nil {
			return fmt.Errorf("property %s: %w", pi.property.APIName, err)
		}
	}
	return nil
}

func (b *Builder) addValue(pi *propertyIndex, pb *propertyBuilder, d uint32, key string, v any) error {
	if v == nil {
		pi.nulls.Add(d)
		return nil
	}
	if pi.vectors != nil {
		vc, err := vectorChange(d, v)
		pb.vectors = append(pb.vectors, vc)
		return err
	}
	if !pi.isList {
		if pi.column == nil && pb.dict == nil {
			return nil // stored only
		}
		vk, err := valueKeyOf(pi.elementType.Kind, v)
		if err != nil {
			return err
		}
		if pi.column != nil {
			vk = pi.column.set(d, vk)
		}
		if pb.dict != nil {
			pb.dict.add(d, vk)
			pb.entries = append(pb.entries, pair{pre: vk.pre, doc: d})
		}
		if pb.terms != nil {
			pb.terms.add(d, v.(string))
		}
		return nil
	}
	if pb.list == nil {
		return nil
	}
	els, err := elementKeys(pi.elementType.Kind, v, b.scratch[:0])
	if err != nil {
		return err
	}
	b.scratch = els
	pb.list.add(d, els)
	for _, vk := range distinct(els) {
		pb.dict.add(d, vk)
	}
	if pb.terms != nil {
		pb.terms.add(d, stringsOf(v)...)
	}
	return nil
}

// elementKeys appends the value keys of the non-null elements of an array.
func elementKeys(k objects.Kind, v any, out []valueKey) ([]valueKey, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("a %T value is not an array", v)
	}
	for _, e := range list {
		if e == nil {
			continue
		}
		vk, err := valueKeyOf(k, e)
		if err != nil {
			return nil, err
		}
		out = append(out, vk)
	}
	return out, nil
}

// distinct returns the distinct keys of els, sorted.
func distinct(els []valueKey) []valueKey {
	out := slices.Clone(els)
	slices.SortFunc(out, compareValueKeys)
	return slices.CompactFunc(out, func(a, b valueKey) bool { return compareValueKeys(a, b) == 0 })
}

// stringsOf returns the non-null string elements of an array value.
func stringsOf(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, e := range list {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// termSet returns the distinct terms of texts.
func termSet(texts []string) []string {
	out, _ := countedTermSet(texts)
	return out
}

func sortedSet(xs []string) []string {
	slices.Sort(xs)
	return slices.Compact(xs)
}

// termsBuilder collects the (term, document) pairs of a text property:
// each distinct term once, and a pair as one word.
type termsBuilder struct {
	ids   map[string]uint32
	names []string
	pairs []uint64 // term id << 32 | document

	tokens int64 // terms of every document, for textLength
}

func (tb *termsBuilder) add(d uint32, texts ...string) {
	set, n := countedTermSet(texts)
	tb.tokens += int64(n)
	for _, t := range set {
		id, ok := tb.ids[t]
		if !ok {
			id = uint32(len(tb.names))
			tb.ids[t] = id
			tb.names = append(tb.names, t)
		}
		tb.pairs = append(tb.pairs, uint64(id)<<32|uint64(d))
	}
}

func (tb *termsBuilder) finish() *terms {
	slices.Sort(tb.pairs)
	// starts[id] is where the pairs of term id begin.
	starts := make([]int, len(tb.names)+1)
	for _, p := range tb.pairs {
		starts[(p>>32)+1]++
	}
	for i := 1; i < len(starts); i++ {
		starts[i] += starts[i-1]
	}
	byName := make([]uint32, len(tb.names))
	for i := range byName {
		byName[i] = uint32(i)
	}
	slices.SortFunc(byName, func(a, b uint32) int { return strings.Compare(tb.names[a], tb.names[b]) })
	var bb termBlockBuilder
	docs := make([]uint32, 0, 64)
	for _, id := range byName {
		docs = docs[:0]
		for _, p := range tb.pairs[starts[id]:starts[id+1]] {
			docs = append(docs, uint32(p))
		}
		bb.add(tb.names[id], makePosting(slices.Clone(docs)))
	}
	tb.ids, tb.names, tb.pairs = nil, nil, nil
	return &terms{blocks: bb.blocks(), length: knownLength(tb.tokens)}
}

// Finish returns the snapshot at the given store version. The builder
// must not be used afterwards.
func (b *Builder) Finish(version uint64) *Snapshot {
	s := b.s
	s.version = version
	s.keys.freeze()
	jobs := []func(){func() { s.keyOrder = buildOrder(b.keyEntries, keyTies{s.keys}) }}
	for i, pi := range s.properties {
		pb := b.properties[i]
		_, sorted, _ := structures(pi.property)
		jobs = append(jobs, func() {
			if sorted {
				pi.order = buildOrder(pb.entries, s.ties(pi))
			}
			if pb.dict != nil {
				pi.dict = pb.dict.finish()
			}
			if pb.list != nil {
				pi.listColumn = pb.list.finish()
			}
			if pb.terms != nil {
				pi.text = pb.terms.finish()
			}
			if pi.column != nil {
				pi.column.freeze()
			}
			if isGeo(pi.property) {
				pi.geo = buildGeo(pi, s.alive)
			}
			if pb.vectors != nil {
				// Dimensions were checked as the rows were read.
				pi.vectors, _ = pi.vectors.Apply(pb.vectors)
				pb.vectors = nil
			}
			pi.nulls.RunOptimize()
		})
	}
	runParallel(jobs)
	s.alive.RunOptimize()
	b.s = nil
	return s
}

// runParallel runs jobs on up to GOMAXPROCS goroutines and waits for them.
func runParallel(jobs []func()) {
	work := make(chan func())
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(jobs)) {
		wg.Go(func() {
			for job := range work {
				job()
			}
		})
	}
	for _, job := range jobs {
		work <- job
	}
	close(work)
	wg.Wait()
}
