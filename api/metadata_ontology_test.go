package api_test

import (
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/objects"
)

// What the object types of the interfaces env implement, as
// ObjectTypeFullMetadata's implementsInterfaces and implementsInterfaces2
// (the app token: every link can be followed).
var wantImplements = map[string][2]string{
	"Customer": {`["Named","Party"]`, `{
		"Named":{"apiName":"Named","rid":"ri.ontoindex.main.interface-type.Named","properties":{"label":"name"},
			"propertiesV2":{"label":{"type":"localPropertyImplementation","propertyApiName":"name"}},"links":{}},
		"Party":{"apiName":"Party","rid":"ri.ontoindex.main.interface-type.Party","properties":{"label":"name","city":"city"},
			"propertiesV2":{"label":{"type":"localPropertyImplementation","propertyApiName":"name"},"city":{"type":"localPropertyImplementation","propertyApiName":"city"}},
			"links":{"bills":["orders"]}}}`},
	"Order": {`["Billable","Named"]`, `{
		"Billable":{"apiName":"Billable","rid":"ri.ontoindex.main.interface-type.Billable","properties":{"label":"status","amount":"amount"},
			"propertiesV2":{"label":{"type":"localPropertyImplementation","propertyApiName":"status"},"amount":{"type":"localPropertyImplementation","propertyApiName":"amount"}},
			"links":{"payer":["customer"]}},
		"Named":{"apiName":"Named","rid":"ri.ontoindex.main.interface-type.Named","properties":{"label":"status"},
			"propertiesV2":{"label":{"type":"localPropertyImplementation","propertyApiName":"status"}},"links":{}}}`},
	"Tag": {`["Named"]`, `{"Named":{"apiName":"Named","rid":"ri.ontoindex.main.interface-type.Named","properties":{"label":"label"},
			"propertiesV2":{"label":{"type":"localPropertyImplementation","propertyApiName":"label"}},"links":{}}}`},
}

// convertsAsObjectType checks what @osdk/generator-converters'
// wireObjectTypeFullMetadataToSdkObjectMetadata reads of an
// ObjectTypeFullMetadata: objectType.properties[objectType.primaryKey]
// (else it throws), implementsInterfaces2 whenever implementsInterfaces is
// sent (else it throws "missing the implementsInterfaces2 field"), per
// interface propertiesV2 entries of type localPropertyImplementation with
// propertyApiName (the others it drops) or else properties, linkTypes
// with apiName, cardinality and objectTypeApiName, objectType.icon.type.
// Each mapped property must be a property of the type, or the client's
// interface views read nothing.
func convertsAsObjectType(tb testing.TB, m map[string]any) {
	tb.Helper()
	ot, _ := m["objectType"].(map[string]any)
	props, _ := ot["properties"].(map[string]any)
	if _, ok := props[ot["primaryKey"].(string)]; !ok {
		tb.Errorf("%v: the primary key is not a property", ot["apiName"])
	}
	if _, ok := ot["icon"].(map[string]any)["type"].(string); !ok {
		tb.Errorf("%v: no icon type", ot["apiName"])
	}
	names, ok1 := m["implementsInterfaces"].([]any)
	impls, ok2 := m["implementsInterfaces2"].(map[string]any)
	if !ok1 || !ok2 || len(names) != len(impls) {
		tb.Fatalf("%v: implementsInterfaces %v and implementsInterfaces2 %v", ot["apiName"], m["implementsInterfaces"], m["implementsInterfaces2"])
	}
	for _, name := range names {
		impl, _ := impls[name.(string)].(map[string]any)
		for ip, v := range impl["propertiesV2"].(map[string]any) {
			v := v.(map[string]any)
			if _, ok := props[v["propertyApiName"].(string)]; v["type"] != "localPropertyImplementation" || !ok {
				tb.Errorf("%v implements %v.%s as %v", ot["apiName"], name, ip, v)
			}
		}
	}
	for _, l := range m["linkTypes"].([]any) {
		l := l.(map[string]any)
		if l["apiName"] == nil || l["objectTypeApiName"] == nil || (l["cardinality"] != "ONE" && l["cardinality"] != "MANY") {
			tb.Errorf("%v: link type %v", ot["apiName"], l)
		}
	}
}

