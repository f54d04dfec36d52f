package wire

import (
	"encoding/json"
	"fmt"

	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// selectionOps are the operations of a selection, and whether each reads
// a property of the linked objects.
var selectionOps = map[string]bool{"count": false, "sum": true, "avg": true, "min": true, "max": true,
	"exactDistinct": true, "approximateDistinct": true, "approximatePercentile": true,
	"collectList": true, "collectSet": true, "get": true}

// maxCollect is the largest limit of collectList and collectSet.
const maxCollect = 100

// selection decodes a selection: the chain of links of its objectSet and
// its operation.
func (d *SetDecoder) selection(name, path string, t *objects.Type, head Fields, depth int) (*DerivedDef, error) {
	def := &DerivedDef{Kind: DerivedSelection}
	if IsNull(head.Get("objectSet")) {
		return nil, badDerived(name, path+".objectSet", "selection needs objectSet")
	}
	target, err := d.selectionSet(name, path+".objectSet", t.APIName, head.Get("objectSet"), def, depth+1)
	if err != nil {
		return nil, err
	}
	if len(def.Hops) == 0 {
		return nil, badDerived(name, path+".objectSet", "selection reads linked objects: a searchAround from methodInput")
	}
	op, ok := JSONObject(head.Get("operation"))
	if !ok {
		return nil, badDerived(name, path+".operation", "selection needs operation")
	}
	opPath := path + ".operation"
	def.Op, _ = JSONString(op.Get("type"))
	reads, known := selectionOps[def.Op]
	if !known {
		return nil, badDerived(name, opPath+".type", fmt.Sprintf("unknown operation %q", def.Op))
	}
	if !reads {
		def.Type = objects.DataType{Kind: objects.KindInteger}
		return def, nil
	}
	tt, err := d.Resolver.Type(target)
	if err != nil {
		return nil, err
	}
	def.Property, _ = JSONString(op.Get("selectedPropertyApiName"))
	prop, ok := tt.Property(def.Property)
	if !ok {
		return nil, badDerived(name, opPath+".selectedPropertyApiName", fmt.Sprintf("%s has no property %q", target, def.Property))
	}
	elem := prop.Type
	switch def.Op {
	case "sum", "avg", "approximatePercentile":
		if !numeric(elem.Kind) { // decimals are summed as doubles
			return nil, badDerived(name, opPath+".selectedPropertyApiName", fmt.Sprintf("%s reads a number; %s is %s", def.Op, def.Property, elem))
		}
		def.Type = objects.DataType{Kind: objects.KindDouble}
		if def.Op == "approximatePercentile" {
			if err := json.Unmarshal(op.Get("approximatePercentile"), &def.Percentile); err != nil || def.Percentile < 0 || def.Percentile > 1 {
				return nil, badDerived(name, opPath+".approximatePercentile", "approximatePercentile must be a number from 0 to 1")
			}
		}
	case "min", "max":
		if elem.Kind == objects.KindList {
			return nil, badDerived(name, opPath+".selectedPropertyApiName", fmt.Sprintf("%s reads a value, not the array %s", def.Op, def.Property))
		}
		def.Type = elem
	case "exactDistinct", "approximateDistinct":
		def.Type = objects.DataType{Kind: objects.KindInteger}
	case "collectList", "collectSet":
		if err := json.Unmarshal(op.Get("limit"), &def.Limit); err != nil || def.Limit < 1 || def.Limit > maxCollect {
			return nil, badDerived(name, opPath+".limit", fmt.Sprintf("limit must be an integer from 1 to %d", maxCollect))
		}
		e := elem.Primitive()
		def.Type = objects.DataType{Kind: objects.KindList, Elem: &e}
	case "get":
		for _, h := range def.Hops {
			if info, _ := d.Resolver.Link(h.From, h.Link); !info.One {
				return nil, badDerived(name, opPath+".type", fmt.Sprintf("get reads one linked value: link %s of %s may lead to many objects; use collectList or collectSet", h.Link, h.From))
			}
		}
		def.Type = elem
	}
	return def, nil
}

// selectionSet reads the object set of a selection: methodInput (the
// set's objects, of type from), searchArounds and filters over it. It
// appends the hops to def and returns the type the chain reaches.
func (d *SetDecoder) selectionSet(name, path, from string, raw json.RawMessage, def *DerivedDef, depth int) (string, error) {
	if depth > d.Where.MaxDepth {
		return "", badDerived(name, path, fmt.Sprintf("nested deeper than %d levels", d.Where.MaxDepth))
	}
	head, ok := JSONObject(raw)
	if !ok {
		return "", badDerived(name, path, "an object set must be a JSON object with a type")
	}
	kind, _ := JSONString(head.Get("type"))
	switch kind {
	case "methodInput":
		return from, nil
	case "searchAround":
		link, _ := JSONString(head.Get("link"))
		if link == "" {
			return "", badDerived(name, path+".link", "searchAround needs link")
		}
		at, err := d.selectionSet(name, path+".objectSet", from, head.Get("objectSet"), def, depth+1)
		if err != nil {
			return "", err
		}
		info, err := d.Resolver.Link(at, link)
		if err != nil {
			return "", err
		}
		def.Hops = append(def.Hops, DerivedHop{From: at, Link: link, To: info.Target})
		return info.Target, nil
	case "filter":
		at, err := d.selectionSet(name, path+".objectSet", from, head.Get("objectSet"), def, depth+1)
		if err != nil {
			return "", err
		}
		if len(def.Hops) == 0 {
			return "", badDerived(name, path, "filter the linked objects (after a searchAround), not methodInput")
		}
		if d.Where.T, err = d.Resolver.Type(at); err != nil {
			return "", err
		}
		w, err := d.Where.Decode(head.Get("where"), depth+1)
		if err != nil {
			return "", err
		}
		if last := &def.Hops[len(def.Hops)-1]; last.Filter == nil {
			last.Filter = w
		} else if w != nil {
			last.Filter = query.And(last.Filter, w)
		}
		return at, nil
	}
	return "", badDerived(name, path+".type", fmt.Sprintf("a selection reads methodInput, searchAround and filter, not %q", kind))
}
