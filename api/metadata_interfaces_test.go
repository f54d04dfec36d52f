package api_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/objects"
)

// withReceipt adds Receipt, an interface that extends Billable and that no
// object type implements, to the interfaces env.
func withReceipt(cfg *config.Config) {
	cfg.Interfaces = append(cfg.Interfaces, objects.InterfaceSpec{APIName: "Receipt", DisplayName: "Receipt", Extends: []string{"Billable"}})
}

// decodeJSON decodes a JSON text as the responses are decoded.
func decodeJSON(tb testing.TB, text string) any {
	tb.Helper()
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		tb.Fatalf("decode %s: %v", text, err)
	}
	return v
}

// sameJSON fails unless got is the JSON text want, field by field.
func sameJSON(tb testing.TB, what string, got any, want string) {
	tb.Helper()
	if w := decodeJSON(tb, want); !reflect.DeepEqual(got, w) {
		g, _ := json.MarshalIndent(got, "", "  ")
		var b bytes.Buffer
		_ = json.Indent(&b, []byte(want), "", "  ")
		tb.Errorf("%s:\n%s\nwant\n%s", what, g, b.String())
	}
}

const (
	namedLabel = `{"rid":"ri.ontoindex.main.interface-property.Named.label","apiName":"label","displayName":"label","dataType":{"type":"string"}`
	billAmount = `{"rid":"ri.ontoindex.main.interface-property.Billable.amount","apiName":"amount","displayName":"amount","dataType":{"type":"double"}`
	payerLink  = `{"rid":"ri.ontoindex.main.interface-link-type.Billable.payer","apiName":"payer","displayName":"payer",` +
		`"linkedEntityApiName":{"type":"objectTypeApiName","apiName":"Customer"},"cardinality":"ONE","required":false}`
	billsLink = `{"rid":"ri.ontoindex.main.interface-link-type.Party.bills","apiName":"bills","displayName":"bills",` +
		`"linkedEntityApiName":{"type":"interfaceTypeApiName","apiName":"Billable"},"cardinality":"MANY","required":false}`
	// The three shapes of one property: InterfaceSharedPropertyType,
	// InterfacePropertyType and ResolvedInterfacePropertyType.
	shared   = `,"required":true,"typeClasses":[]}`
	defined  = `,"type":"interfaceDefinedPropertyType","requireImplementation":true,"typeClasses":[]}`
	resolved = `,"requireImplementation":true}`
)

// The InterfaceTypes of the interfaces env, as the app token sees them.
var wantInterfaces = map[string]string{
	"Named": `{"rid":"ri.ontoindex.main.interface-type.Named","apiName":"Named","displayName":"Named","description":"Anything with a label",
		"properties":{"label":` + namedLabel + shared + `},"allProperties":{"label":` + namedLabel + shared + `},
		"propertiesV2":{"label":` + namedLabel + defined + `},"allPropertiesV2":{"label":` + namedLabel + resolved + `},
		"extendsInterfaces":[],"allExtendsInterfaces":[],"implementedByObjectTypes":["Customer","Order","Tag"],"links":{},"allLinks":{}}`,
	"Billable": `{"rid":"ri.ontoindex.main.interface-type.Billable","apiName":"Billable","displayName":"Billable",
		"properties":{"amount":` + billAmount + shared + `},"allProperties":{"amount":` + billAmount + shared + `,"label":` + namedLabel + shared + `},
		"propertiesV2":{"amount":` + billAmount + defined + `},"allPropertiesV2":{"amount":` + billAmount + resolved + `,"label":` + namedLabel + resolved + `},
		"extendsInterfaces":["Named"],"allExtendsInterfaces":["Named"],"implementedByObjectTypes":["Order"],
		"links":{"payer":` + payerLink + `},"allLinks":{"payer":` + payerLink + `}}`,
	"Receipt": `{"rid":"ri.ontoindex.main.interface-type.Receipt","apiName":"Receipt","displayName":"Receipt",
		"properties":{},"allProperties":{"amount":` + billAmount + shared + `,"label":` + namedLabel + shared + `},
		"propertiesV2":{},"allPropertiesV2":{"amount":` + billAmount + resolved + `,"label":` + namedLabel + resolved + `},
		"extendsInterfaces":["Billable"],"allExtendsInterfaces":["Billable","Named"],"implementedByObjectTypes":[],
		"links":{},"allLinks":{"payer":` + payerLink + `}}`,
}

