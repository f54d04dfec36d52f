package store

import (
	"fmt"

	"github.com/ontoindex/ontoindex/changelog"
	"github.com/ontoindex/ontoindex/objects"
)

// A full build's search backend is fed ahead of the store: every chunk
// commits only once the backend acknowledged its objects (a resumed build
// skips the rows of the committed chunks), and bbolt has one write
// transaction at a time, so a chunk's transaction stays open while its
// last writes are in flight. Rather than stop the diff meanwhile (the
// backend's node then sat idle from the chunk's last acknowledgement to
// the next chunk's first batch), the writer holds the next rows in
// memory, sends them to the backend at once, and applies them after the
// commit. Held rows are sent before they are committed, as the rows of a
// chunk always were: a build that fails then leaves the backend ahead of
// the store, and its resume sends them again at a higher version.

// Sender is the search backend of a full build fed ahead of the store
// (SendAhead).
type Sender interface {
	// Send takes the object of a row the writer applied or holds, in
	// the diff's order; key and o are the diff's buffers, valid only
	// during the call.
	Send(key []byte, o *objects.Object) error
	// Cut ends a chunk: the returned channel yields nil once the
	// backend acknowledged every object sent so far, or an error.
	Cut() <-chan error
}

// SendAhead makes a full build send every object it writes to s, and
// commit each chunk once s acknowledged it, holding the rows the diff
// hands over meanwhile (at most a chunk of them).
func (w *Writer) SendAhead(s Sender) { w.ahead = s }

// heldRow is a row applied once the cut chunk commits, or the end of a
// file (done). Its key and encoding are held in the writer's heldBuf,
// its values in heldValues.
type heldRow struct {
	typ               changelog.ChangeType
	file              string
	row               int64
	hash              uint64
	keyAt, encAt, end int
	valuesAt, width   int
	done              *changelog.DataFile
}

// heldKey is where a held row's key lives, for Lookup.
type heldKey struct {
	file string
	hash uint64
}

// cut ends the chunk of a writer that sends ahead: its transaction
// commits once the chunk is acknowledged, and the rows until then are
// held.
func (w *Writer) cut() {
	w.acked = w.ahead.Cut()
	if w.heldKeys == nil {
		w.heldKeys = map[string]heldKey{}
	}
}

// holding reports whether the writer holds rows: the acknowledgement of
// the cut chunk had not come when it was last asked. A full chunk held
// waits for it.
func (w *Writer) holding() (bool, error) {
	if w.acked == nil {
		return false, nil
	}
	if err := w.settle(len(w.held) >= w.chunkRows); err != nil {
		return false, err
	}
	return w.acked != nil, nil
}

// hold keeps an Insert or UpdateAfter for after the commit, and sends it.
func (w *Writer) hold(c *changelog.Change) error {
	h := heldRow{typ: c.Type, file: c.File, row: c.Row, hash: c.Hash, keyAt: len(w.heldBuf)}
	w.heldBuf = append(w.heldBuf, c.Key...)
	h.encAt = len(w.heldBuf)
	w.heldBuf = append(w.heldBuf, c.Encoded...)
	h.end = len(w.heldBuf)
	h.valuesAt, h.width = len(w.heldValues), len(c.Object.Values)
	w.heldValues = append(w.heldValues, c.Object.Values...)
	w.held = append(w.held, h)
	w.heldKeys[string(c.Key)] = heldKey{file: c.File, hash: c.Hash}
	return w.ahead.Send(c.Key, c.Object)
}

// heldLookup finds a held row's key.
func (w *Writer) heldLookup(key []byte) (heldKey, bool) {
	if w.acked == nil {
		return heldKey{}, false
	}
	h, ok := w.heldKeys[string(key)]
	return h, ok
}

// settle commits the cut chunk once it is acknowledged (waiting for it
// with wait), then applies the held rows; a chunk that ends within them
// is cut, and the rows after it stay held.
func (w *Writer) settle(wait bool) error {
	var err error
	if wait {
		err = <-w.acked
	} else {
		select {
		case err = <-w.acked:
		default:
			return nil
		}
	}
	w.acked = nil
	if err == nil {
		err = w.commit(nil, false)
	}
	if err != nil {
		w.dropHeld()
		return fmt.Errorf("object type %s: generation %d: commit a chunk: %w", w.name, w.gen, err)
	}
	if err := w.begin(false); err != nil {
		return err
	}
	held := w.held
	clear(w.heldKeys)
	var o objects.Object
	for i := range held {
		if w.acked != nil {
			n := copy(held, held[i:])
			w.held = held[:n]
			for _, h := range w.held {
				if h.done == nil {
					w.heldKeys[string(w.heldBuf[h.keyAt:h.encAt])] = heldKey{file: h.file, hash: h.hash}
				}
			}
			return nil
		}
		h := &held[i]
		if h.done != nil {
			if err := w.fileDone(*h.done); err != nil {
				return err
			}
			continue
		}
		o.Values = w.heldValues[h.valuesAt : h.valuesAt+h.width]
		c := changelog.Change{Type: h.typ, Key: w.heldBuf[h.keyAt:h.encAt], File: h.file, Row: h.row, Hash: h.hash,
			Encoded: w.heldBuf[h.encAt:h.end], Object: &o}
		if err := w.apply(&c, false); err != nil {
			return err
		}
	}
	// The buffers are reused; the values' strings are the data files'
	// buffers, let go.
	clear(w.heldValues)
	w.held, w.heldBuf, w.heldValues = held[:0], w.heldBuf[:0], w.heldValues[:0]
	return nil
}

// drain commits the cut chunks and applies every held row: for what
// needs the store as the diff left it.
func (w *Writer) drain() error {
	for w.acked != nil {
		if err := w.settle(true); err != nil {
			return err
		}
	}
	return nil
}

// Drain applies the rows held for a chunk's acknowledgement (SendAhead),
// once it came: a full build's diff is over.
func (w *Writer) Drain() error { return w.drain() }

// dropHeld forgets the held rows of a writer rolled back.
func (w *Writer) dropHeld() {
	w.acked = nil
	clear(w.heldKeys)
	clear(w.heldValues)
	w.held, w.heldBuf, w.heldValues = w.held[:0], w.heldBuf[:0], w.heldValues[:0]
}