func TestObjectTypeFullMetadata_implements(t *testing.T) {
	e := mustInterfacesEnv(t, 5)
	for typ, want := range wantImplements {
		t.Run(typ, func(t *testing.T) {
			m := e.ok(t, http.MethodGet, ontologyPath+"/objectTypes/"+typ+"/fullMetadata?preview=true", nil)
			sameJSON(t, "implementsInterfaces", m["implementsInterfaces"], want[0])
			sameJSON(t, "implementsInterfaces2", m["implementsInterfaces2"], want[1])
			convertsAsObjectType(t, m)
		})
	}
	t.Run("a link the token cannot follow", func(t *testing.T) {
		m := e.do(t, http.MethodGet, ontologyPath+"/objectTypes/Order/fullMetadata", ordersOnlyToken, nil).json(t)
		sameJSON(t, "Order's Billable links", m["implementsInterfaces2"].(map[string]any)["Billable"].(map[string]any)["links"], `{}`)
	})
	t.Run("without interfaces", func(t *testing.T) {
		m := mustLinksEnv(t, 5).ok(t, http.MethodGet, ontologyPath+"/objectTypes/Order/fullMetadata", nil)
		sameJSON(t, "implementsInterfaces", m["implementsInterfaces"], `[]`)
		sameJSON(t, "implementsInterfaces2", m["implementsInterfaces2"], `{}`)
	})
}

// withPriced adds Priced {amount: long}, implemented by Order with its
// amount, a double: the config resolves (data types are the tables'), the
// implementation does not fit.
func withPriced(cfg *config.Config) {
	cfg.Interfaces = append(cfg.Interfaces, objects.InterfaceSpec{APIName: "Priced",
		Properties: map[string]objects.InterfacePropertySpec{"amount": {DataType: "long"}}})
	for i := range cfg.ObjectTypes {
		if cfg.ObjectTypes[i].APIName == "Order" {
			cfg.ObjectTypes[i].Implements["Priced"] = objects.ImplementationSpec{Properties: map[string]string{"amount": "amount"}}
		}
	}
}

// TestInterfaceTypes_dataTypeMismatch: an implementation whose property
// has another data type than the interface's is not served: reading the
// interface is 409 naming the field and both types, the type's metadata
// leaves the interface out (so the type still loads), and the interfaces
// it does fit are served.
func TestInterfaceTypes_dataTypeMismatch(t *testing.T) {
	e := mustLinksEnv(t, 5, withInterfaces, withPriced)
	for _, path := range []string{"/interfaceTypes/Priced", "/interfaceTypes/Priced/outgoingLinkTypes", "/interfaceTypes", "/fullMetadata"} {
		m := e.fail(t, http.MethodGet, ontologyPath+path, nil, http.StatusConflict, "InterfaceTypeNotResolvable")
		msg := m["message"].(string)
		if !strings.Contains(msg, "Order.implements.Priced.properties.amount") || !strings.Contains(msg, "property amount of Order is double, interface property Priced.amount is long") {
			t.Errorf("%s: message %q does not name the field and both types", path, msg)
		}
		if p := m["parameters"].(map[string]any); p["interfaceType"] != "Priced" || p["objectType"] != "Order" {
			t.Errorf("%s: parameters %v", path, p)
		}
	}
	e.fail(t, http.MethodPost, ontologyPath+"/metadata", `{"interfaceTypes":["Priced"]}`, http.StatusConflict, "InterfaceTypeNotResolvable")
	m := e.ok(t, http.MethodGet, ontologyPath+"/objectTypes/Order/fullMetadata", nil)
	sameJSON(t, "Order's implementsInterfaces", m["implementsInterfaces"], wantImplements["Order"][0])
	sameJSON(t, "Order's implementsInterfaces2", m["implementsInterfaces2"], wantImplements["Order"][1])
	sameJSON(t, "Billable", e.ok(t, http.MethodGet, ontologyPath+"/interfaceTypes/Billable", nil), wantInterfaces["Billable"])
	// The metadata of the ontology without the interface is served.
	m = e.ok(t, http.MethodPost, ontologyPath+"/metadata", `{"objectTypes":["Order"],"interfaceTypes":["Named"]}`)
	if len(m["objectTypes"].(map[string]any)) != 1 || len(m["interfaceTypes"].(map[string]any)) != 1 {
		t.Errorf("loadMetadata without Priced: %v", m)
	}
}

