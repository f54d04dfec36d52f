package api_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
)

// whereSeeds are where clauses of every query type, good and bad.
var whereSeeds = []string{
	`{"type":"eq","field":"title","value":"Chief Pilot"}`,
	`{"type":"eq","field":"big","value":"9007199254740994"}`,
	`{"type":"gt","field":"salary","value":"90000.00"}`,
	`{"type":"lte","field":"hired","value":"2018-01-01"}`,
	`{"type":"lt","field":"updated","value":"2024-01-02T00:00:00Z"}`,
	`{"type":"gte","field":"name","value":"L"}`,
	`{"type":"isNull","field":"age","value":true}`,
	`{"type":"in","field":"dept","value":["Sales","Research"]}`,
	`{"type":"and","value":[{"type":"eq","field":"dept","value":"Sales"},{"type":"not","value":{"type":"gt","field":"age","value":40}}]}`,
	`{"type":"or","value":[]}`,
	`{"type":"contains","field":"tags","value":"mentor"}`,
	`{"type":"startsWith","field":"name","value":"gra"}`,
	`{"type":"containsAllTermsInOrderPrefixLastTerm","field":"bio","value":"the boeing 73"}`,
	`{"type":"containsAllTerms","field":"bio","value":"hangr doers","fuzzy":true}`,
	`{"type":"containsAnyTerm","field":"bio","value":"turbofan manuals"}`,
	`{"type":"containsAllTermsInOrder","field":"bio","value":"North Atlantic"}`,
	`{"type":"wildcard","field":"title","value":"?unior*"}`,
	`{"type":"regex","field":"title","value":"(Senior|Chief) Pilot"}`,
	`{"type":"eq","propertyIdentifier":{"type":"property","apiName":"dept"},"value":"Research"}`,
	`{"type":"withinDistanceOf","field":"p","value":{}}`,
	`{"type":"regex","field":"title","value":"(("}`,
	`{"type":"eq","field":"nope","value":1}`,
	`{"type":"gt","field":"active","value":true}`,
	`{"type":"not","value":{"type":"not","value":{"type":"not","value":null}}}`,
	`[]`, `null`, `"eq"`, `{}`, `{"type":5}`,
}

// checkRefusal fails unless a response is a success or a client error in
// the Conjure shape: 400, or 404 for a property or object type that does
// not exist (Foundry's codes for those). A panic would be a 500.
func checkRefusal(t *testing.T, input string, rec *httptest.ResponseRecorder) {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil {
		t.Fatalf("input %q: response is not JSON: %s", input, rec.Body)
	}
	switch rec.Code {
	case http.StatusOK:
		return
	case http.StatusBadRequest:
		if m["errorCode"] != "INVALID_ARGUMENT" {
			break
		}
		return
	case http.StatusNotFound:
		if m["errorName"] == "PropertiesNotFound" || m["errorName"] == "ObjectTypeNotFound" || m["errorName"] == "LinkTypeNotFound" {
			return
		}
	}
	t.Fatalf("input %q: status %d: %s", input, rec.Code, rec.Body)
}

func fuzzRequest(h http.Handler, path string, body []byte) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+appToken)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// FuzzWhere posts arbitrary where clauses to search, through the real
// handler, decoder, compiler and index.
func FuzzWhere(f *testing.F) {
	e := mustFuzzEnv(f)
	for _, s := range whereSeeds {
		f.Add([]byte(s))
	}
	h := e.api.Handler()
	f.Fuzz(func(t *testing.T, raw []byte) {
		body := append(append([]byte(`{"pageSize":3,"where":`), raw...), '}')
		rec := fuzzRequest(h, ontologyPath+"/objects/Employee/search", body)
		if !json.Valid(body) && rec.Code == http.StatusOK {
			t.Fatalf("invalid JSON %q accepted", body)
		}
		checkRefusal(t, string(raw), rec)
	})
}

// FuzzObjectSet posts arbitrary object sets to loadObjects.
func FuzzObjectSet(f *testing.F) {
	e := mustFuzzEnv(f)
	seeds := []string{
		`{"type":"base","objectType":"Employee"}`,
		`{"type":"filter","objectSet":{"type":"base","objectType":"Employee"},"where":{"type":"eq","field":"dept","value":"Sales"}}`,
		`{"type":"union","objectSets":[{"type":"base","objectType":"Employee"},{"type":"static","objects":[]}]}`,
		`{"type":"subtract","objectSets":[{"type":"base","objectType":"Assignment"},{"type":"filter","objectSet":{"type":"base","objectType":"Assignment"},"where":{"type":"gt","field":"hours","value":3}}]}`,
		`{"type":"intersect","objectSets":[{"type":"base","objectType":"Employee"},{"type":"base","objectType":"Assignment"}]}`,
		`{"type":"static","objects":["ri.ontoindex.main.object.Employee.22000000000002G","ri.ontoindex.main.object.Employee.x"]}`,
		`{"type":"searchAround","objectSet":{"type":"base","objectType":"Employee"},"link":"l"}`,
		`{"type":"base","objectType":"Ghost"}`,
		`{"type":"filter"}`, `[]`, `7`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	h := e.api.Handler()
	f.Fuzz(func(t *testing.T, raw []byte) {
		body := append(append([]byte(`{"pageSize":3,"objectSet":`), raw...), '}')
		rec := fuzzRequest(h, ontologyPath+"/objectSets/loadObjects", body)
		if rec.Code == http.StatusConflict { // the Ghost type was never built
			return
		}
		checkRefusal(t, string(raw), rec)
	})
}
