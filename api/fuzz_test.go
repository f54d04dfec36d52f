package api_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/ontoindex/ontoindex/internal/testkit/fuzztest"
)

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
		if m["errorName"] == "PropertiesNotFound" || m["errorName"] == "ObjectTypeNotFound" || m["errorName"] == "LinkTypeNotFound" || m["errorName"] == "InterfaceTypeNotFound" || m["errorName"] == "ObjectSetNotFound" {
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
	for _, s := range fuzztest.Lines(f, "wire/testdata/where-seeds.txt") {
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

// FuzzObjectSet posts arbitrary object sets to loadObjects and to
// loadObjectsMultipleObjectTypes.
func FuzzObjectSet(f *testing.F) {
	e := mustFuzzEnv(f)
	for _, s := range fuzztest.Lines(f, "wire/testdata/object-set-seeds.txt") {
		f.Add([]byte(s))
	}
	h := e.api.Handler()
	f.Fuzz(func(t *testing.T, raw []byte) {
		body := append(append([]byte(`{"pageSize":3,"objectSet":`), raw...), '}')
		for _, endpoint := range []string{"loadObjects", "loadObjectsMultipleObjectTypes"} {
			rec := fuzzRequest(h, ontologyPath+"/objectSets/"+endpoint, body)
			if rec.Code == http.StatusConflict { // the Ghost type was never built
				continue
			}
			checkRefusal(t, string(raw), rec)
		}
	})
}
