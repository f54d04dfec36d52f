package index

import (
	"fmt"
	"slices"
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
	properties []*propertyBuilder
	scratch    []valueKey
	// filled counts the documents added to each chunk: a chunk whose
	// every document is added is packed at once (fill), so that a build
	// holds the unpacked form of only the chunks it is filling.
	filled []uint16
}

// propertyBuilder is what a Builder collects for one property besides its
// column; the orders are made from the columns when it finishes.
type propertyBuilder struct {
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
			pb.terms = newTermsBuilder()
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
	s.alive.Add(d)
	s.maxDoc = max(s.maxDoc, d+1)
	s.keys.set(d, string(key))
	for i, pi := range s.properties {
		if err := b.addValue(pi, b.properties[i], d, o.Values[i]); err != nil {
			return fmt.Errorf("property %s: %w", pi.property.APIName, err)
		}
	}
	b.fill(d)
	return nil
}

// fill counts document d in its chunk and packs the chunk's keys and
// values once it holds every document it can: a full build adds
// documents in order, so only the last chunk waits for Finish.
func (b *Builder) fill(d uint32) {
	i := int(d >> chunkShift)
	for len(b.filled) <= i {
		b.filled = append(b.filled, 0)
	}
	b.filled[i]++
	if b.filled[i] < chunkDocs {
		return
	}
	b.s.keys.freezeChunk(i)
	for _, pi := range b.s.properties {
		if pi.column != nil {
			pi.column.freezeChunk(i)
		}
	}
}

func (b *Builder) addValue(pi *propertyIndex, pb *propertyBuilder, d uint32, v any) error {
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
