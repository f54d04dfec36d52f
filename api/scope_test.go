package api_test

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// scopeProbe is a request about something a token may not see, and the
// same request about something that does not exist.
type scopeProbe struct {
	name            string
	method          string
	hidden, missing string // paths
	hiddenBody      string // request bodies, "" for none
	missingBody     string
}

// instanceID matches the errorInstanceId of a Conjure error, different in
// every response.
var instanceID = regexp.MustCompile(`"errorInstanceId":"[^"]*"`)

// TestAuth_outOfScopeLooksMissing checks that a token cannot tell an
// object type (or an object, or a link) it may not see from one that does
// not exist: the same status, the same headers that describe the body and
// the same body byte for byte, once the name asked for is the same (the
// missing names have the length of the hidden ones) and the instance id
// of the error is set aside. The time of both is measured and reported;
// it is compared only loosely (see scopeTiming).
func TestAuth_outOfScopeLooksMissing(t *testing.T) {
	e := mustLinksEnv(t, 3)
	// Customer and Tag exist, and so do the link tables; the token sees
	// Order only. Cxstomer does not exist.
	custRID := objectsOf(t, e.ok(t, http.MethodPost, ontologyPath+"/objects/Customer/search", map[string]any{"pageSize": 1}))[0]["__rid"].(string)
	o := ontologyPath
	probes := []scopeProbe{
		{name: "object type", method: http.MethodGet, hidden: o + "/objectTypes/Customer", missing: o + "/objectTypes/Cxstomer"},
		{name: "full metadata", method: http.MethodGet, hidden: o + "/objectTypes/Customer/fullMetadata", missing: o + "/objectTypes/Cxstomer/fullMetadata"},
		{name: "link types", method: http.MethodGet, hidden: o + "/objectTypes/Customer/outgoingLinkTypes", missing: o + "/objectTypes/Cxstomer/outgoingLinkTypes"},
		{name: "link type", method: http.MethodGet, hidden: o + "/objectTypes/Customer/outgoingLinkTypes/orders", missing: o + "/objectTypes/Cxstomer/outgoingLinkTypes/orders"},
		{name: "link type to a hidden type", method: http.MethodGet, hidden: o + "/objectTypes/Order/outgoingLinkTypes/customer", missing: o + "/objectTypes/Order/outgoingLinkTypes/cxstomer"},
		{name: "list", method: http.MethodGet, hidden: o + "/objects/Customer?pageSize=2", missing: o + "/objects/Cxstomer?pageSize=2"},
		{name: "existing object", method: http.MethodGet, hidden: o + "/objects/Customer/1", missing: o + "/objects/Cxstomer/1"},
		{name: "missing object of a hidden type", method: http.MethodGet, hidden: o + "/objects/Customer/999999", missing: o + "/objects/Cxstomer/999999"},
		{name: "bad key of a hidden type", method: http.MethodGet, hidden: o + "/objects/Customer/x", missing: o + "/objects/Cxstomer/x"},
		{name: "links of a hidden object", method: http.MethodGet, hidden: o + "/objects/Customer/1/links/orders", missing: o + "/objects/Cxstomer/1/links/orders"},
		{name: "link to a hidden type", method: http.MethodGet, hidden: o + "/objects/Order/1/links/customer", missing: o + "/objects/Order/1/links/cxstomer"},
		{name: "linked object of a hidden type", method: http.MethodGet, hidden: o + "/objects/Order/1/links/customer/1", missing: o + "/objects/Order/1/links/cxstomer/1"},
		{name: "link table", method: http.MethodGet, hidden: o + "/objects/Order.tags", missing: o + "/objects/Order.txgs"},
		{name: "search", method: http.MethodPost, hidden: o + "/objects/Customer/search", missing: o + "/objects/Cxstomer/search",
			hiddenBody: `{"where":{"type":"eq","field":"name","value":"customer 1"}}`, missingBody: `{"where":{"type":"eq","field":"name","value":"customer 1"}}`},
		{name: "count", method: http.MethodPost, hidden: o + "/objects/Customer/count", missing: o + "/objects/Cxstomer/count"},
		{name: "aggregate", method: http.MethodPost, hidden: o + "/objects/Customer/aggregate", missing: o + "/objects/Cxstomer/aggregate",
			hiddenBody: `{"aggregation":[{"type":"count"}],"groupBy":[]}`, missingBody: `{"aggregation":[{"type":"count"}],"groupBy":[]}`},
		{name: "base set", method: http.MethodPost, hidden: o + "/objectSets/loadObjects", missing: o + "/objectSets/loadObjects",
			hiddenBody: `{"objectSet":{"type":"base","objectType":"Customer"}}`, missingBody: `{"objectSet":{"type":"base","objectType":"Cxstomer"}}`},
		{name: "static set of a hidden object", method: http.MethodPost, hidden: o + "/objectSets/loadObjects", missing: o + "/objectSets/loadObjects",
			hiddenBody: `{"objectSet":{"type":"static","objects":["` + custRID + `"]}}`, missingBody: `{"objectSet":{"type":"static","objects":["` + strings.Replace(custRID, ".Customer.", ".Cxstomer.", 1) + `"]}}`},
		{name: "search around to a hidden type", method: http.MethodPost, hidden: o + "/objectSets/loadObjects", missing: o + "/objectSets/loadObjects",
			hiddenBody:  `{"objectSet":{"type":"searchAround","objectSet":{"type":"base","objectType":"Order"},"link":"customer"}}`,
			missingBody: `{"objectSet":{"type":"searchAround","objectSet":{"type":"base","objectType":"Order"},"link":"cxstomer"}}`},
		{name: "aggregate a hidden set", method: http.MethodPost, hidden: o + "/objectSets/aggregate", missing: o + "/objectSets/aggregate",
			hiddenBody: `{"objectSet":{"type":"base","objectType":"Customer"},"aggregation":[],"groupBy":[]}`, missingBody: `{"objectSet":{"type":"base","objectType":"Cxstomer"},"aggregation":[],"groupBy":[]}`},
		{name: "status", method: http.MethodGet, hidden: "/api/indexer/v1/status/Customer", missing: "/api/indexer/v1/status/Cxstomer"},
		{name: "status of a link table", method: http.MethodGet, hidden: "/api/indexer/v1/status/Order.tags", missing: "/api/indexer/v1/status/Order.txgs"},
	}
	rename := strings.NewReplacer("Cxstomer", "Customer", "cxstomer", "customer", "txgs", "tags")
	h := e.api.Handler()
	for _, p := range probes {
		t.Run(p.name, func(t *testing.T) {
			hid := scopeRequest(h, p.method, p.hidden, p.hiddenBody)
			mis := scopeRequest(h, p.method, p.missing, p.missingBody)
			if hid.Code != mis.Code || hid.Code < 400 || hid.Code >= 500 {
				t.Fatalf("status %d for the hidden, %d for the missing: %s | %s", hid.Code, mis.Code, hid.Body, mis.Body)
			}
			for _, k := range []string{"Content-Type", "Content-Length"} {
				if a, b := hid.Header().Get(k), mis.Header().Get(k); a != b {
					t.Errorf("%s %q for the hidden, %q for the missing", k, a, b)
				}
			}
			a := instanceID.ReplaceAllString(hid.Body.String(), `"errorInstanceId":""`)
			b := rename.Replace(instanceID.ReplaceAllString(mis.Body.String(), `"errorInstanceId":""`))
			if a != b {
				t.Errorf("bodies differ:\nhidden  %s\nmissing %s", a, b)
			}
		})
	}
	t.Run("timing", func(t *testing.T) {
		for _, p := range probes {
			scopeTiming(t, h, p)
		}
	})
}

