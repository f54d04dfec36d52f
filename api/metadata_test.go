package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ontoindex/ontoindex/api/serverconfig"
	"github.com/ontoindex/ontoindex/indexer/config"
)

const ordersToken = "orders-token-0123456789" // sees Order and Customer, not Tag

// defaultRID leaves the ontology rid to the config's default.
func defaultRID(cfg *config.Config) { cfg.Ontology.RID = "" }

func withOrdersToken(cfg *config.Config) {
	cfg.Auth.Tokens = append(cfg.Auth.Tokens, serverconfig.Token{Name: "orders", Token: ordersToken, ObjectTypes: []string{"Order", "Customer"}})
}

// linkSide is the part of a LinkTypeSideV2 the client reads, and the
// foreign key Foundry names on the ONE side of a foreign-key link.
type linkSide struct{ apiName, target, cardinality, foreignKey string }

func linkSidesOf(tb testing.TB, m map[string]any) ([]linkSide, []string) {
	tb.Helper()
	raw, ok := m["linkTypes"].([]any)
	if !ok {
		tb.Fatalf("linkTypes is not an array: %v", m)
	}
	var sides []linkSide
	var rids []string
	for _, r := range raw {
		l := r.(map[string]any)
		fk, _ := l["foreignKeyPropertyApiName"].(string)
		sides = append(sides, linkSide{l["apiName"].(string), l["objectTypeApiName"].(string), l["cardinality"].(string), fk})
		rids = append(rids, l["linkTypeRid"].(string))
	}
	return sides, rids
}

// TestFullMetadata checks ObjectTypeFullMetadata against what @osdk/client
// needs of it: the object type as GET objectTypes/{t} renders it, with an
// icon and a primary key among its properties of a type the client takes
// as a key; the link sides the config declares, in both directions; and
// the interface fields, empty but present, both of them.
func TestFullMetadata(t *testing.T) {
	e := mustShopEnv(t, defaultRID, withOrdersToken)
	rid := e.cfg.Ontology.RID
	if !strings.HasPrefix(rid, "ri.") {
		t.Fatalf("default ontology rid %q does not start with ri. (createClient refuses it)", rid)
	}
	keyTypes := []string{"integer", "double", "string", "byte", "long", "short", "timestamp", "date"}
	want := map[string][]linkSide{
		"Order":    {{"customer", "Customer", "ONE", "customerId"}, {"tags", "Tag", "MANY", ""}},
		"Customer": {{"orders", "Order", "MANY", ""}},
		"Tag":      {{"orders", "Order", "MANY", ""}},
		"Employee": nil,
		"Ghost":    nil, // never built: resolved from its table
	}
	ridOf := map[string]string{} // "Type.link" -> linkTypeRid
	for typ, wantLinks := range want {
		for _, ont := range []string{"demo", rid} {
			path := "/api/v2/ontologies/" + url.PathEscape(ont) + "/objectTypes/" + typ
			m := e.ok(t, http.MethodGet, path+"/fullMetadata?preview=true", nil)
			ot := m["objectType"].(map[string]any)
			if plain := e.ok(t, http.MethodGet, path, nil); !reflect.DeepEqual(ot, plain) {
				t.Errorf("%s: objectType differs from GET objectTypes/%s:\n%v\n%v", typ, typ, ot, plain)
			}
			if ic, _ := ot["icon"].(map[string]any); ic["type"] != "blueprint" {
				t.Errorf("%s: icon %v", typ, ot["icon"])
			}
			pk, _ := ot["primaryKey"].(string)
			prop, ok := ot["properties"].(map[string]any)[pk].(map[string]any)
			if !ok {
				t.Fatalf("%s: primaryKey %q is not a property", typ, pk)
			}
			if dt := prop["dataType"].(map[string]any)["type"].(string); !slices.Contains(keyTypes, dt) {
				t.Errorf("%s: primary key of type %s, which the client refuses", typ, dt)
			}
			sides, rids := linkSidesOf(t, m)
			if !slices.Equal(sides, wantLinks) {
				t.Errorf("%s: linkTypes %v, want %v", typ, sides, wantLinks)
			}
			for i, s := range sides {
				ridOf[typ+"."+s.apiName] = rids[i]
			}
			if ii, ok := m["implementsInterfaces"].([]any); !ok || len(ii) != 0 {
				t.Errorf("%s: implementsInterfaces %v", typ, m["implementsInterfaces"])
			}
			for _, k := range []string{"implementsInterfaces2", "sharedPropertyTypeMapping"} {
				if v, ok := m[k].(map[string]any); !ok || len(v) != 0 {
					t.Errorf("%s: %s %v", typ, k, m[k])
				}
			}
		}
	}
	// Both sides of a link type share its rid, and two link types do not.
	if ridOf["Order.customer"] != ridOf["Customer.orders"] || ridOf["Order.tags"] != ridOf["Tag.orders"] || ridOf["Order.customer"] == ridOf["Order.tags"] {
		t.Errorf("link type rids %v", ridOf)
	}

	t.Run("a link to a type the token may not see is not listed", func(t *testing.T) {
		r := e.do(t, http.MethodGet, ontologyPath+"/objectTypes/Order/fullMetadata", ordersToken, nil)
		if r.status != http.StatusOK {
			t.Fatalf("status %d: %s", r.status, r.body)
		}
		if sides, _ := linkSidesOf(t, r.json(t)); !slices.Equal(sides, want["Order"][:1]) {
			t.Fatalf("linkTypes %v", sides)
		}
		e.failAs(t, ordersToken, http.MethodGet, ontologyPath+"/objectTypes/Tag/fullMetadata", nil, 404, "ObjectTypeNotFound")
		e.failAs(t, limitedToken, http.MethodGet, ontologyPath+"/objectTypes/Customer/fullMetadata", nil, 404, "ObjectTypeNotFound")
	})
	t.Run("errors", func(t *testing.T) {
		e.fail(t, http.MethodGet, ontologyPath+"/objectTypes/Nope/fullMetadata", nil, 404, "ObjectTypeNotFound")
		// Link tables are indexed, but they are not object types.
		e.fail(t, http.MethodGet, ontologyPath+"/objectTypes/"+url.PathEscape("Order.tags")+"/fullMetadata", nil, 404, "ObjectTypeNotFound")
		e.fail(t, http.MethodGet, "/api/v2/ontologies/ri.ontology.main.ontology.other/objectTypes/Order/fullMetadata", nil, 404, "OntologyNotFound")
		e.failAs(t, "", http.MethodGet, ontologyPath+"/objectTypes/Order/fullMetadata", nil, 401, "MissingCredentials")
	})
}

