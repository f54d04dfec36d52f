package store

import (
	"bytes"

	bolt "go.etcd.io/bbolt"
)

// objectsCursor reads the objects a diff looks up. The rows of a data file
// mostly come in key order (a table written sorted, and a copy-on-write
// rewrite keeps its file's order), so the key looked up next is mostly the
// one after the last: the cursor steps to it within its leaf page rather
// than searching from the root, which at ten million objects is half the
// cost of a rewritten file's rows. Any other key is a seek, as a Get is.
type objectsCursor struct {
	c     *bolt.Cursor
	state cursorState
	// k and v are where a seek for a missing key left the cursor
	// (cursorAfter): the key after it.
	k, v []byte
}

type cursorState uint8

const (
	cursorNone  cursorState = iota // not positioned, or moved by a write
	cursorAt                       // at the last key found
	cursorAfter                    // at the key after the last key missed (k, v)
)

// getObject returns the stored value of key, nil when there is none.
func (w *Writer) getObject(key []byte) []byte {
	oc := &w.cursor
	switch oc.state {
	case cursorAt:
		if k, v := oc.c.Next(); k != nil && bytes.Equal(k, key) {
			return v
		}
	case cursorAfter:
		if oc.k != nil && bytes.Equal(oc.k, key) {
			oc.state = cursorAt
			return oc.v
		}
	}
	if oc.c == nil {
		oc.c = w.b.objects.Cursor()
	}
	k, v := oc.c.Seek(key)
	if k != nil && bytes.Equal(k, key) {
		oc.state = cursorAt
		return v
	}
	oc.state, oc.k, oc.v = cursorAfter, k, v
	return nil
}

// movedObjects forgets the cursor's position after a write to objects: a
// bbolt cursor must seek again after its bucket changed.
func (w *Writer) movedObjects() { w.cursor.state = cursorNone }