func scopeRequest(h http.Handler, method, path, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+ordersOnlyToken)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// scopeTiming times the hidden and the missing request of a probe,
// interleaved, and compares the medians. Both take the same path through
// the code (the type is refused by name before anything is read), so they
// should cost the same; the bound is a loose ratio of medians of the same
// run, never a wall-clock threshold, and far above what the noise of a
// shared machine moves a median of interleaved samples by.
func scopeTiming(t *testing.T, h http.Handler, p scopeProbe) {
	const n, bound = 201, 3.0
	hid, mis := make([]time.Duration, n), make([]time.Duration, n)
	for i := range n {
		first, second := &hid[i], &mis[i]
		fp, sp := p.hidden, p.missing
		fb, sb := p.hiddenBody, p.missingBody
		if i%2 == 1 {
			first, second, fp, sp, fb, sb = second, first, sp, fp, sb, fb
		}
		start := time.Now()
		scopeRequest(h, p.method, fp, fb)
		*first = time.Since(start)
		start = time.Now()
		scopeRequest(h, p.method, sp, sb)
		*second = time.Since(start)
	}
	slices.Sort(hid)
	slices.Sort(mis)
	mh, mm := hid[n/2], mis[n/2]
	ratio := float64(mh) / float64(mm)
	t.Logf("%-32s median %8s hidden, %8s missing (ratio %.2f)", p.name, mh, mm, ratio)
	if ratio > bound || ratio < 1/bound {
		t.Errorf("%s: median %s for the hidden, %s for the missing: a ratio of %.2f tells them apart", p.name, mh, mm, ratio)
	}
}
