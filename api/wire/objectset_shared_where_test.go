package wire

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// sharedResolver serves the interface Named {label: string, score: long}
// implemented by four types in the order of implementers: Keyword1 and
// Keyword2 map label to a keyword property, Text to a text one, and Struct
// to the field of a struct (which decodes as a keyword); each maps score
// to its own long property.
type sharedResolver struct {
	fuzzResolver
	order []string
}

func (r sharedResolver) Implementers(iface string) ([]string, error) {
	if iface != "Named" {
		return nil, Err(NameInterfaceTypeNotFound, map[string]any{"interfaceType": iface})
	}
	return r.order, nil
}

func (r sharedResolver) Type(name string) (*objects.Type, error) {
	t, _, err := r.InterfaceView("Named", name)
	return t, err
}

// InterfaceView is typ through Named, with one property the interface does
// not have (hidden, as objects.ViewAs names it).
func (r sharedResolver) InterfaceView(iface, typ string) (*objects.Type, map[string]string, error) {
	str, long := objects.DataType{Kind: objects.KindString}, objects.DataType{Kind: objects.KindLong}
	label := objects.Property{APIName: "label", Type: str, Search: objects.SearchKeyword}
	names := map[string]string{"label": "name", "score": "points", objects.HiddenPrefix + "extra": "extra"}
	switch typ {
	case "Keyword1", "Keyword2":
	case "Text":
		label.Search, names["label"] = objects.SearchText, "title"
	case "Struct":
		label.Struct, label.Field, names["label"] = "address", "label", "address.label"
	default:
		return nil, nil, Err(NameObjectTypeNotFound, map[string]any{"objectType": typ})
	}
	extra := objects.Property{APIName: objects.HiddenPrefix + "extra", Type: long, Search: objects.SearchNumeric}
	if typ == "Keyword2" {
		extra.Type = str // a property outside the interface that differs
	}
	return objects.NewType(objects.Type{APIName: typ, PrimaryKey: []string{"score"}, Properties: []objects.Property{
		label, {APIName: "score", Type: long, Search: objects.SearchNumeric}, extra}}), names, nil
}

// TestSetDecoder_FilterShared checks that a where clause over an interface
// decoded once and shared between implementers gives each type the filter,
// the error and the clause count that decoding it for that type alone
// gives.
func TestSetDecoder_FilterShared(t *testing.T) {
	wheres := []string{
		`{"type":"eq","field":"label","value":"x"}`,
		`{"type":"gt","field":"score","value":3}`,
		`{"type":"and","value":[{"type":"eq","field":"label","value":"x"},{"type":"in","field":"score","value":[1,2,3]}]}`,
		`{"type":"containsAllTerms","field":"label","value":"red fox"}`, // text only
		`{"type":"startsWith","field":"label","value":"  "}`,            // no terms: refused on text only
		`{"type":"gt","field":"\u0000extra","value":3}`,                 // objects.HiddenPrefix: a property outside the interface
		`{"type":"isNull","field":"label","value":false}`,
		`{"type":"not","value":{"type":"eq","field":"missing","value":1}}`,
	}
	orders := [][]string{
		{"Keyword1", "Keyword2", "Text", "Struct"},
		{"Text", "Keyword1", "Struct", "Keyword2"},
		{"Struct", "Text", "Keyword2", "Keyword1"},
	}
	for _, order := range orders {
		res := sharedResolver{order: order}
		for _, where := range wheres {
			t.Run(order[0]+"/"+where, func(t *testing.T) {
				d := &SetDecoder{Resolver: res, Where: &WhereDecoder{MaxDepth: 8, MaxClauses: 64}}
				set, err := d.InterfaceSet("Named", json.RawMessage(where))

				// The same clause decoded for each type alone, in order:
				// the first error is the set's.
				wantClauses := 2
				want := map[string]*query.Filter{}
				var wantErr error
				for _, typ := range order {
					view, names, _ := res.InterfaceView("Named", typ)
					alone := &WhereDecoder{T: view, MaxDepth: 8, MaxClauses: 64}
					f, err := alone.Decode(json.RawMessage(where), 2)
					if err != nil {
						wantErr = err
						break
					}
					wantClauses += alone.clauses
					want[typ] = query.And(&query.Filter{Op: query.OpAll}, renameProperties(f, names))
				}
				if wantErr != nil {
					if err == nil || err.Error() != wantErr.Error() {
						t.Fatalf("error %v, want %v", err, wantErr)
					}
					return
				}
				if err != nil {
					t.Fatalf("error %v, want none", err)
				}
				if d.Where.clauses != wantClauses {
					t.Errorf("charged %d clauses, want %d (each type's)", d.Where.clauses, wantClauses)
				}
				for _, typ := range order {
					if !reflect.DeepEqual(set.Filters[typ], want[typ]) {
						t.Errorf("%s: filter %+v, want %+v", typ, set.Filters[typ], want[typ])
					}
				}
			})
		}
	}
}

// TestSetDecoder_FilterSharedBudget checks that a clause shared between
// implementers still counts once per type against the budget.
func TestSetDecoder_FilterSharedBudget(t *testing.T) {
	where := json.RawMessage(`{"type":"in","field":"score","value":[1,2,3,4,5,6,7,8]}`) // 9 clauses a type
	for _, tc := range []struct {
		types      []string
		maxClauses int
		ok         bool
	}{
		{[]string{"Keyword1"}, 11, true},
		{[]string{"Keyword1", "Keyword2"}, 20, true},
		{[]string{"Keyword1", "Keyword2"}, 19, false},
		{[]string{"Keyword1", "Keyword2", "Text"}, 28, false},
	} {
		d := &SetDecoder{Resolver: sharedResolver{order: tc.types}, Where: &WhereDecoder{MaxDepth: 8, MaxClauses: tc.maxClauses}}
		_, err := d.InterfaceSet("Named", where)
		if (err == nil) != tc.ok {
			t.Errorf("%d types, at most %d clauses: error %v, want ok %v", len(tc.types), tc.maxClauses, err, tc.ok)
		}
	}
}
