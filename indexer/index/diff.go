package index

import (
	"fmt"
	"slices"
)

// Diff reports the first difference between the structures of two
// snapshots of one type, or nil when they index the same objects the same
// way. A dict that only one of them has (updates drop a dict whose values
// outgrow it; a rebuild makes one again) is not a difference.
func Diff(want, got *Snapshot) error {
	if !want.alive.Equals(got.alive) {
		return fmt.Errorf("index: %d documents, want %d", got.alive.GetCardinality(), want.alive.GetCardinality())
	}
	var err error
	want.alive.Iterate(func(d uint32) bool {
		if want.keys.get(d) != got.keys.get(d) {
			err = fmt.Errorf("index: document %d has key %x, want %x", d, got.keys.get(d), want.keys.get(d))
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	if err := diffOrders("primary key", want.keyOrder, got.keyOrder); err != nil {
		return err
	}
	for i, w := range want.properties {
		if err := diffProperty(want, w, got.properties[i]); err != nil {
			return fmt.Errorf("index: property %s: %w", w.property.APIName, err)
		}
	}
	return nil
}

func orderDocs(o *order) []uint32 {
	out := make([]uint32, 0, o.len())
	o.forEach(0, o.len(), func(_ int, d uint32) bool { out = append(out, d); return true })
	return out
}

func diffOrders(what string, want, got *order) error {
	w, g := orderDocs(want), orderDocs(got)
	if !slices.Equal(w, g) {
		return fmt.Errorf("index: %s order differs (%d entries, want %d)", what, len(g), len(w))
	}
	return nil
}

func diffProperty(s *Snapshot, want, got *propertyIndex) error {
	if !want.nulls.Equals(got.nulls) {
		return fmt.Errorf("%d nulls, want %d", got.nulls.GetCardinality(), want.nulls.GetCardinality())
	}
	if (want.column == nil) != (got.column == nil) || (want.listColumn == nil) != (got.listColumn == nil) ||
		(want.order == nil) != (got.order == nil) || (want.text == nil) != (got.text == nil) {
		return fmt.Errorf("different structures")
	}
	var err error
	var wb, gb []valueKey
	s.alive.Iterate(func(d uint32) bool {
		switch {
		case want.nulls.Contains(d):
		case want.column != nil && compareValueKeys(want.column.get(d), got.column.get(d)) != 0:
			err = fmt.Errorf("document %d: value %v, want %v", d, got.column.get(d), want.column.get(d))
		case want.listColumn != nil:
			wb, gb = want.listColumn.get(d, wb), got.listColumn.get(d, gb)
			if !slices.Equal(wb, gb) {
				err = fmt.Errorf("document %d: elements %v, want %v", d, gb, wb)
			}
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	if want.order != nil {
		if err := diffOrders("value", want.order, got.order); err != nil {
			return err
		}
	}
	if want.dict != nil && got.dict != nil {
		if len(want.dict.values) != len(got.dict.values) {
			return fmt.Errorf("dict has %d values, want %d", len(got.dict.values), len(want.dict.values))
		}
		for k, bm := range want.dict.values {
			if g := got.dict.values[k]; g == nil || !g.Equals(bm) {
				return fmt.Errorf("dict value %q differs", k)
			}
		}
	}
	if want.text != nil {
		if want.text.len() != got.text.len() {
			return fmt.Errorf("%d terms, want %d", got.text.len(), want.text.len())
		}
		want.text.each("", func(term string, p posting) bool {
			g, ok := got.text.get(term)
			if !ok || !slices.Equal(g.appendTo(nil), p.appendTo(nil)) {
				err = fmt.Errorf("term %q differs", term)
			}
			return err == nil
		})
	}
	return err
}
