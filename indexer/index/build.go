package index

import (
	"fmt"
	"runtime"
	"slices"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// Builder builds a snapshot from scratch: a full build, or the index of a
// generation rebuilt from its store. Add documents in any order, then
// Finish. A Builder is not safe for concurrent use.
type Builder struct {
	s       *Snapshot
	pk      []entry
	props   []*propBuilder
	scratch []vkey
}

type propBuilder struct {
	entries []entry
	dict    *dictBuilder
	list    *listBuilder
	terms   map[string][]uint32
}

// NewBuilder starts an empty snapshot of type t.
func NewBuilder(t *objects.Type) *Builder {
	s := &Snapshot{typ: t, alive: roaring.New(), keys: &keyColumn{}}
	b := &Builder{s: s}
	for i, p := range t.Properties {
		pi := &propIndex{p: p, pos: i, et: p.Type.Primitive(), list: p.Type.Kind == objects.KindList, nulls: roaring.New()}
		pb := &propBuilder{}
		values, _, text := structures(p)
		if values {
			if pi.list {
				pb.list = &listBuilder{exact: hasExact(pi.et.Kind)}
			} else {
				pi.col = &column{exact: hasExact(pi.et.Kind)}
			}
		}
		if p.Searchable() {
			pb.dict = newDictBuilder()
		}
		if text {
			pb.terms = map[string][]uint32{}
		}
		s.props = append(s.props, pi)
		b.props = append(b.props, pb)
	}
	return b
}

// Add indexes the object of document d under its encoded primary key.
func (b *Builder) Add(d uint32, key []byte, o *objects.Object) error {
	s := b.s
	if len(o.Values) != len(s.props) {
		return fmt.Errorf("object has %d values, type %s has %d properties", len(o.Values), s.typ.APIName, len(s.props))
	}
	if s.alive.Contains(d) {
		return fmt.Errorf("document %d added twice", d)
	}
	k := string(key)
	s.alive.Add(d)
	s.maxDoc = max(s.maxDoc, d+1)
	s.keys.set(d, k)
	b.pk = append(b.pk, keyEntry(k, d))
	for i, pi := range s.props {
		if err := b.addValue(pi, b.props[i], d, k, o.Values[i]); err != nil {
			return fmt.Errorf("property %s: %w", pi.p.APIName, err)
		}
	}
	return nil
}

func (b *Builder) addValue(pi *propIndex, pb *propBuilder, d uint32, key string, v any) error {
	if v == nil {
		pi.nulls.Add(d)
		return nil
	}
	if !pi.list {
		if pi.col == nil && pb.dict == nil {
			return nil // stored only
		}
		vk, err := keyOf(pi.et.Kind, v)
		if err != nil {
			return err
		}
		if pi.col != nil {
			pi.col.set(d, vk)
		}
		if pb.dict != nil {
			pb.dict.add(d, vk)
			pb.entries = append(pb.entries, entry{vk: vk, key: key, doc: d})
		}
		if pb.terms != nil {
			addTerms(pb.terms, d, []string{v.(string)})
		}
		return nil
	}
	if pb.list == nil {
		return nil
	}
	els, err := elementKeys(pi.et.Kind, v, b.scratch[:0])
	if err != nil {
		return err
	}
	b.scratch = els
	pb.list.add(d, els)
	for _, vk := range distinct(els) {
		pb.dict.add(d, vk)
	}
	if pb.terms != nil {
		addTerms(pb.terms, d, stringsOf(v))
	}
	return nil
}

// elementKeys appends the vkeys of the non-null elements of an array.
func elementKeys(k objects.Kind, v any, out []vkey) ([]vkey, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("a %T value is not an array", v)
	}
	for _, e := range list {
		if e == nil {
			continue
		}
		vk, err := keyOf(k, e)
		if err != nil {
			return nil, err
		}
		out = append(out, vk)
	}
	return out, nil
}

// distinct returns the distinct keys of els, sorted.
func distinct(els []vkey) []vkey {
	out := slices.Clone(els)
	slices.SortFunc(out, compareVK)
	return slices.CompactFunc(out, func(a, b vkey) bool { return compareVK(a, b) == 0 })
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
	var out []string
	for _, t := range texts {
		out = append(out, query.Analyze(t)...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func addTerms(m map[string][]uint32, d uint32, texts []string) {
	for _, t := range termSet(texts) {
		m[t] = append(m[t], d)
	}
}

// Finish returns the snapshot at the given store version. The builder
// must not be used afterwards.
func (b *Builder) Finish(version uint64) *Snapshot {
	s := b.s
	s.version = version
	jobs := []func(){func() { s.pk = buildOrder(b.pk) }}
	for i, pi := range s.props {
		pb := b.props[i]
		_, sorted, _ := structures(pi.p)
		jobs = append(jobs, func() {
			if sorted {
				pi.order = buildOrder(pb.entries)
			}
			if pb.dict != nil {
				pi.dict = pb.dict.finish()
			}
			if pb.list != nil {
				pi.lcol = pb.list.finish()
			}
			if pb.terms != nil {
				pi.text = buildTerms(pb.terms)
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
