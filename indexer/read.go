package indexer

import (
	"context"
	"fmt"

	"github.com/ontoindex/ontoindex/indexer/backend/opensearch"
	"github.com/ontoindex/ontoindex/indexer/index"
	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/indexer/store"
	"github.com/ontoindex/ontoindex/objects"
)

// View is a read handle on the serving generation of one object type: an
// index snapshot and, when it reads the store, a store transaction of the
// same version, so that every answer of a view comes from one state. It
// stays valid across builds: builds commit new versions beside it, and a
// full rebuild's old generation is removed only after its last view is
// released. Views are meant to live for one request, on one goroutine;
// call Release when done.
//
// A snapshot that holds every value (index.Snapshot.Readable, most types)
// answers searches, gets and aggregations alone, so its view opens no
// store transaction until a caller reads the store (Scan, CheckIndex):
// requests then take no bbolt lock at all.
//
// A type that keeps no embedded index (lean.go) has no snapshot (snap
// nil): its view holds a store transaction from the start, its backend
// answers searches and aggregations, and the reads only the index
// answers are refused (read_lean.go).
type View struct {
	ix   *Indexer
	gen  *generation
	cp   *Checkpoint
	r    *store.Reader // nil until the store is read, for readable snapshots
	snap *index.Snapshot
	// backend, for a type with a search backend, answers searches and
	// aggregations (backend_read.go).
	backend     *opensearch.Reader
	backendName string
}

// View opens a read handle on an object type. It returns ErrNotBuilt when
// the type has no generation to serve yet.
func (ix *Indexer) View(name string) (*View, error) {
	ts, err := ix.state(name)
	if err != nil {
		return nil, err
	}
	for range 5 {
		ts.mu.RLock()
		cp, gen := ts.cp, ts.gen
		ts.mu.RUnlock()
		if cp == nil || gen == nil {
			return nil, fmt.Errorf("object type %s: %w", name, ErrNotBuilt)
		}
		if !gen.acquire() {
			continue // retired between the two steps; take the new one
		}
		v, ok, err := ix.openView(gen, cp)
		if err != nil || ok {
			if err != nil {
				gen.release()
				return nil, err
			}
			if c := ix.cluster(&ts.spec); c != nil {
				v.backend, v.backendName = c.Reader(cp.Type), c.Name()
			}
			return v, nil
		}
		gen.release()
	}
	return nil, fmt.Errorf("object type %s: generation changed during read", name)
}

// openView pairs a store transaction with the snapshot of its version;
// ok is false when a build moved past the snapshots the generation holds
// while the transaction opened (the caller retries).
func (ix *Indexer) openView(gen *generation, cp *Checkpoint) (*View, bool, error) {
	if gen.lean != nil {
		r, err := ix.db.Read(gen.name, gen.n)
		if err != nil {
			return nil, false, err
		}
		return &View{ix: ix, gen: gen, cp: cp, r: r}, true, nil
	}
	if snap := gen.snapshot(); snap != nil && snap.Readable() {
		return &View{ix: ix, gen: gen, cp: cp, snap: snap}, true, nil
	}
	r, err := ix.db.Read(gen.name, gen.n)
	if err != nil {
		return nil, false, err
	}
	snap := gen.at(r.Version())
	if snap == nil {
		r.Close()
		return nil, false, nil
	}
	return &View{ix: ix, gen: gen, cp: cp, r: r, snap: snap}, true, nil
}

// reader returns the view's store transaction. A view opened without one
// opens it now and moves to the snapshot of the store's version, which a
// caller that reads the store (and has not searched yet) compares with.
func (v *View) reader() (*store.Reader, error) {
	if v.r != nil {
		return v.r, nil
	}
	for range 5 {
		r, err := v.ix.db.Read(v.gen.name, v.gen.n)
		if err != nil {
			return nil, err
		}
		if snap := v.gen.at(r.Version()); snap != nil {
			v.r, v.snap = r, snap
			return r, nil
		}
		r.Close() // builds moved past the snapshots the generation holds
	}
	return nil, fmt.Errorf("object type %s: the store moved on during the read", v.gen.name)
}

// Release gives the handle back.
func (v *View) Release() {
	if v.r != nil {
		v.r.Close()
	}
	v.gen.release()
}

// Type is the object type as of the view's checkpoint.
func (v *View) Type() *objects.Type { return v.cp.Type }

// Checkpoint is the checkpoint the view was opened at.
func (v *View) Checkpoint() *Checkpoint { return v.cp }

// Generation is the generation the view reads.
func (v *View) Generation() int { return v.gen.n }

// Get returns the object with the encoded key, or nil when there is none.
func (v *View) Get(key []byte) (*objects.Object, error) {
	if v.readable() {
		if d, ok := v.snap.Lookup(key); ok {
			return v.snap.Object(d), nil
		}
		return nil, nil
	}
	return v.r.Object(key) // not readable: the view holds a transaction
}

