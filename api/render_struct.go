package api

import (
	"cmp"
	"slices"

	"github.com/ontoindex/ontoindex/objects"
)

// structLayout maps each struct property's position to its fields'
// positions, sorted by field name: the order encoding/json writes the map
// of objects.Type.StructValue in, so both renderings are the same text.
func structLayout(t *objects.Type) map[int][]int {
	var out map[int][]int
	for i, p := range t.Properties {
		if p.Type.Kind != objects.KindStruct {
			continue
		}
		fields := t.StructFields(i)
		slices.SortFunc(fields, func(a, b int) int { return cmp.Compare(t.Properties[a].Field, t.Properties[b].Field) })
		if out == nil {
			out = map[int][]int{}
		}
		out[i] = fields
	}
	return out
}

// appendStruct writes the value of struct property i of a row: an object
// of its non-null fields (the selected ones, when the selection names
// fields rather than the struct), each read from the field's hidden
// property (objects/struct.go) and written as a property of its type is.
func (r *renderer) appendStruct(b []byte, rw row, i int, sc *objects.Scalar) []byte {
	b = append(b, '{')
	first := true
	whole := r.sel == nil || r.sel[r.t.Properties[i].APIName]
	for _, j := range r.structs[i] {
		f := &r.t.Properties[j]
		if !whole && !r.sel[f.APIName] {
			continue
		}
		if list := rw.cell(j, sc); list != nil || sc.Null {
			continue // fields are scalars; a list cannot be here
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = appendScalar(append(appendString(b, f.Field), ':'), f.Type, sc)
	}
	return append(b, '}')
}

// fieldSelected reports whether the selection names a field of struct
// property i (selectV2 with a structField identifier, or select
// "address.city"): the struct is then written with those fields only.
func (r *renderer) fieldSelected(i int) bool {
	for _, j := range r.structs[i] {
		if r.sel[r.t.Properties[j].APIName] {
			return true
		}
	}
	return false
}
