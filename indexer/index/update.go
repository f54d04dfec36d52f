package index

import (
	"fmt"
	"slices"

	"github.com/ontoindex/ontoindex/objects"
)

// Change is the new state of one document after a build: the object it
// holds under its encoded primary key, or a nil Object when it holds none
// any more.
type Change struct {
	Doc    uint32
	Key    []byte
	Object *objects.Object
}

// Apply returns the snapshot after the changes, at the given store
// version. s is not modified, and the new snapshot shares every chunk,
// block and bitmap the changes do not touch, so the cost follows the
// number of changes. At most one change per document.
func (s *Snapshot) Apply(changes []Change, version uint64) (*Snapshot, error) {
	if len(changes) == 0 {
		n := &Snapshot{typ: s.typ, version: version, maxDoc: s.maxDoc, alive: s.alive, keys: s.keys,
			keyOrder: s.keyOrder, properties: s.properties, bitsets: s.bitsets, pairs: s.pairTables()}
		s.carryBins(n)
		s.carryJoins(n)
		return n, nil
	}
	n := &Snapshot{typ: s.typ, version: version, maxDoc: s.maxDoc, alive: s.alive.Clone(), bitsets: s.bitsets}
	seen := make(map[uint32]bool, len(changes))
	keys := map[uint32]string{}
	var pkRemoved, pkAdded []entry
	for _, c := range changes {
		if seen[c.Doc] {
			return nil, fmt.Errorf("document %d changed twice in one update", c.Doc)
		}
		seen[c.Doc] = true
		was := s.alive.Contains(c.Doc)
		oldKey := s.keys.get(c.Doc)
		newKey := string(c.Key)
		if c.Object == nil {
			newKey = ""
			n.alive.Remove(c.Doc)
		} else {
			if len(c.Object.Values) != len(s.properties) {
				return nil, fmt.Errorf("object has %d values, type %s has %d properties", len(c.Object.Values), s.typ.APIName, len(s.properties))
			}
			n.alive.Add(c.Doc)
			n.maxDoc = max(n.maxDoc, c.Doc+1)
		}
		if was && oldKey == newKey {
			continue
		}
		keys[c.Doc] = newKey
		if was {
			pkRemoved = append(pkRemoved, keyEntry(oldKey, c.Doc))
		}
		if newKey != "" {
			pkAdded = append(pkAdded, keyEntry(newKey, c.Doc))
		}
	}
	n.keys = s.keys.with(keys)
	var err error
	if n.keyOrder, err = s.keyOrder.update(keyTies{s.keys}, pkRemoved, pkAdded); err != nil {
		return nil, fmt.Errorf("primary keys: %w", err)
	}
	n.properties = make([]*propertyIndex, len(s.properties))
	for i, pi := range s.properties {
		np, err := s.applyProperty(pi, changes)
		if err != nil {
			return nil, fmt.Errorf("property %s: %w", pi.property.APIName, err)
		}
		n.properties[i] = np
	}
	n.alive.RunOptimize()
	n.pairs = s.carryPairs(n, changes)
	s.carryBins(n)
	s.carryJoins(n)
	return n, nil
}

// docState is one document's value of one property before or after.
type docState struct {
	present  bool       // holds an object with a non-null value
	value    valueKey   // scalars
	elements []valueKey // arrays: the elements
	texts    []string
}

func (s *Snapshot) oldState(pi *propertyIndex, d uint32) docState {
	if !s.alive.Contains(d) || pi.nulls.Contains(d) {
		return docState{}
	}
	st := docState{present: true}
	switch {
	case pi.column != nil:
		st.value = pi.column.get(d)
		if pi.text != nil {
			st.texts = []string{st.value.exact}
		}
	case pi.listColumn != nil:
		st.elements = pi.listColumn.get(d, nil)
		if pi.text != nil {
			for _, vk := range st.elements {
				st.texts = append(st.texts, vk.exact)
			}
		}
	}
	return st
}