// Lookup returns the object with the encoded key as a page of one object
// (none when absent), the form searches return.
func (v *View) Lookup(key []byte) (*Page, error) {
	// The page and its one key and document in one allocation: a get by
	// key is the request where each counts.
	one := &struct {
		Page
		key [1][]byte
		doc [1]uint32
	}{}
	p := &one.Page
	if v.readable() {
		if d, ok := v.snap.Lookup(key); ok {
			one.key[0], one.doc[0] = key, d
			p.keys, p.snap, p.docs, p.Total = one.key[:], v.snap, one.doc[:], 1
			v.snap.Prefetch(p.docs) // the object's cells, each a likely cache miss, at once
		}
		return p, nil
	}
	o, err := v.Get(key)
	if err != nil || o == nil {
		return p, err
	}
	p.keys, p.objects, p.Total = [][]byte{key}, []*objects.Object{o}, 1
	return p, nil
}

// GetMany returns the objects of the keys, in order; nil where absent.
func (v *View) GetMany(keys [][]byte) ([]*objects.Object, error) {
	out := make([]*objects.Object, len(keys))
	for i, k := range keys {
		o, err := v.Get(k)
		if err != nil {
			return nil, fmt.Errorf("object %x: %w", k, err)
		}
		out[i] = o
	}
	return out, nil
}

// Count is the number of objects.
func (v *View) Count() int64 {
	if v.snap == nil {
		return v.r.Count() // no index: the view holds a transaction
	}
	return v.snap.Objects()
}

// readable reports whether the view's index holds every value
// (index.Snapshot.Readable): its objects are not read from the store.
func (v *View) readable() bool { return v.snap != nil && v.snap.Readable() }

// Scan calls fn for the objects with keys after `after` (all when nil), in
// primary-key order, until fn returns false.
func (v *View) Scan(after []byte, fn func(key []byte, o *objects.Object) bool) error {
	r, err := v.reader()
	if err != nil {
		return err
	}
	return r.Scan(after, fn)
}

// Page is one page of a search: the objects in order, with their keys.
type Page struct {
	// Next is the cursor of the next page (query.Search.After); nil on the
	// last page.
	Next  []byte
	Total int64
	Plan  index.Plan
	// Scores are the relevance scores of the objects, in a relevance
	// search; nil otherwise.
	Scores []float64

	// The objects: read from the store, with their keys, or (snap) rebuilt
	// from the index when it holds every property's values, keys read on
	// demand (Key): a page of every object, read to compute derived
	// values, renders a hundred of them.
	keys    [][]byte
	objects []*objects.Object
	snap    *index.Snapshot
	docs    []uint32

	// What Cursor needs: the search's order, the snapshot that answered
	// it and the documents of the page; or, for a page of a search
	// backend, the cursor of each object when it asked for them
	// (opensearch.Reader.Cursors).
	sort    []query.Sort
	index   *index.Snapshot
	pageOf  []uint32
	cursors [][]byte
}

// Cursor is the cursor of the page's search positioned at object j: the
// search resumed with it (query.Search.After) starts after object j.
func (p *Page) Cursor(j int) ([]byte, error) {
	if p.index == nil {
		if p.cursors != nil {
			return p.cursors[j], nil
		}
		// A page of a search backend has the cursor of its end only.
		if j == p.Len()-1 && p.Next != nil {
			return p.Next, nil
		}
		return nil, fmt.Errorf("a page of a search backend has no cursor at object %d", j)
	}
	return p.index.Cursor(p.sort, p.pageOf[j])
}

// Len is the number of objects of the page.
func (p *Page) Len() int {
	if p.keys != nil {
		return len(p.keys)
	}
	return len(p.docs)
}

// Key is the encoded primary key of object j.
func (p *Page) Key(j int) []byte {
	if p.keys != nil {
		return p.keys[j]
	}
	return p.snap.Key(p.docs[j])
}

// AppendKey appends the encoded primary key of object j to b (Key without
// a copy of its own).
func (p *Page) AppendKey(b []byte, j int) []byte {
	if p.keys != nil {
		return append(b, p.keys[j]...)
	}
	return p.snap.AppendKey(b, p.docs[j])
}

// Object returns object j of the page.
func (p *Page) Object(j int) *objects.Object {
	if p.snap != nil {
		return p.snap.Object(p.docs[j])
	}
	return p.objects[j]
}

// FromIndex reports whether the page's objects are read from the index
// (ReadScalar), not from the store (Object).
func (p *Page) FromIndex() bool { return p.snap != nil }