// keys lists the keys of a JSON object, sorted.
func keys(m any) []string {
	var out []string
	for k := range m.(map[string]any) {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func TestOntologyFullMetadata(t *testing.T) {
	e := mustLinksEnv(t, 5, withInterfaces, withReceipt)
	for _, c := range []struct {
		token       string
		types       []string
		ifaces      []string
		description string
	}{
		{appToken, []string{"Customer", "Order", "Tag"}, []string{"Billable", "Named", "Party", "Receipt"}, "every type and interface"},
		{ordersOnlyToken, []string{"Order"}, []string{"Billable", "Named"}, "what the token sees"},
	} {
		t.Run(c.description, func(t *testing.T) {
			m := e.do(t, http.MethodGet, ontologyPath+"/fullMetadata", c.token, nil).json(t)
			if got := keys(m); !slices.Equal(got, []string{"actionTypes", "interfaceTypes", "objectTypes", "ontology", "queryTypes", "sharedPropertyTypes", "valueTypes"}) {
				t.Errorf("fields %v", got)
			}
			sameJSON(t, "ontology", m["ontology"], string(e.do(t, http.MethodGet, ontologyPath, c.token, nil).body))
			for _, k := range []string{"actionTypes", "queryTypes", "sharedPropertyTypes", "valueTypes"} {
				sameJSON(t, k, m[k], `{}`)
			}
			if got := keys(m["objectTypes"]); !slices.Equal(got, c.types) {
				t.Errorf("objectTypes %v, want %v", got, c.types)
			}
			if got := keys(m["interfaceTypes"]); !slices.Equal(got, c.ifaces) {
				t.Errorf("interfaceTypes %v, want %v", got, c.ifaces)
			}
			// Each entry is what its own endpoint answers.
			for _, typ := range c.types {
				own := e.do(t, http.MethodGet, ontologyPath+"/objectTypes/"+typ+"/fullMetadata", c.token, nil).json(t)
				if got := m["objectTypes"].(map[string]any)[typ]; !reflect.DeepEqual(got, any(own)) {
					t.Errorf("objectTypes.%s: %v, want %v", typ, got, own)
				}
				convertsAsObjectType(t, own)
			}
			for _, name := range c.ifaces {
				own := e.do(t, http.MethodGet, ontologyPath+"/interfaceTypes/"+name, c.token, nil).json(t)
				if got := m["interfaceTypes"].(map[string]any)[name]; !reflect.DeepEqual(got, any(own)) {
					t.Errorf("interfaceTypes.%s: %v, want %v", name, got, own)
				}
			}
		})
	}
	e.fail(t, http.MethodGet, "/api/v2/ontologies/other/fullMetadata", nil, http.StatusNotFound, "OntologyNotFound")
}

func TestOntologyLoadMetadata(t *testing.T) {
	e := mustInterfacesEnv(t, 5)
	path := ontologyPath + "/metadata?preview=true"
	linkNames := func(m map[string]any, typ string) []string {
		var out []string
		for _, l := range m["objectTypes"].(map[string]any)[typ].(map[string]any)["linkTypes"].([]any) {
			out = append(out, l.(map[string]any)["apiName"].(string))
		}
		slices.Sort(out)
		return out
	}
	t.Run("what is named", func(t *testing.T) {
		m := e.ok(t, http.MethodPost, path, `{"objectTypes":["Order"],"linkTypes":[],"actionTypes":[],"queryTypes":[],"interfaceTypes":["Named"]}`)
		if got := keys(m["objectTypes"]); !slices.Equal(got, []string{"Order"}) {
			t.Errorf("objectTypes %v", got)
		}
		own := e.ok(t, http.MethodGet, ontologyPath+"/objectTypes/Order/fullMetadata", nil)
		if !reflect.DeepEqual(m["objectTypes"].(map[string]any)["Order"], any(own)) {
			t.Errorf("Order: %v, want its fullMetadata %v", m["objectTypes"].(map[string]any)["Order"], own)
		}
		sameJSON(t, "interfaceTypes", m["interfaceTypes"], `{"Named":`+wantInterfaces["Named"]+`}`)
		for _, k := range []string{"actionTypes", "queryTypes", "sharedPropertyTypes", "valueTypes"} {
			sameJSON(t, k, m[k], `{}`)
		}
	})
	t.Run("a link type brings its types with that link only", func(t *testing.T) {
		m := e.ok(t, http.MethodPost, path, `{"linkTypes":["orders"]}`)
		if got := keys(m["objectTypes"]); !slices.Equal(got, []string{"Customer", "Tag"}) {
			t.Fatalf("objectTypes %v, want Customer and Tag (both have a side named orders)", got)
		}
		if got := linkNames(m, "Customer"); !slices.Equal(got, []string{"orders"}) {
			t.Errorf("Customer's link types %v", got)
		}
		m = e.ok(t, http.MethodPost, path, `{"objectTypes":["Order"],"linkTypes":["customer","orders"]}`)
		if got := linkNames(m, "Order"); !slices.Equal(got, []string{"customer", "tags"}) {
			t.Errorf("a requested type carries all its link types: %v", got)
		}
	})
	t.Run("nothing named", func(t *testing.T) {
		m := e.ok(t, http.MethodPost, path, `{}`)
		sameJSON(t, "objectTypes", m["objectTypes"], `{}`)
		sameJSON(t, "interfaceTypes", m["interfaceTypes"], `{}`)
	})
	for _, c := range []struct{ body, token, name string }{
		{`{"objectTypes":["Ordr"]}`, appToken, "ObjectTypeNotFound"},
		{`{"objectTypes":["Customer"]}`, ordersOnlyToken, "ObjectTypeNotFound"},
		{`{"linkTypes":["payer"]}`, appToken, "LinkTypeNotFound"},
		{`{"linkTypes":["customer"]}`, ordersOnlyToken, "LinkTypeNotFound"},
		{`{"interfaceTypes":["Party"]}`, ordersOnlyToken, "InterfaceTypeNotFound"},
		{`{"actionTypes":["promote"]}`, appToken, "ActionTypeNotFound"},
		{`{"queryTypes":["total"]}`, appToken, "QueryNotFound"},
		{`{"objectType":["Order"]}`, appToken, "MalformedRequestBody"},
	} {
		status := http.StatusNotFound
		if c.name == "MalformedRequestBody" {
			status = http.StatusBadRequest
		}
		e.failAs(t, c.token, http.MethodPost, path, c.body, status, c.name)
	}
	e.fail(t, http.MethodPost, path, nil, http.StatusBadRequest, "MissingPostBody")
}

func TestObjectTypes_getByRidBatch(t *testing.T) {
	e := mustInterfacesEnv(t, 5)
	path := ontologyPath + "/objectTypes/getByRidBatch"
	rid := func(typ string) string { return `{"objectTypeRid":"ri.ontoindex.main.object-type.` + typ + `"}` }
	body := `{"requests":[` + strings.Join([]string{rid("Order"), `{"objectTypeRid":"ri.other.main.object-type.Order"}`, rid("Nobody"), rid("Customer"), rid("Order")}, ",") + `]}`
	for _, c := range []struct {
		token string
		want  []string
	}{
		{appToken, []string{"Order", "Customer"}},
		{ordersOnlyToken, []string{"Order"}},
	} {
		m := e.do(t, http.MethodPost, path, c.token, body).json(t)
		data := m["data"].([]any)
		if len(data) != len(c.want) {
			t.Fatalf("%s: %d object types, want %v: %v", c.token, len(data), c.want, m)
		}
		for i, typ := range c.want {
			own := e.ok(t, http.MethodGet, ontologyPath+"/objectTypes/"+typ, nil)
			if !reflect.DeepEqual(data[i], any(own)) {
				t.Errorf("data[%d]: %v, want %v", i, data[i], own)
			}
		}
	}
	sameJSON(t, "no requests", e.ok(t, http.MethodPost, path, `{"requests":[]}`), `{"data":[]}`)
	e.fail(t, http.MethodPost, path, `{"data":[{"rid":"x"}]}`, http.StatusBadRequest, "MalformedRequestBody")
	// GET of the path is GET objectTypes/{objectType}: a type may be named
	// getByRidBatch, and this one is not.
	e.fail(t, http.MethodGet, path, nil, http.StatusNotFound, "ObjectTypeNotFound")
}