// TestOntologyRID_Default checks that an ontology configured without a
// rid gets one that @osdk/client takes (createClient refuses a rid that
// does not start with "ri.") and that every route under /ontologies/
// {ontology} accepts it: the client names the ontology by rid only.
func TestOntologyRID_Default(t *testing.T) {
	e := mustShopEnv(t, defaultRID)
	rid := e.cfg.Ontology.RID
	if rid != "ri.ontology.main.ontology.demo" {
		t.Fatalf("default rid %q", rid)
	}
	set := map[string]any{"type": "base", "objectType": "Employee"}
	routes := []struct {
		method, path string
		body         any
	}{
		{http.MethodGet, "", nil},
		{http.MethodGet, "/objectTypes", nil},
		{http.MethodGet, "/objectTypes/Employee", nil},
		{http.MethodGet, "/objectTypes/Employee/fullMetadata", nil},
		{http.MethodGet, "/objects/Employee", nil},
		{http.MethodGet, "/objects/Employee/10", nil},
		{http.MethodPost, "/objects/Employee/search", map[string]any{}},
		{http.MethodPost, "/objects/Employee/count", nil},
		{http.MethodPost, "/objects/Employee/aggregate", map[string]any{"aggregation": []any{map[string]any{"type": "count"}}}},
		{http.MethodPost, "/objectSets/loadObjects", map[string]any{"objectSet": set}},
		{http.MethodPost, "/objectSets/aggregate", map[string]any{"objectSet": set, "aggregation": []any{map[string]any{"type": "count"}}}},
	}
	for _, rt := range routes {
		// The client percent-encodes the rid as a path segment; a rid has
		// nothing to escape, but a server that compared escaped text would
		// still differ from one that does not.
		for _, ont := range []string{rid, url.PathEscape(rid), "demo"} {
			e.ok(t, rt.method, "/api/v2/ontologies/"+ont+rt.path, rt.body)
		}
		e.fail(t, rt.method, "/api/v2/ontologies/ri.ontology.main.ontology.nope"+rt.path, rt.body, 404, "OntologyNotFound")
	}
	m := e.ok(t, http.MethodGet, "/api/v2/ontologies", nil)
	if got := m["data"].([]any)[0].(map[string]any)["rid"]; got != rid {
		t.Fatalf("listed rid %v, want %s", got, rid)
	}
}

// TestContentType checks that responses and errors are exactly
// application/json: @osdk/client compares the error Content-Type as a
// whole, and with a charset parameter it no longer parses the error body
// (the application then sees "Failed to fetch" instead of the errorName).
// Errors carry a message, which the client shows.
func TestContentType(t *testing.T) {
	e := mustEnv(t)
	for _, c := range []struct {
		method, path, token string
		body                string
		status              int
	}{
		{http.MethodGet, ontologyPath + "/objectTypes/Employee/fullMetadata", appToken, "", 200},
		{http.MethodPost, ontologyPath + "/objectSets/loadObjects", appToken, `{"objectSet":{"type":"base","objectType":"Employee"},"pageSize":1}`, 200},
		{http.MethodPost, ontologyPath + "/objectSets/aggregate", appToken, `{"objectSet":{"type":"base","objectType":"Employee"},"aggregation":[{"type":"count"}]}`, 200},
		{http.MethodGet, ontologyPath + "/objectTypes/Nope/fullMetadata", appToken, "", 404},
		{http.MethodPost, ontologyPath + "/objectSets/loadObjects", appToken, `{"objectSet":{"type":"base","objectType":"Employee"},"pageSize":0}`, 400},
		{http.MethodPost, ontologyPath + "/objectSets/loadObjects", appToken, `{`, 400},
		{http.MethodGet, ontologyPath + "/objectTypes/Employee/fullMetadata", "", "", 401},
		{http.MethodGet, ontologyPath + "/nope", appToken, "", 404},
		{http.MethodDelete, ontologyPath + "/objectTypes/Employee/fullMetadata", appToken, "", 405},
	} {
		req, err := http.NewRequest(c.method, e.srv.URL+c.path, strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		if c.token != "" {
			req.Header.Set("Authorization", "Bearer "+c.token)
		}
		resp, err := e.srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var body map[string]any
		err = json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		if resp.StatusCode != c.status || err != nil {
			t.Errorf("%s %s: status %d (%v), want %d", c.method, c.path, resp.StatusCode, err, c.status)
		}
		if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("%s %s: Content-Type %q", c.method, c.path, ct)
		}
		// The client makes message the message of its PalantirApiError.
		if name, _ := body["errorName"].(string); c.status >= 400 && (name == "" || !strings.HasPrefix(fmt.Sprint(body["message"]), name)) {
			t.Errorf("%s %s: errorName and message %v", c.method, c.path, body)
		}
	}
}
