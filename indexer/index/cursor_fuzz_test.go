package index

import (
	"errors"
	"reflect"
	"testing"

	"github.com/ontoindex/ontoindex/indexer/query"
)

// FuzzDecodeCursor reads arbitrary cursors (what a page token carries, as
// a client may forge it) for searches of 0 to 3 sort fields: each is
// refused with query.ErrBadCursor or decodes to a position that encodes
// and decodes back to itself, never a panic.
func FuzzDecodeCursor(f *testing.F) {
	f.Add((&position{key: "k1"}).encode(), uint8(0))
	f.Add((&position{null: []bool{false, true}, values: []valueKey{{pre: 42, exact: "Oslo"}, {}}, key: "\x00\x01"}).encode(), uint8(2))
	f.Add((&position{null: []bool{false}, values: []valueKey{{pre: 1 << 63}}, key: "key"}).encode(), uint8(1))
	f.Add([]byte{cursorVersion, 0x80, 0x00, 1, 'k'}, uint8(0)) // a count spelt long
	f.Add([]byte{}, uint8(3))
	f.Fuzz(func(t *testing.T, b []byte, fields uint8) {
		n := int(fields % 4)
		p, err := decodeCursor(b, n)
		if err != nil {
			if !errors.Is(err, query.ErrBadCursor) {
				t.Fatalf("cursor %q: error %v is not ErrBadCursor", b, err)
			}
			return
		}
		if len(p.values) != n || len(p.null) != n || p.key == "" {
			t.Fatalf("cursor %q: %d values, %d nulls, key %q for %d fields", b, len(p.values), len(p.null), p.key, n)
		}
		back, err := decodeCursor(p.encode(), n)
		if err != nil || !reflect.DeepEqual(back, p) {
			t.Fatalf("cursor %q: decodes to %+v, which encodes to what decodes to %+v (%v)", b, p, back, err)
		}
	})
}
