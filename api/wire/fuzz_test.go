package wire

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/internal/testkit/fuzztest"
	"github.com/ontoindex/ontoindex/objects"
)

// fuzzType is an object type with a property of every kind and search
// role the decoder tells apart.
func fuzzType() *objects.Type {
	str := objects.DataType{Kind: objects.KindString}
	long := objects.DataType{Kind: objects.KindLong}
	return objects.NewType(objects.Type{APIName: "Employee", PrimaryKey: []string{"id"}, TitleProperty: "name", Properties: []objects.Property{
		{APIName: "id", Type: long, Search: objects.SearchNumeric},
		{APIName: "age", Type: objects.DataType{Kind: objects.KindInteger}, Search: objects.SearchNumeric},
		{APIName: "big", Type: long, Search: objects.SearchNumeric},
		{APIName: "name", Type: str, Search: objects.SearchText},
		{APIName: "bio", Type: str, Search: objects.SearchText},
		{APIName: "title", Type: str, Search: objects.SearchText},
		{APIName: "dept", Type: str, Search: objects.SearchKeyword},
		{APIName: "salary", Type: objects.DataType{Kind: objects.KindDecimal, Precision: 10, Scale: 2}, Search: objects.SearchNumeric},
		{APIName: "rating", Type: objects.DataType{Kind: objects.KindDouble}, Search: objects.SearchNumeric},
		{APIName: "hired", Type: objects.DataType{Kind: objects.KindDate}, Search: objects.SearchDate},
		{APIName: "updated", Type: objects.DataType{Kind: objects.KindTimestampTZ}, Search: objects.SearchDate},
		{APIName: "active", Type: objects.DataType{Kind: objects.KindBoolean}, Search: objects.SearchBoolean},
		{APIName: "tags", Type: objects.DataType{Kind: objects.KindList, Elem: &str}, Search: objects.SearchKeyword},
		{APIName: "secret", Type: str, Search: objects.SearchNone},
		{APIName: "location", Type: objects.DataType{Kind: objects.KindGeoPoint}, Search: objects.SearchNone},
		{APIName: "area", Type: objects.DataType{Kind: objects.KindGeoShape}, Search: objects.SearchNone},
	}})
}

// checkRefused fails unless err is an *Error whose name has a row in the
// table with a client status: what the API answers 400 or 404 to.
func checkRefused(t *testing.T, input []byte, err error) {
	t.Helper()
	var we *Error
	if !errors.As(err, &we) {
		t.Fatalf("input %q: error %v (%T) is not an *Error", input, err, err)
	}
	if _, ok := table[we.Name]; !ok {
		t.Fatalf("input %q: error name %q has no row in the table", input, we.Name)
	}
	if s := we.Status(); s != 400 && s != 404 {
		t.Fatalf("input %q: %s is status %d, want 400 or 404", input, we.Name, s)
	}
	if _, err := json.Marshal(we.Params); err != nil {
		t.Fatalf("input %q: parameters of %s do not encode: %v", input, we.Name, err)
	}
}

// FuzzDecodeWhere decodes arbitrary where clauses: each is a filter or a
// client error of the table, never a panic; the depth and clause limits
// hold (a filter no deeper than MaxDepth).
func FuzzDecodeWhere(f *testing.F) {
	for _, s := range fuzztest.Lines(f, "testdata/where-seeds.txt") {
		f.Add([]byte(s))
	}
	typ := fuzzType()
	f.Fuzz(func(t *testing.T, raw []byte) {
		filter, err := Where(typ, raw, 8, 64)
		if err != nil {
			checkRefused(t, raw, err)
			return
		}
		if filter == nil {
			if !IsNull(raw) {
				t.Fatalf("input %q: no filter and no error", raw)
			}
			return
		}
		if d := depth(filter); d > 8 {
			t.Fatalf("input %q: a filter %d deep, limit 8", raw, d)
		}
	})
}

// FuzzDecodeToken decodes arbitrary page tokens, as search tokens and as
// object-type name tokens: each is refused as InvalidPageToken or, when it
// decodes, encodes to a token that decodes to the same.
func FuzzDecodeToken(f *testing.F) {
	fp := Fingerprint("search", "Employee", `{"type":"eq"}`, "id:asc")
	f.Add(Token{Kind: TokSearch, FP: fp, Values: []string{"cursor"}}.Encode())
	f.Add(Token{Kind: TokSearch, FP: fp}.Encode())
	f.Add(EncodeNameToken("Employee"))
	f.Add("")
	f.Add("AgMH_MllUiTn0gEKQXNzaWdubWVudA")
	f.Add("not base64!")
	f.Fuzz(func(t *testing.T, tok string) {
		if name, err := DecodeNameToken(tok); err == nil {
			if back, err := DecodeNameToken(EncodeNameToken(name)); err != nil || back != name {
				t.Fatalf("name token %q: %q, whose encoding decodes to %q (%v)", tok, name, back, err)
			}
		}
		got, err := DecodeToken(tok, TokSearch, fp)
		if err != nil {
			checkRefused(t, []byte(tok), err)
			var we *Error
			if errors.As(err, &we) && we.Name != NameInvalidPageToken {
				t.Fatalf("token %q: %s, want InvalidPageToken", tok, we.Name)
			}
			return
		}
		if got.Kind != TokSearch || got.FP != fp {
			t.Fatalf("token %q: kind %d fingerprint %x accepted", tok, got.Kind, got.FP)
		}
		// Base64 without padding accepts nonzero unused bits, so a token the
		// decoder takes need not be the spelling Encode gives; it must
		// decode to the same token from that spelling.
		if back, err := DecodeToken(got.Encode(), TokSearch, fp); err != nil || !reflect.DeepEqual(back, got) {
			t.Fatalf("token %q decodes to %+v, whose encoding decodes to %+v (%v)", tok, got, back, err)
		}
	})
}

