package objects

import (
	"encoding/binary"
	"fmt"
)

// maxWKBDepth bounds how deeply geometry collections may nest in WKB: real
// data nests one or two levels, and each level costs the parser a stack
// frame.
const maxWKBDepth = 32

// checkWKBCounts walks well-known binary the way simplefeatures' parser
// does and refuses a count that asks for more elements than the bytes left
// can hold. The parser sizes its slices by the counts before it reads
// them, so nine bytes claiming a line of a billion points would otherwise
// allocate gigabytes and take the process down. Malformations the parser
// reports itself (a bad byte order, an unknown type, a short read) end the
// walk with no error, and the parser names them.
func checkWKBCounts(b []byte) error {
	_, err := walkWKB(b, 0)
	return err
}

// walkWKB checks one geometry and returns the bytes after it; a nil rest
// with a nil error means the walk stopped at a malformation the parser
// will report.
func walkWKB(b []byte, depth int) ([]byte, error) {
	if depth > maxWKBDepth {
		return nil, fmt.Errorf("WKB nests geometries more than %d deep", maxWKBDepth)
	}
	if len(b) < 5 || b[0] > 1 {
		return nil, nil
	}
	var order binary.ByteOrder = binary.LittleEndian
	if b[0] == 0 {
		order = binary.BigEndian
	}
	code := order.Uint32(b[1:])
	dims := [...]int{2, 3, 3, 4}
	if code/1000 >= uint32(len(dims)) {
		return nil, nil
	}
	point := 8 * dims[code/1000]
	rest := b[5:]
	count := func(each int, what string) (int, bool, error) {
		if len(rest) < 4 {
			return 0, false, nil
		}
		n := uint64(order.Uint32(rest))
		rest = rest[4:]
		if n*uint64(each) > uint64(len(rest)) {
			return 0, false, fmt.Errorf("WKB claims %d %s in %d bytes", n, what, len(rest))
		}
		return int(n), true, nil
	}
	switch code % 1000 {
	case 1: // point
		if len(rest) < point {
			return nil, nil
		}
		return rest[point:], nil
	case 2: // line string
		n, ok, err := count(point, "points")
		if !ok {
			return nil, err
		}
		return rest[n*point:], nil
	case 3: // polygon: rings, each a count and its points
		n, ok, err := count(4, "rings")
		if !ok {
			return nil, err
		}
		for range n {
			m, ok, err := count(point, "points")
			if !ok {
				return nil, err
			}
			rest = rest[m*point:]
		}
		return rest, nil
	case 4, 5, 6, 7: // multi-geometries and collections: whole geometries
		const smallest = 1 + 4 + 4 // order, type, an empty count
		n, ok, err := count(smallest, "geometries")
		if !ok {
			return nil, err
		}
		for range n {
			next, err := walkWKB(rest, depth+1)
			if next == nil {
				return nil, err
			}
			rest = next
		}
		return rest, nil
	}
	return nil, nil
}