func init() {
	party := func(p string) string {
		return `{"rid":"ri.ontoindex.main.interface-property.Party.` + p + `","apiName":"` + p + `","displayName":"` + p + `","dataType":{"type":"string"}`
	}
	wantInterfaces["Party"] = `{"rid":"ri.ontoindex.main.interface-type.Party","apiName":"Party","displayName":"Party",
		"properties":{"label":` + party("label") + shared + `,"city":` + party("city") + shared + `},
		"allProperties":{"label":` + party("label") + shared + `,"city":` + party("city") + shared + `},
		"propertiesV2":{"label":` + party("label") + defined + `,"city":` + party("city") + defined + `},
		"allPropertiesV2":{"label":` + party("label") + resolved + `,"city":` + party("city") + resolved + `},
		"extendsInterfaces":[],"allExtendsInterfaces":[],"implementedByObjectTypes":["Customer"],
		"links":{"bills":` + billsLink + `},"allLinks":{"bills":` + billsLink + `}}`
}

// convertsAsInterface checks what @osdk/generator-converters'
// wireInterfaceTypeV2ToSdkObjectDefinition reads of an InterfaceType, and
// the client after it: rid, apiName and displayName strings,
// allExtendsInterfaces and implementedByObjectTypes arrays (it sorts
// copies of them), allPropertiesV2 entries with a dataType whose type it
// knows, and allLinks entries with cardinality and linkedEntityApiName
// {type, apiName}.
func convertsAsInterface(tb testing.TB, m map[string]any) {
	tb.Helper()
	for _, k := range []string{"rid", "apiName", "displayName"} {
		if _, ok := m[k].(string); !ok {
			tb.Errorf("%v: %s is not a string", m["apiName"], k)
		}
	}
	for _, k := range []string{"allExtendsInterfaces", "implementedByObjectTypes", "extendsInterfaces"} {
		if _, ok := m[k].([]any); !ok {
			tb.Errorf("%v: %s is not an array", m["apiName"], k)
		}
	}
	props, _ := m["allPropertiesV2"].(map[string]any)
	for name, p := range props {
		dt, _ := p.(map[string]any)["dataType"].(map[string]any)
		switch dt["type"] {
		case "string", "integer", "long", "float", "double", "decimal", "boolean", "date", "timestamp", "array":
		default:
			tb.Errorf("%v.%s: dataType %v is not one the converter knows", m["apiName"], name, dt)
		}
	}
	links, _ := m["allLinks"].(map[string]any)
	for name, l := range links {
		l, _ := l.(map[string]any)
		target, _ := l["linkedEntityApiName"].(map[string]any)
		if c := l["cardinality"]; (c != "ONE" && c != "MANY") || target["apiName"] == nil ||
			(target["type"] != "objectTypeApiName" && target["type"] != "interfaceTypeApiName") {
			tb.Errorf("%v.%s: link %v", m["apiName"], name, l)
		}
	}
}

func TestInterfaceTypes_get(t *testing.T) {
	e := mustLinksEnv(t, 3, withInterfaces, withReceipt)
	for name, want := range wantInterfaces {
		t.Run(name, func(t *testing.T) {
			m := e.ok(t, http.MethodGet, ontologyPath+"/interfaceTypes/"+name, nil)
			sameJSON(t, name, m, want)
			convertsAsInterface(t, m)
		})
	}
	t.Run("by the ontology rid", func(t *testing.T) {
		m := e.ok(t, http.MethodGet, "/api/v2/ontologies/"+e.cfg.Ontology.RID+"/interfaceTypes/Named?preview=true", nil)
		sameJSON(t, "Named", m, wantInterfaces["Named"])
	})
	t.Run("unknown", func(t *testing.T) {
		m := e.fail(t, http.MethodGet, ontologyPath+"/interfaceTypes/Nmaed", nil, http.StatusNotFound, "InterfaceTypeNotFound")
		params := m["parameters"].(map[string]any)
		if params["apiName"] != "Nmaed" || params["rid"] != "ri.ontoindex.main.interface-type.Nmaed" || !strings.Contains(m["message"].(string), "did you mean Named?") {
			t.Errorf("error %v, want apiName, rid and a suggestion of Named", m)
		}
		e.fail(t, http.MethodGet, ontologyPath+"/interfaceTypes/Order", nil, http.StatusNotFound, "InterfaceTypeNotFound")
		e.fail(t, http.MethodGet, "/api/v2/ontologies/other/interfaceTypes/Named", nil, http.StatusNotFound, "OntologyNotFound")
	})
}

