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
		return &Snapshot{typ: s.typ, version: version, maxDoc: s.maxDoc, alive: s.alive, keys: s.keys,
			pk: s.pk, props: s.props, bitsets: s.bitsets, pairs: s.pairTables()}, nil
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
			if len(c.Object.Values) != len(s.props) {
				return nil, fmt.Errorf("object has %d values, type %s has %d properties", len(c.Object.Values), s.typ.APIName, len(s.props))
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
	if n.pk, err = s.pk.update(keyTies{s.keys}, pkRemoved, pkAdded); err != nil {
		return nil, fmt.Errorf("primary keys: %w", err)
	}
	n.props = make([]*propIndex, len(s.props))
	for i, pi := range s.props {
		np, err := s.applyProp(pi, changes)
		if err != nil {
			return nil, fmt.Errorf("property %s: %w", pi.p.APIName, err)
		}
		n.props[i] = np
	}
	n.alive.RunOptimize()
	n.pairs = s.carryPairs(n, changes)
	return n, nil
}

// docState is one document's value of one property before or after.
type docState struct {
	present bool   // holds an object with a non-null value
	vk      vkey   // scalars
	els     []vkey // arrays: the elements
	texts   []string
}

func (s *Snapshot) oldState(pi *propIndex, d uint32) docState {
	if !s.alive.Contains(d) || pi.nulls.Contains(d) {
		return docState{}
	}
	st := docState{present: true}
	switch {
	case pi.col != nil:
		st.vk = pi.col.get(d)
		if pi.text != nil {
			st.texts = []string{st.vk.exact}
		}
	case pi.lcol != nil:
		st.els = pi.lcol.get(d, nil)
		if pi.text != nil {
			for _, vk := range st.els {
				st.texts = append(st.texts, vk.exact)
			}
		}
	}
	return st
}

func newState(pi *propIndex, o *objects.Object) (docState, error) {
	if o == nil || o.Values[pi.pos] == nil {
		return docState{}, nil
	}
	v := o.Values[pi.pos]
	st := docState{present: true}
	switch {
	case pi.col != nil:
		vk, err := keyOf(pi.et.Kind, v)
		if err != nil {
			return st, err
		}
		st.vk = vk
		if pi.text != nil {
			st.texts = []string{v.(string)}
		}
	case pi.lcol != nil:
		els, err := elementKeys(pi.et.Kind, v, nil)
		if err != nil {
			return st, err
		}
		st.els = els
		if pi.text != nil {
			st.texts = stringsOf(v)
		}
	}
	return st, nil
}

func (s *Snapshot) applyProp(pi *propIndex, changes []Change) (*propIndex, error) {
	np := *pi
	np.nulls = pi.nulls.Clone()
	colSet := map[uint32]vkey{}
	listSet := map[uint32][]vkey{}
	var removed, added []entry
	dictRemove, dictAdd := map[string][]uint32{}, map[string][]uint32{}
	edits := map[string]*termEdit{}
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
		if c.Object != nil && c.Object.Values[pi.pos] == nil {
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
		if pi.col != nil {
			colSet[d] = cur.vk
			if pi.order != nil && (old.present != cur.present || compareVK(old.vk, cur.vk) != 0 || oldKey != newKey) {
				if old.present {
					removed = append(removed, entry{vk: old.vk, key: oldKey, doc: d})
				}
				if cur.present {
					added = append(added, entry{vk: cur.vk, key: newKey, doc: d})
				}
			}
			if pi.dict != nil && (old.present != cur.present || compareVK(old.vk, cur.vk) != 0) {
				if old.present {
					k := dictKey(old.vk)
					dictRemove[k] = append(dictRemove[k], d)
				}
				if cur.present {
					k := dictKey(cur.vk)
					dictAdd[k] = append(dictAdd[k], d)
				}
			}
		}
		if pi.lcol != nil {
			listSet[d] = cur.els
			if pi.dict != nil {
				for _, vk := range distinct(old.els) {
					k := dictKey(vk)
					dictRemove[k] = append(dictRemove[k], d)
				}
				for _, vk := range distinct(cur.els) {
					k := dictKey(vk)
					dictAdd[k] = append(dictAdd[k], d)
				}
			}
		}
		if pi.text != nil {
			before, after := termSet(old.texts), termSet(cur.texts)
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
	if pi.col != nil {
		np.col = pi.col.with(colSet)
	}
	if pi.lcol != nil {
		np.lcol = pi.lcol.with(listSet)
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
	}
	return &np, nil
}