func newState(pi *propertyIndex, o *objects.Object) (docState, error) {
	if o == nil || o.Values[pi.position] == nil {
		return docState{}, nil
	}
	v := o.Values[pi.position]
	st := docState{present: true}
	switch {
	case pi.column != nil:
		vk, err := valueKeyOf(pi.elementType.Kind, v)
		if err != nil {
			return st, err
		}
		st.value = vk
		if pi.text != nil {
			st.texts = []string{v.(string)}
		}
	case pi.listColumn != nil:
		els, err := elementKeys(pi.elementType.Kind, v, nil)
		if err != nil {
			return st, err
		}
		st.elements = els
		if pi.text != nil {
			st.texts = stringsOf(v)
		}
	}
	return st, nil
}

func (s *Snapshot) applyProperty(pi *propertyIndex, changes []Change) (*propertyIndex, error) {
	np := *pi
	np.nulls = pi.nulls.Clone()
	colSet := map[uint32]valueKey{}
	listSet := map[uint32][]valueKey{}
	var removed, added []entry
	dictRemove, dictAdd := map[string][]uint32{}, map[string][]uint32{}
	edits := map[string]*termEdit{}
	var tokens int64 // terms added less terms removed, for textLength
	edit := func(term string) *termEdit {
		e := edits[term]
		if e == nil {
			e = &termEdit{}
			edits[term] = e
		}
		return e
	}
	for _, c := range changes {
		d := c.Doc
		old := s.oldState(pi, d)
		cur, err := newState(pi, c.Object)
		if err != nil {
			return nil, err
		}
		if c.Object != nil && c.Object.Values[pi.position] == nil {
			np.nulls.Add(d)
		} else {
			np.nulls.Remove(d)
		}
		oldKey, newKey := s.keys.get(d), string(c.Key)
		if !old.present {
			oldKey = ""
		}
		if !cur.present {
			newKey = ""
		}
		if pi.column != nil {
			colSet[d] = cur.value
			if pi.order != nil && (old.present != cur.present || compareValueKeys(old.value, cur.value) != 0 || oldKey != newKey) {
				if old.present {
					removed = append(removed, entry{value: old.value, key: oldKey, doc: d})
				}
				if cur.present {
					added = append(added, entry{value: cur.value, key: newKey, doc: d})
				}
			}
			if pi.dict != nil && (old.present != cur.present || compareValueKeys(old.value, cur.value) != 0) {
				if old.present {
					k := dictKey(old.value)
					dictRemove[k] = append(dictRemove[k], d)
				}
				if cur.present {
					k := dictKey(cur.value)
					dictAdd[k] = append(dictAdd[k], d)
				}
			}
		}
		if pi.listColumn != nil {
			listSet[d] = cur.elements
			if pi.dict != nil {
				for _, vk := range distinct(old.elements) {
					k := dictKey(vk)
					dictRemove[k] = append(dictRemove[k], d)
				}
				for _, vk := range distinct(cur.elements) {
					k := dictKey(vk)
					dictAdd[k] = append(dictAdd[k], d)
				}
			}
		}
		if pi.text != nil {
			before, nBefore := countedTermSet(old.texts)
			after, nAfter := countedTermSet(cur.texts)
			tokens += int64(nAfter - nBefore)
			for _, t := range before {
				if _, ok := slices.BinarySearch(after, t); !ok {
					edit(t).remove = append(edit(t).remove, d)
				}
			}
			for _, t := range after {
				if _, ok := slices.BinarySearch(before, t); !ok {
					edit(t).add = append(edit(t).add, d)
				}
			}
		}
	}
	np.nulls.RunOptimize()
	if pi.vectors != nil {
		var err error
		if np.vectors, err = applyVectors(pi, changes); err != nil {
			return nil, err
		}
	}
	if pi.column != nil {
		np.column = pi.column.with(colSet)
	}
	if pi.listColumn != nil {
		np.listColumn = pi.listColumn.with(listSet)
	}
	if pi.order != nil {
		var err error
		if np.order, err = pi.order.update(s.ties(pi), removed, added); err != nil {
			return nil, err
		}
	}
	if pi.dict != nil {
		// A document may leave and rejoin a value in one update (an array
		// that keeps an element): removals first, then additions.
		np.dict = pi.dict.with(dictRemove, dictAdd)
	}
	if pi.text != nil {
		np.text = pi.text.with(edits)
		np.text.length = pi.text.length.plus(tokens)
	}
	if pi.geo != nil {
		var err error
		if np.geo, err = pi.geo.with(&np, changes); err != nil {
			return nil, err
		}
	}
	return &np, nil
}