// TestInterfaceTypes_visibility: a token sees an interface when it sees
// one of its implementers (directly or through an extending interface),
// lists only those implementers, and sees an interface link only when it
// sees the link's target. Interfaces nobody implements are seen only by
// tokens that see every type.
func TestInterfaceTypes_visibility(t *testing.T) {
	e := mustLinksEnv(t, 3, withInterfaces, withReceipt)
	list := e.do(t, http.MethodGet, ontologyPath+"/interfaceTypes", ordersOnlyToken, nil).json(t)
	var names []string
	for _, it := range list["data"].([]any) {
		names = append(names, it.(map[string]any)["apiName"].(string))
	}
	if strings.Join(names, ",") != "Named,Billable" {
		t.Errorf("the orders-only token lists %v, want Named and Billable", names)
	}
	named := e.do(t, http.MethodGet, ontologyPath+"/interfaceTypes/Named", ordersOnlyToken, nil).json(t)
	if got := named["implementedByObjectTypes"]; !reflect.DeepEqual(got, []any{"Order"}) {
		t.Errorf("Named is implemented by %v for the orders-only token, want [Order]", got)
	}
	billable := e.do(t, http.MethodGet, ontologyPath+"/interfaceTypes/Billable", ordersOnlyToken, nil).json(t)
	if len(billable["links"].(map[string]any)) != 0 || len(billable["allLinks"].(map[string]any)) != 0 {
		t.Errorf("Billable's payer leads to Customer, which the orders-only token does not see: %v", billable)
	}
	for _, name := range []string{"Party", "Receipt"} {
		m := e.failAs(t, ordersOnlyToken, http.MethodGet, ontologyPath+"/interfaceTypes/"+name, nil, http.StatusNotFound, "InterfaceTypeNotFound")
		if strings.Contains(m["message"].(string), "did you mean") {
			t.Errorf("%s: the suggestion names an interface the token does not see: %v", name, m)
		}
	}
	e.failAs(t, ordersOnlyToken, http.MethodGet, ontologyPath+"/interfaceTypes/Billable/outgoingLinkTypes/payer", nil, http.StatusNotFound, "InterfaceLinkTypeNotFound")
	e.failAs(t, "", http.MethodGet, ontologyPath+"/interfaceTypes", nil, http.StatusUnauthorized, "MissingCredentials")
}

func TestInterfaceTypes_list(t *testing.T) {
	e := mustLinksEnv(t, 3, withInterfaces, withReceipt)
	var names []string
	path := ontologyPath + "/interfaceTypes?pageSize=3"
	for pages := 0; ; pages++ {
		if pages > 3 {
			t.Fatal("the pages do not end")
		}
		m := e.ok(t, http.MethodGet, path, nil)
		for _, it := range m["data"].([]any) {
			it := it.(map[string]any)
			names = append(names, it["apiName"].(string))
			sameJSON(t, it["apiName"].(string), it, wantInterfaces[it["apiName"].(string)])
		}
		tok, ok := m["nextPageToken"].(string)
		if !ok {
			break
		}
		path = ontologyPath + "/interfaceTypes?pageSize=3&pageToken=" + tok
	}
	if strings.Join(names, ",") != "Named,Billable,Party,Receipt" {
		t.Errorf("listed %v, want every interface in config order, once", names)
	}
	whole := e.ok(t, http.MethodGet, ontologyPath+"/interfaceTypes", nil)
	if len(whole["data"].([]any)) != 4 || whole["nextPageToken"] != nil {
		t.Errorf("one default page: %v", whole)
	}
	e.fail(t, http.MethodGet, ontologyPath+"/interfaceTypes?pageSize=0", nil, http.StatusBadRequest, "InvalidPageSize")
	e.fail(t, http.MethodGet, ontologyPath+"/interfaceTypes?pageToken=nonsense", nil, http.StatusBadRequest, "InvalidPageToken")
}

func TestInterfaceTypes_outgoingLinkTypes(t *testing.T) {
	e := mustLinksEnv(t, 3, withInterfaces, withReceipt)
	for _, c := range []struct{ iface, want string }{
		{"Named", `{"data":[]}`},
		{"Billable", `{"data":[` + payerLink + `]}`},
		{"Receipt", `{"data":[` + payerLink + `]}`}, // inherited
		{"Party", `{"data":[` + billsLink + `]}`},
	} {
		sameJSON(t, c.iface, e.ok(t, http.MethodGet, ontologyPath+"/interfaceTypes/"+c.iface+"/outgoingLinkTypes", nil), c.want)
	}
	sameJSON(t, "Party.bills", e.ok(t, http.MethodGet, ontologyPath+"/interfaceTypes/Party/outgoingLinkTypes/bills", nil), billsLink)
	sameJSON(t, "Receipt.payer", e.ok(t, http.MethodGet, ontologyPath+"/interfaceTypes/Receipt/outgoingLinkTypes/payer", nil), payerLink)
	m := e.fail(t, http.MethodGet, ontologyPath+"/interfaceTypes/Party/outgoingLinkTypes/payer", nil, http.StatusNotFound, "InterfaceLinkTypeNotFound")
	sameJSON(t, "InterfaceLinkTypeNotFound", m["parameters"], `{"interfaceTypeApiName":"Party","interfaceTypeRid":"ri.ontoindex.main.interface-type.Party",
		"interfaceLinkTypeApiName":"payer","interfaceLinkTypeRid":"ri.ontoindex.main.interface-link-type.Party.payer"}`)
	e.fail(t, http.MethodGet, ontologyPath+"/interfaceTypes/Nobody/outgoingLinkTypes", nil, http.StatusNotFound, "InterfaceTypeNotFound")
}
