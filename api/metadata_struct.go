package api

import "github.com/ontoindex/ontoindex/objects"

// propertyDataType renders the type of property i of t: a struct's
// StructType lists its fields (StructFieldType of @osdk/foundry.ontologies
// 2.57.0), any other property's type is dataType's.
func propertyDataType(t *objects.Type, i int) map[string]any {
	p := t.Properties[i]
	if p.Type.Kind != objects.KindStruct {
		return dataType(p.Type)
	}
	fields := []any{}
	for _, j := range t.StructFields(i) {
		f := t.Properties[j]
		fields = append(fields, map[string]any{
			"apiName":     f.Field,
			"rid":         propertyRIDPrefix + t.APIName + "." + f.APIName,
			"dataType":    dataType(f.Type),
			"typeClasses": []any{},
		})
	}
	return map[string]any{"type": "struct", "structFieldTypes": fields}
}
