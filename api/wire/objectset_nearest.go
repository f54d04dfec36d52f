package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"

	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// MaxNearestNeighbors bounds numNeighbors, as Foundry does.
const MaxNearestNeighbors = 500

// nearestSet is an ObjectSetNearestNeighborsType of
// @osdk/foundry.ontologies 2.57.0.
type nearestSet struct {
	Type               string          `json:"type"`
	ObjectSet          json.RawMessage `json:"objectSet"`
	PropertyIdentifier struct {
		Type    string `json:"type"`
		APIName string `json:"apiName"`
	} `json:"propertyIdentifier"`
	NumNeighbors        json.RawMessage `json:"numNeighbors"`
	SimilarityThreshold *float64        `json:"similarityThreshold"`
	Query               struct {
		Type  string          `json:"type"`
		Value json.RawMessage `json:"value"`
	} `json:"query"`
}

// nearestNeighbors decodes a nearestNeighbors set: the numNeighbors
// objects of its inner set nearest the query vector, filtered first, as
// the keys of those objects with their scores (which a relevance order
// returns). A text query needs an embedding model, and ontoindex has none.
func (d *SetDecoder) nearestNeighbors(raw json.RawMessage, depth int) (*Set, error) {
	var ns nearestSet
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ns); err != nil {
		return nil, BadSet("nearestNeighbors: " + err.Error())
	}
	if IsNull(ns.ObjectSet) || ns.PropertyIdentifier.APIName == "" || IsNull(ns.NumNeighbors) || ns.Query.Type == "" {
		return nil, BadSet("nearestNeighbors needs objectSet, propertyIdentifier, numNeighbors and query")
	}
	if ns.PropertyIdentifier.Type != "property" {
		return nil, BadSet(fmt.Sprintf("nearestNeighbors: propertyIdentifier of type %q is not supported; name a vector property ({type: property, apiName})", ns.PropertyIdentifier.Type))
	}
	var k float64
	if err := json.Unmarshal(ns.NumNeighbors, &k); err != nil || k != math.Trunc(k) || k < 1 || k > MaxNearestNeighbors {
		return nil, Err(NameTooManyNearestNeighborsRequested, map[string]any{"requestedNumNeighbors": json.RawMessage(ns.NumNeighbors),
			"maxNumNeighbors": MaxNearestNeighbors, "reason": fmt.Sprintf("numNeighbors must be an integer from 1 to %d", MaxNearestNeighbors)})
	}
	inner, err := d.Decode(ns.ObjectSet, depth+1)
	if err != nil {
		return nil, err
	}
	typ, f, err := inner.Single("nearestNeighbors")
	if err != nil {
		return nil, err
	}
	if inner.Derived != nil {
		return nil, BadSet("nearestNeighbors over a set with derived properties is not supported")
	}
	t, err := d.Resolver.Type(typ)
	if err != nil {
		return nil, err
	}
	name := ns.PropertyIdentifier.APIName
	p, ok := t.Property(name)
	if !ok || p.Hidden() {
		return nil, Err(NamePropertiesNotFound, map[string]any{"objectType": typ, "properties": []string{name}})
	}
	if p.Type.Kind != objects.KindVector {
		return nil, Err(NamePropertyTypeDoesNotSupportNearestNeighbors, map[string]any{"objectType": typ, "property": name,
			"reason": fmt.Sprintf("property %s is %s, not a vector", name, p.Type)})
	}
	var q []float32
	switch ns.Query.Type {
	case "text":
		return nil, Err(NamePropertyTypeDoesNotSupportNearestNeighbors, map[string]any{"objectType": typ, "property": name,
			"reason": fmt.Sprintf("no embedding model is configured for property %s: ontoindex embeds no text; send a vector query", name)})
	case "vector":
		if q, err = queryVector(ns.Query.Value); err != nil {
			return nil, BadSet("nearestNeighbors: query value: " + err.Error())
		}
	default:
		return nil, BadSet(fmt.Sprintf("nearestNeighbors: query of type %q; want vector or text", ns.Query.Type))
	}
	if len(q) != p.Type.Dimension {
		return nil, Err(NameInvalidVectorDimension, map[string]any{"expectedSize": p.Type.Dimension, "providedSize": len(q), "property": name,
			"reason": fmt.Sprintf("the query vector has %d elements; property %s has dimension %d", len(q), name, p.Type.Dimension)})
	}
	keys, scores, err := d.Resolver.NearestNeighbors(typ, f, name, q, int(k))
	if err != nil {
		return nil, err
	}
	if ns.SimilarityThreshold != nil {
		n := 0
		for n < len(scores) && scores[n] >= *ns.SimilarityThreshold {
			n++ // nearest first: the scores decrease
		}
		keys, scores = keys[:n], scores[:n]
	}
	if len(keys) == 0 {
		return singleSet(typ, &query.Filter{Op: query.OpNone}), nil
	}
	return singleSet(typ, &query.Filter{Op: query.OpKeys, Keys: keys, Scores: scores}), nil
}

// queryVector reads a DoubleVector's value: finite numbers within float32.
func queryVector(raw json.RawMessage) ([]float32, error) {
	var xs []float64
	if err := json.Unmarshal(raw, &xs); err != nil || xs == nil {
		return nil, fmt.Errorf("must be an array of numbers")
	}
	q := make([]float32, len(xs))
	for i, x := range xs {
		q[i] = float32(x)
		if math.IsInf(float64(q[i]), 0) {
			return nil, fmt.Errorf("element %d (%v) is beyond the range of a float", i, x)
		}
	}
	return q, nil
}
