package opensearch

import (
	"encoding/json"

	"github.com/ontoindex/ontoindex/objects"
)

// Document is the _source of an object: each property that holds a value
// under its apiName, as objects.JSONValue renders it for the API; a
// struct as an object of its fields and its presence; and the key field.
func Document(t *objects.Type, docID string, o *objects.Object) ([]byte, error) {
	m := make(map[string]any, len(t.Properties)+1)
	m[keyField] = docID
	for i, p := range t.Properties {
		if i >= len(o.Values) || o.Values[i] == nil || p.Hidden() {
			continue
		}
		if p.Type.Kind != objects.KindStruct {
			m[p.APIName] = objects.JSONValue(p.Type, o.Values[i])
			continue
		}
		fields := map[string]any{presentField: true}
		for _, j := range t.StructFields(i) {
			if j < len(o.Values) && o.Values[j] != nil {
				fields[t.Properties[j].Field] = objects.JSONValue(t.Properties[j].Type, o.Values[j])
			}
		}
		m[p.APIName] = fields
	}
	return json.Marshal(m)
}
