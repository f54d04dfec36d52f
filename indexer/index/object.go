package index

import "github.com/ontoindex/ontoindex/objects"

// Readable reports whether Object can rebuild the objects of the
// snapshot from its columns: when every property is a scalar the index
// keeps values of. Arrays (whose null elements the index drops) and
// strings of role none are read from the store instead.
func (s *Snapshot) Readable() bool {
	for _, pi := range s.props {
		if pi.col == nil {
			return false
		}
	}
	return true
}

// Object rebuilds the object of a document from the columns, exactly as
// the store holds it; Readable must be true.
func (s *Snapshot) Object(d uint32) *objects.Object {
	return &objects.Object{Values: s.Values(d, make([]any, len(s.props)))}
}

// Values fills vals (one per property) with the values of a document;
// Readable must be true.
func (s *Snapshot) Values(d uint32, vals []any) []any {
	for i, pi := range s.props {
		if pi.nulls.Contains(d) {
			vals[i] = nil
		} else {
			vals[i] = valueOf(pi.et, pi.col.get(d))
		}
	}
	return vals
}
