package index

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/ontoindex/ontoindex/indexer/query"
)

// sorter orders documents by sort fields, nulls last in both directions,
// then by primary key ascending.
type sorter struct {
	s      *Snapshot
	fields []sortField
}

type sortField struct {
	pi         *propertyIndex
	descending bool
}

func newSorter(s *Snapshot, sorts []query.Sort) (*sorter, error) {
	so := &sorter{s: s}
	for _, f := range sorts {
		pi := s.property(f.Property)
		if pi == nil {
			return nil, fmt.Errorf("object type %s has no property %q", s.typ.APIName, f.Property)
		}
		if pi.order == nil {
			return nil, fmt.Errorf("property %s is not sortable", f.Property)
		}
		so.fields = append(so.fields, sortField{pi: pi, descending: f.Desc})
	}
	return so, nil
}

// position is where a document sits in the sort order: its sort values
// and its key. A cursor is the position of the last document of a page.
type position struct {
	null   []bool
	values []valueKey
	key    string
}

func (so *sorter) positionOf(d uint32) position {
	p := position{null: make([]bool, len(so.fields)), values: make([]valueKey, len(so.fields)), key: so.s.keys.get(d)}
	for i, f := range so.fields {
		if f.pi.nulls.Contains(d) {
			p.null[i] = true
		} else {
			p.values[i] = f.pi.column.get(d)
		}
	}
	return p
}

// compare orders two documents.
func (so *sorter) compare(a, b uint32) int {
	for _, f := range so.fields {
		an, bn := f.pi.nulls.Contains(a), f.pi.nulls.Contains(b)
		switch {
		case an && bn:
			continue
		case an:
			return 1
		case bn:
			return -1
		}
		c := compareValueKeys(f.pi.column.get(a), f.pi.column.get(b))
		if f.descending {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return strings.Compare(so.s.keys.get(a), so.s.keys.get(b))
}

// compareTo orders a document against a position.
func (so *sorter) compareTo(d uint32, p *position) int {
	for i, f := range so.fields {
		dn := f.pi.nulls.Contains(d)
		switch {
		case dn && p.null[i]:
			continue
		case dn:
			return 1
		case p.null[i]:
			return -1
		}
		c := compareValueKeys(f.pi.column.get(d), p.values[i])
		if f.descending {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return strings.Compare(so.s.keys.get(d), p.key)
}

const cursorVersion = 1

// encode is the cursor of a position.
func (p *position) encode() []byte {
	b := []byte{cursorVersion}
	b = binary.AppendUvarint(b, uint64(len(p.values)))
	for i, v := range p.values {
		if p.null[i] {
			b = append(b, 0)
			continue
		}
		b = append(b, 1)
		b = binary.BigEndian.AppendUint64(b, v.pre)
		b = binary.AppendUvarint(b, uint64(len(v.exact)))
		b = append(b, v.exact...)
	}
	b = binary.AppendUvarint(b, uint64(len(p.key)))
	return append(b, p.key...)
}

// decodeCursor reads a cursor made for a search with n sort fields.
func decodeCursor(b []byte, n int) (*position, error) {
	if len(b) < 2 || b[0] != cursorVersion {
		return nil, query.ErrBadCursor
	}
	b = b[1:]
	cnt, k := binary.Uvarint(b)
	if k <= 0 || cnt != uint64(n) {
		return nil, query.ErrBadCursor
	}
	b = b[k:]
	str := func() (string, bool) {
		l, k := binary.Uvarint(b)
		if k <= 0 || l > uint64(len(b)-k) {
			return "", false
		}
		s := string(b[k : k+int(l)])
		b = b[k+int(l):]
		return s, true
	}
	p := &position{null: make([]bool, n), values: make([]valueKey, n)}
	for i := range n {
		if len(b) == 0 {
			return nil, query.ErrBadCursor
		}
		flag := b[0]
		b = b[1:]
		switch flag {
		case 0:
			p.null[i] = true
		case 1:
			if len(b) < 8 {
				return nil, query.ErrBadCursor
			}
			p.values[i].pre = binary.BigEndian.Uint64(b)
			b = b[8:]
			s, ok := str()
			if !ok {
				return nil, query.ErrBadCursor
			}
			p.values[i].exact = s
		default:
			return nil, query.ErrBadCursor
		}
	}
	key, ok := str()
	if !ok || len(b) != 0 || key == "" {
		return nil, query.ErrBadCursor
	}
	p.key = key
	return p, nil
}

// Cursor is the cursor of a search in the given order positioned at
// document d: the next page of that search starts strictly after d. A
// caller that merges the pages of several searches resumes each after
// the last document it used.
func (s *Snapshot) Cursor(sorts []query.Sort, d uint32) ([]byte, error) {
	so, err := newSorter(s, sorts)
	if err != nil {
		return nil, err
	}
	p := so.positionOf(d)
	return p.encode(), nil
}
