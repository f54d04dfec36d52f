package api

import (
	"context"
	"fmt"

	"github.com/ontoindex/ontoindex/api/wire"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/index"
	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// What one build changed of one subscribed set: the set is evaluated on
// the snapshot before the build and on the one after, restricted to the
// keys the build changed, with the engine's own planner (a filter and the
// changed keys), so that the cost follows the change, not the table, and
// the answer is the one a search of either snapshot gives.

// changeSet is the keys one commit changed.
type changeSet struct {
	keys    [][]byte                   // each changed key once
	objects map[string]*objects.Object // the new object of each upserted key
	removed map[string]uint32          // the Before document of each deleted key
}

func newChangeSet(c indexer.Commit) *changeSet {
	cs := &changeSet{objects: map[string]*objects.Object{}, removed: map[string]uint32{}}
	seen := map[string]bool{}
	add := func(k []byte) {
		if !seen[string(k)] {
			seen[string(k)] = true
			cs.keys = append(cs.keys, k)
		}
	}
	for _, ch := range c.Changes {
		if ch.Object != nil {
			cs.objects[string(ch.Key)] = ch.Object
			add(ch.Key)
			continue
		}
		k := c.Before.Key(ch.Doc)
		cs.removed[string(k)] = ch.Doc
		add(k)
	}
	return cs
}

// changesOf renders the object updates of one subscription for a commit:
// ADDED_OR_UPDATED for each changed object in its set after the build,
// REMOVED for each one that was in it before and is not after. Empty when
// the build changed nothing of the set.
func (s *Server) changesOf(ctx context.Context, c indexer.Commit, cs *changeSet, sub *subscription) ([]byte, error) {
	f := query.And(sub.filter, &query.Filter{Op: query.OpKeys, Keys: cs.keys})
	before, err := matchingKeys(ctx, c.Before, f, len(cs.keys))
	if err != nil {
		return nil, fmt.Errorf("object type %s: the set before the build: %w", c.ObjectType, err)
	}
	after, err := matchingKeys(ctx, c.After, f, len(cs.keys))
	if err != nil {
		return nil, fmt.Errorf("object type %s: the set after the build: %w", c.ObjectType, err)
	}
	if len(before) == 0 && len(after) == 0 {
		return nil, nil
	}
	t := c.After.Type()
	var b []byte
	var obj []byte
	in := make(map[string]bool, len(after))
	full := s.renderer(t, sub.sel, !sub.loadRids)
	for _, k := range after {
		in[string(k)] = true
		o := cs.objects[string(k)]
		if o == nil {
			return nil, fmt.Errorf("object type %s: key %x is in the set after the build but not among its changes", c.ObjectType, k)
		}
		if len(b) > 0 {
			b = append(b, ',')
		}
		obj = full.appendObject(obj[:0], k, o)
		b = wire.AppendObjectUpdate(b, wire.StateAddedOrUpdated, obj)
	}
	keyOnly := s.renderer(t, keySelection(t), !sub.loadRids)
	for _, k := range before {
		if in[string(k)] {
			continue
		}
		o, err := removedObject(c, cs, k)
		if err != nil {
			return nil, err
		}
		if len(b) > 0 {
			b = append(b, ',')
		}
		obj = keyOnly.appendObject(obj[:0], k, o)
		b = wire.AppendObjectUpdate(b, wire.StateRemoved, obj)
	}
	return b, nil
}

// matchingKeys is the keys of the objects of snap that f matches, at most
// limit of them, in primary-key order.
func matchingKeys(ctx context.Context, snap *index.Snapshot, f *query.Filter, limit int) ([][]byte, error) {
	res, err := snap.Search(ctx, &query.Search{Filter: f, PageSize: limit})
	if err != nil {
		return nil, err
	}
	keys := make([][]byte, len(res.Docs))
	for i, d := range res.Docs {
		keys[i] = snap.Key(d)
	}
	return keys, nil
}

// removedObject is an object that left a set, for its REMOVED update: its
// new state when it still exists, else its state before the build (whose
// key values are all a REMOVED update shows).
func removedObject(c indexer.Commit, cs *changeSet, k []byte) (*objects.Object, error) {
	if o := cs.objects[string(k)]; o != nil {
		return o, nil
	}
	doc, ok := cs.removed[string(k)]
	if !ok {
		return nil, fmt.Errorf("object type %s: key %x left the set but is not among the changes", c.ObjectType, k)
	}
	if c.Before.Readable() {
		return c.Before.Object(doc), nil
	}
	t := c.Before.Type()
	vals, err := objects.DecodeKey(k)
	if err != nil {
		return nil, fmt.Errorf("object type %s: decode key %x: %w", c.ObjectType, k, err)
	}
	idx := t.KeyIndexes()
	if len(vals) != len(idx) {
		return nil, fmt.Errorf("object type %s: key %x has %d values, the primary key %d", c.ObjectType, k, len(vals), len(idx))
	}
	o := &objects.Object{Values: make([]any, len(t.Properties))}
	for i, p := range idx {
		o.Values[p] = vals[i]
	}
	return o, nil
}

// keySelection selects the primary-key properties of t: what a REMOVED
// update carries besides __apiName and __primaryKey.
func keySelection(t *objects.Type) selection {
	sel := selection{}
	for _, i := range t.KeyIndexes() {
		sel[t.Properties[i].APIName] = true
	}
	return sel
}
