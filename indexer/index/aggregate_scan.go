package index

import (
	"fmt"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// scan accumulates every matching document.
func (a *aggregation) scan(bm *roaring.Bitmap) error {
	load := a.needsLoad()
	if load && a.load == nil {
		return fmt.Errorf("aggregation reads a property the index keeps no values of, and no loader is set")
	}
	it := bm.ManyIterator()
	batch := make([]uint32, 512)
	for {
		n := it.NextMany(batch)
		if n == 0 {
			return nil
		}
		if err := a.x.ctx.Err(); err != nil {
			return err
		}
		docs := batch[:n]
		if load {
			objs, err := a.load(docs)
			if err != nil {
				return err
			}
			a.loaded = make(map[uint32]*objects.Object, n)
			for i, d := range docs {
				if objs[i] != nil {
					a.loaded[d] = objs[i]
				}
			}
		}
		for _, d := range docs {
			if err := a.add(d); err != nil {
				return err
			}
		}
	}
}

// needsLoad reports whether some property has no values in the index.
func (a *aggregation) needsLoad() bool {
	for _, m := range a.metrics {
		if m.pi != nil && m.pi.column == nil && m.pi.listColumn == nil {
			return true
		}
	}
	for _, g := range a.groups {
		if g.pi.column == nil && g.pi.listColumn == nil {
			return true
		}
	}
	return false
}

// values returns the non-null values of a property of a document (array
// elements each), in the aggregation's buffer: valid until the next call.
func (a *aggregation) values(pi *propertyIndex, d uint32) ([]valueKey, error) {
	a.valueBuf = a.valueBuf[:0]
	if pi.nulls.Contains(d) {
		return a.valueBuf, nil
	}
	switch {
	case pi.column != nil:
		// Kept in valueBuf, as the cases below: returned without, the
		// buffer never grew and every call allocated (a third of a
		// month histogram's sum of a million orders).
		a.valueBuf = append(a.valueBuf, pi.column.get(d))
		return a.valueBuf, nil
	case pi.listColumn != nil:
		a.valueBuf = pi.listColumn.get(d, a.valueBuf)
		return a.valueBuf, nil
	}
	o := a.loaded[d]
	if o == nil {
		return nil, fmt.Errorf("document %d: object not loaded", d)
	}
	v := o.Values[pi.position]
	if pi.isList {
		els, err := elementKeys(pi.elementType.Kind, v, a.valueBuf)
		a.valueBuf = els
		return els, err
	}
	vk, err := valueKeyOf(pi.elementType.Kind, v)
	a.valueBuf = append(a.valueBuf, vk)
	return a.valueBuf, err
}

// add accumulates one document into each group it belongs to.
func (a *aggregation) add(d uint32) error {
	combos := 1
	for _, g := range a.groups {
		if err := a.fillParts(g, d); err != nil {
			return err
		}
		combos *= len(g.parts)
	}
	if combos == 0 {
		return nil
	}
	accs := make([]*groupAccumulator, 0, combos)
	pick := make([]groupKeyPart, len(a.groups))
	var walk func(i int) error
	walk = func(i int) error {
		if i == len(a.groups) {
			acc, err := a.group(pick)
			if err != nil {
				return err
			}
			accs = append(accs, acc)
			return nil
		}
		for _, it := range a.groups[i].parts {
			pick[i] = it
			if err := walk(i + 1); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(0); err != nil {
		return err
	}
	for _, acc := range accs {
		acc.count++
	}
	for i, m := range a.metrics {
		if m.Kind == query.Count {
			continue
		}
		vals, err := a.values(m.pi, d)
		if err != nil {
			return err
		}
		for _, acc := range accs {
			for _, vk := range vals {
				acc.metrics[i].add(m, vk)
			}
		}
	}
	return nil
}
