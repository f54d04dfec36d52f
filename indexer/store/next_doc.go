package store

import (
	"context"
	"encoding/binary"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// The next document of a generation that no index numbers (a type whose
// backend keeps no embedded index): its writers number new objects from
// a counter that never gives a number twice, not even one freed since.
// The counter is stored in the generation's meta, in the transaction of
// every build that numbers from it, so that opening the generation need
// not read every record to find it, and so that a restart never goes
// below a number a build committed (the records alone forget the numbers
// of the objects deleted since).
//
// It is stored with the version of the objects its commit wrote: a commit
// that numbered without the counter (an embedded index's free numbers,
// between a move of the type in and out of such a backend; a binary from
// before the key) writes a later version and leaves the stored counter
// stale, and a stale or missing counter is found again by the pass over
// the records, once.

// keyNextDoc holds, in a generation's meta, uvarint version | uvarint next
// document.
var keyNextDoc = []byte("nextDoc")

// Numbered makes every commit of the writer that writes a version store
// next() as the next document of the generation, at that version. A full
// build's chunks write none: a resumed build finds its next document by
// the pass (NextDoc), which is right there since a full build deletes
// nothing; its last commit (Finish) stores it.
func (w *Writer) Numbered(next func() uint64) { w.next = next }

// putNextDoc stores the writer's counter in the open transaction.
func (w *Writer) putNextDoc() error {
	if w.next == nil || w.version == 0 {
		return nil
	}
	return w.b.meta.Put(keyNextDoc, binary.AppendUvarint(binary.AppendUvarint(nil, w.version), w.next()))
}

// storedNextDoc is the stored next document, when stored at the
// generation's version.
func (g *Gen) storedNextDoc() (uint64, bool) {
	v := g.meta.Get(keyNextDoc)
	ver, n := binary.Uvarint(v)
	if n <= 0 || ver != g.Version() {
		return 0, false
	}
	next, m := binary.Uvarint(v[n:])
	if m <= 0 {
		return 0, false
	}
	return next, true
}

// NextDoc is the number a writer numbers the generation's new objects
// from when no index knows the free numbers: the stored counter, or
// (stored reports it was not there) the first number above every stored
// object's, as EachDoc returns it, read from the records alone.
func (g *Gen) NextDoc(ctx context.Context) (next uint64, stored bool, err error) {
	if g.layout < Layout {
		return uint64(g.Count()), false, nil // numbered in key order at load
	}
	if next, ok := g.storedNextDoc(); ok {
		return next, true, nil
	}
	c := g.objects.Cursor()
	n := 0
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if n++; n&0xffff == 0 {
			if err := ctx.Err(); err != nil {
				return 0, false, err
			}
		}
		r, err := g.record(v)
		if err != nil {
			return 0, false, fmt.Errorf("object %x: %w", k, err)
		}
		next = max(next, uint64(r.doc)+1)
	}
	return next, false, nil
}

// NextDoc is the next document of generation gen of an object type, and
// the version of its objects (Gen.NextDoc). A generation of the current
// layout that did not store it (written before the counter was) stores it
// now, so that the pass runs once.
func (d *DB) NextDoc(ctx context.Context, name string, gen int) (next, version uint64, err error) {
	var stored bool
	var layout uint64
	err = d.db.View(func(tx *bolt.Tx) error {
		g, err := openGen(tx, name, gen, false)
		if err != nil {
			return err
		}
		version, layout = g.Version(), g.Layout()
		next, stored, err = g.NextDoc(ctx)
		return err
	})
	if err != nil || stored || layout < Layout || version == 0 {
		return next, version, err
	}
	err = d.db.Update(func(tx *bolt.Tx) error {
		g, err := openGen(tx, name, gen, false)
		if err != nil {
			return err
		}
		if g.Version() != version {
			return nil // a build committed meanwhile: its counter counts
		}
		return g.meta.Put(keyNextDoc, binary.AppendUvarint(binary.AppendUvarint(nil, version), next))
	})
	if err != nil {
		return 0, 0, fmt.Errorf("store the next document: %w", err)
	}
	return next, version, nil
}
