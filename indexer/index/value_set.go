package index

import (
	"context"
	"slices"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// valueSet is what Distinct returns: the distinct values of a property
// as the index holds them, sorted. A searchAround hands it to the other
// type's filter (query.Filter.Set), whose compiler reads the keys as they
// are when its property holds values of the same type (inSet): at ten
// million objects a link from a hundred thousand customers spent a tenth
// of its time boxing each key and converting it back.
type valueSet struct {
	elementType objects.DataType
	// pres are the values of a property whose values are their pres
	// alone (numbers, dates), unique and ascending; vks the values of
	// other properties, in compareValueKeys order.
	pres []uint64
	vks  []valueKey
	// keys, when set, are the documents of a link's source whose primary
	// keys (of pres alone) the set holds, not read yet: a join follows
	// them as they are (link_join.go); anything else reads them, once.
	keys     *keyDocs
	keysOnce sync.Once

	once  sync.Once
	boxed []any
}

// keyDocs are source documents whose primary keys a set holds.
type keyDocs struct {
	s     *Snapshot
	pi    *propertyIndex  // the key's property
	docs  *roaring.Bitmap // read only
	count int
}

// lazyKeys reports whether Distinct leaves count documents' keys unread:
// when a join may follow them for less than reading them costs.
func lazyKeys(s *Snapshot, count int) bool {
	return count >= max(1024, int(s.maxDoc>>10))
}

// sortedPres is the set's pres, read from its source documents on first
// use. query.ValueSet.Values gives no context to read them under: they
// are as many as the documents Distinct found, a cost already paid once.
func (v *valueSet) sortedPres() []uint64 {
	if v.keys != nil {
		v.keysOnce.Do(func() {
			k := v.keys
			v.pres, _ = distinctPres(context.Background(), k.pi, bitmapMatches(k.docs, k.count))
		})
	}
	return v.pres
}

var _ query.ValueSet = (*valueSet)(nil)

func (v *valueSet) Len() int {
	if v.keys != nil {
		return v.keys.count // unique: primary keys
	}
	if v.pres != nil {
		return len(v.pres)
	}
	return len(v.vks)
}

// Values boxes the values, once.
func (v *valueSet) Values() []any {
	v.once.Do(func() {
		v.boxed = make([]any, v.Len())
		for i := range v.boxed {
			v.boxed[i] = valueOf(v.elementType, v.at(i))
		}
	})
	return v.boxed
}

func (v *valueSet) at(i int) valueKey {
	if pres := v.sortedPres(); pres != nil {
		return valueKey{pre: pres[i]}
	}
	return v.vks[i]
}

// inSet matches the documents whose value is one of set's, when set holds
// values of pi's type (the same kind, and for decimals the same precision
// and scale) as pi's order holds them; ok is false otherwise, and the
// caller converts set's boxed values as it does any OpIn's.
func (c *compiler) inSet(pi *propertyIndex, set query.ValueSet) (n node, ok bool, err error) {
	v, isIndexed := set.(*valueSet)
	if !isIndexed || v.Len() < 2 || pi.dict != nil || pi.order == nil || pi.isList || !v.elementType.Equal(pi.elementType) {
		return nil, false, nil
	}
	if err := c.values(pi); err != nil {
		return nil, false, err
	}
	switch t := c.s.ties(pi); {
	case (v.keys != nil || v.pres != nil) && !t.exactParts():
		if v.keys != nil {
			if n, err := c.join(pi, v.keys); n != nil || err != nil {
				return n, err == nil, err
			}
		}
		pres := v.sortedPres()
		in := func(x valueKey) bool {
			_, found := slices.BinarySearch(pres, x.pre)
			return found
		}
		return &runsNode{pi: pi, runs: pi.order.runsOfPres(pres), in: in, cost: inCost(len(pres))}, true, nil
	case v.vks != nil && t.exactParts():
		vks := v.vks
		in := func(x valueKey) bool {
			_, found := slices.BinarySearchFunc(vks, x, compareValueKeys)
			return found
		}
		return &runsNode{pi: pi, runs: pi.order.runsOf(t, vks), in: in, cost: inCost(len(vks))}, true, nil
	}
	return nil, false, nil
}
