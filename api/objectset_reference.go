package api

import "encoding/json"

// Reference is the definition of the temporary object set rid names
// (temporary_sets.go), for wire.SetDecoder to decode in its place: with
// this request's views and scope, whoever created it.
func (d *setDecoder) Reference(rid string) (json.RawMessage, error) {
	set, err := d.s.temporary.get(rid)
	if err != nil {
		return nil, err
	}
	return set.definition, nil
}