// ReadScalar reads property i of object j of a page FromIndex, as
// index.Snapshot.ReadScalar does.
func (p *Page) ReadScalar(j, i int, sc *objects.Scalar) {
	p.snap.ReadScalar(p.docs[j], i, sc)
}

// ReadAhead reads ahead the values of the first n objects of a page
// FromIndex, which a caller is about to render (index.Snapshot.Prefetch):
// a page of PartialSearch, of which a merge renders the first few.
func (p *Page) ReadAhead(n int) {
	if p.snap != nil {
		p.snap.Prefetch(p.docs[:n])
	}
}

// ReadAheadProperties reads ahead the values of properties props (positions
// in the type) of the first n objects of a page FromIndex: the values a
// caller compares before it renders any (index.Snapshot.PrefetchProperties).
func (p *Page) ReadAheadProperties(n int, props []int) {
	if p.snap != nil {
		p.snap.PrefetchProperties(p.docs[:min(n, len(p.docs))], props)
	}
}

// Search returns one page of the objects a search matches, their values
// read ahead for rendering.
func (v *View) Search(ctx context.Context, q *query.Search) (*Page, error) {
	if v.backendAnswers(q) {
		return v.backendSearch(ctx, q)
	}
	if v.snap == nil {
		return v.leanSearch(ctx, q, v.backend)
	}
	return v.search(ctx, q, true)
}

// PartialSearch is Search for a caller that renders only some objects of
// the page, the merge of several types' pages: it reads none ahead, and
// the caller reads ahead those it keeps (Page.ReadAhead).
func (v *View) PartialSearch(ctx context.Context, q *query.Search) (*Page, error) {
	if v.snap == nil {
		return v.leanPartialSearch(ctx, q)
	}
	return v.search(ctx, q, false)
}

func (v *View) search(ctx context.Context, q *query.Search, readAhead bool) (*Page, error) {
	res, err := v.snap.Search(ctx, q)
	if err != nil {
		return nil, err
	}
	p := &Page{Next: res.Next, Total: res.Total, Plan: res.Plan, Scores: res.Scores,
		sort: q.Sort, index: v.snap, pageOf: res.Docs}
	if readAhead || !v.snap.Readable() {
		v.snap.Prefetch(res.Docs)
	}
	// The index holds the values of most types: no store lookups then.
	if v.snap.Readable() {
		p.snap, p.docs = v.snap, res.Docs
		return p, nil
	}
	p.keys = make([][]byte, len(res.Docs))
	for i, d := range res.Docs {
		p.keys[i] = v.snap.Key(d)
	}
	if p.objects, err = v.GetMany(p.keys); err != nil {
		return nil, err
	}
	for i, o := range p.objects {
		if o == nil {
			return nil, fmt.Errorf("object type %s: the index holds key %x, the store does not", v.cp.Type.APIName, p.keys[i])
		}
	}
	return p, nil
}

// Aggregate computes an aggregation over the objects a filter matches.
func (v *View) Aggregate(ctx context.Context, q *query.Aggregate) (*query.AggregateResult, error) {
	if v.backend != nil {
		return v.backendAggregate(ctx, q)
	}
	if v.snap == nil {
		return nil, v.refuse("an aggregation", nil) // a type without an index has a backend
	}
	return v.embeddedAggregate(ctx, q)
}

// embeddedAggregate is Aggregate answered by the view's index.
func (v *View) embeddedAggregate(ctx context.Context, q *query.Aggregate) (*query.AggregateResult, error) {
	return v.snap.Aggregate(ctx, q, func(docs []uint32) ([]*objects.Object, error) {
		keys := make([][]byte, len(docs))
		for i, d := range docs {
			keys[i] = v.snap.Key(d)
		}
		return v.GetMany(keys)
	})
}

// Distinct returns the distinct non-null values of a scalar property among
// the objects a filter matches, in value order (see index.Snapshot.Distinct):
// what a link follows to another type.
func (v *View) Distinct(ctx context.Context, f *query.Filter, limits query.Limits, property string) (query.ValueSet, error) {
	if v.snap == nil {
		vals, err := v.backendDistinct(ctx, f, property)
		if err != nil {
			return nil, err
		}
		return query.ValueList(vals), nil
	}
	return v.snap.Distinct(ctx, f, limits, property)
}

// CheckIndex rebuilds the index of the view's version from its store and
// compares it with the index the view serves: every structure must be
// equal. It reads every object (tests use it).
func (v *View) CheckIndex(ctx context.Context) error {
	if v.snap == nil {
		return v.refuse("checking the index against the store", nil)
	}
	r, err := v.reader()
	if err != nil {
		return err
	}
	b := index.NewBuilder(v.snap.Type())
	if _, err := fillBuilder(ctx, r.Gen, b); err != nil {
		return err
	}
	return index.Diff(b.Finish(v.snap.Version()), v.snap)
}