// depth is the nesting depth of a filter (a leaf is 1).
func depth(f *query.Filter) int {
	d := 0
	for _, k := range f.Kids {
		d = max(d, depth(k))
	}
	return d + 1
}

// fuzzResolver serves Employee and Assignment, and one link between them
// whose searchAround matches nothing: the decoder is fuzzed here, the
// engine's searchAround through the handler (package api).
type fuzzResolver map[string]*objects.Type

func (r fuzzResolver) Type(name string) (*objects.Type, error) {
	t, ok := r[name]
	if !ok {
		return nil, Err(NameObjectTypeNotFound, map[string]any{"objectType": name})
	}
	return t, nil
}

func (r fuzzResolver) SearchAround(f *query.Filter, typ, link string) (*query.Filter, string, error) {
	if typ != "Employee" || link != "assignments" {
		return nil, "", Err(NameLinkTypeNotFound, map[string]any{"objectType": typ, "linkType": link})
	}
	return &query.Filter{Op: query.OpNone}, "Assignment", nil
}

func (r fuzzResolver) NearestNeighbors(typ string, _ *query.Filter, _ string, _ []float32, _ int) ([][]byte, []float64, error) {
	return nil, nil, nil
}

func (r fuzzResolver) Link(typ, link string) (LinkInfo, error) {
	if typ != "Employee" || link != "assignments" {
		return LinkInfo{}, Err(NameLinkTypeNotFound, map[string]any{"objectType": typ, "linkType": link})
	}
	return LinkInfo{Target: "Assignment"}, nil
}

// The fuzz resolver's one interface, Keyed {key: long}, is implemented
// by both types (key: id), with the link boss (Employee's link
// assignments, which Assignment does not map).
func (r fuzzResolver) IsInterface(name string) bool { return name == "Keyed" }

func (r fuzzResolver) Implementers(iface string) ([]string, error) {
	if iface != "Keyed" {
		return nil, Err(NameInterfaceTypeNotFound, map[string]any{"interfaceType": iface})
	}
	return []string{"Employee", "Assignment"}, nil
}

func (r fuzzResolver) InterfaceView(iface, typ string) (*objects.Type, map[string]string, error) {
	if _, err := r.Implementers(iface); err != nil {
		return nil, nil, err
	}
	long := objects.DataType{Kind: objects.KindLong}
	return objects.NewType(objects.Type{APIName: typ, PrimaryKey: []string{"key"},
		Properties: []objects.Property{{APIName: "key", Type: long, Search: objects.SearchNumeric}}}), map[string]string{"key": "id"}, nil
}

func (r fuzzResolver) InterfaceLink(iface, typ, link string) (string, string, bool, error) {
	if link != "boss" {
		return "", "", false, Err(NameLinkTypeNotFound, map[string]any{"interfaceType": iface, "linkType": link})
	}
	return "assignments", "", typ == "Employee", nil
}

// Reference stores two sets: a base set, and one that names itself, which
// the depth bound must stop.
func (r fuzzResolver) Reference(rid string) (json.RawMessage, error) {
	switch rid {
	case "ri.fuzz.employees":
		return json.RawMessage(`{"type":"base","objectType":"Employee"}`), nil
	case "ri.fuzz.loop":
		return json.RawMessage(`{"type":"reference","reference":"ri.fuzz.loop"}`), nil
	}
	return nil, Err(NameObjectSetNotFound, map[string]any{"objectSetRid": rid})
}

// FuzzDecodeObjectSet decodes arbitrary object sets: each is a filter on
// each of its types, all of them the resolver's, or a client error of the
// table, never a panic.
func FuzzDecodeObjectSet(f *testing.F) {
	for _, s := range fuzztest.Lines(f, "testdata/object-set-seeds.txt") {
		f.Add([]byte(s))
	}
	long := objects.DataType{Kind: objects.KindLong}
	res := fuzzResolver{"Employee": fuzzType(), "Assignment": objects.NewType(objects.Type{APIName: "Assignment", PrimaryKey: []string{"id"},
		Properties: []objects.Property{{APIName: "id", Type: long, Search: objects.SearchNumeric}, {APIName: "hours", Type: long, Search: objects.SearchNumeric}}})}
	f.Fuzz(func(t *testing.T, raw []byte) {
		d := &SetDecoder{Resolver: res, Where: &WhereDecoder{MaxDepth: 8, MaxClauses: 64}}
		set, err := d.Decode(raw, 1)
		if err != nil {
			checkRefused(t, raw, err)
			return
		}
		if len(set.Filters) != len(set.Types) {
			t.Fatalf("input %q: types %v but filters of %d", raw, set.Types, len(set.Filters))
		}
		for _, typ := range set.Types {
			if res[typ] == nil || set.Filters[typ] == nil {
				t.Fatalf("input %q: type %q without a filter or not the resolver's", raw, typ)
			}
		}
	})
}
