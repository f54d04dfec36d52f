package h1_test

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
)

// safeAlphabet is what random paths, queries and header values are made
// of: bytes that need no escaping and survive header trimming.
const safeAlphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.~"

// randomRequest is one generated request: its bytes and its method.
type randomRequest struct {
	raw, method string
}

func randomWord(rng *rand.Rand, maxLen int) string {
	b := make([]byte, 1+rng.IntN(maxLen))
	for i := range b {
		b[i] = safeAlphabet[rng.IntN(len(safeAlphabet))]
	}
	return string(b)
}

// randomTarget is mostly an /echo/ path with random segments, some of
// them percent-escaped, and a query; sometimes another route.
func randomTarget(rng *rand.Rand) string {
	if rng.IntN(4) == 0 {
		routes := []string{"/small", "/fixed", "/empty", "/large", "/flush", "/ignore", "/partial", "/status/204", "/sniff/html", "/no/such"}
		return routes[rng.IntN(len(routes))]
	}
	var b strings.Builder
	b.WriteString("/echo")
	for range 1 + rng.IntN(4) {
		b.WriteString("/" + randomWord(rng, 12))
		if rng.IntN(4) == 0 {
			fmt.Fprintf(&b, "%%%02X", 0x20+rng.IntN(0x5f))
		}
	}
	for i := range rng.IntN(4) {
		sep := "?"
		if i > 0 {
			sep = "&"
		}
		b.WriteString(sep + randomWord(rng, 6) + "=" + randomWord(rng, 10))
	}
	return b.String()
}

// randomBodySize is mostly small: a third empty, a third under 2 KiB,
// the rest up to 200 KiB.
func randomBodySize(rng *rand.Rand) int {
	switch rng.IntN(3) {
	case 0:
		return 0
	case 1:
		return rng.IntN(2 << 10)
	}
	return rng.IntN(200 << 10)
}

// randomChunks splits body into chunks of random sizes.
func randomChunks(rng *rand.Rand, body string) []string {
	var parts []string
	for len(body) > 0 {
		n := min(len(body), 1+rng.IntN(32<<10))
		parts = append(parts, body[:n])
		body = body[n:]
	}
	return parts
}

func generateRequest(rng *rand.Rand) randomRequest {
	methods := []string{"GET", "POST", "PUT", "DELETE", "HEAD"}
	method := methods[rng.IntN(len(methods))]
	var headers []string
	for range rng.IntN(8) {
		headers = append(headers, "X-R-"+randomWord(rng, 8)+": "+randomWord(rng, 40))
	}
	if rng.IntN(5) == 0 {
		headers = append(headers, "Accept: */*", "User-Agent: differential/"+randomWord(rng, 4))
	}
	target := randomTarget(rng)
	if method == "GET" || method == "HEAD" {
		return randomRequest{raw: request(method, target, headers...), method: method}
	}
	body := make([]byte, randomBodySize(rng))
	for i := range body {
		body[i] = safeAlphabet[rng.IntN(len(safeAlphabet))]
	}
	if rng.IntN(2) == 0 {
		return randomRequest{raw: postChunkedAs(method, target, randomChunks(rng, string(body)), headers...), method: method}
	}
	return randomRequest{raw: request(method, target, append(headers, fmt.Sprintf("Content-Length: %d", len(body)))...) + string(body), method: method}
}

func postChunkedAs(method, target string, parts []string, headers ...string) string {
	return request(method, target, append(headers, "Transfer-Encoding: chunked")...) + chunkedBody(parts...)
}

// TestServer_againstNetHTTPRandom sends the same seeded random requests to both
// servers, each through one kept-alive connection, and compares every
// response (a subtest each); the connections must stay open throughout.
func TestServer_againstNetHTTPRandom(t *testing.T) {
	const n, maxFailures = 300, 10
	rng := rand.New(rand.NewPCG(1, 2))
	srv := startServers(t, testMux())
	std, h := dial(t, srv.std), dial(t, srv.h1)
	failures := 0
	for i := range n {
		rq := generateRequest(rng)
		a := roundTrip(std, rq)
		b := roundTrip(h, rq)
		if a.err != "" || a.close {
			t.Fatalf("request %d: net/http's connection does not stay open (%s): fix the generator", i, orOK(a.err))
		}
		ok := t.Run(fmt.Sprintf("%03d_%s", i, rq.method), func(t *testing.T) {
			compareReply(t, i, a, b, false)
			if t.Failed() {
				t.Logf("request: %q", clip([]byte(rq.raw)))
			}
		})
		if !ok {
			failures++
		}
		switch {
		case b.err != "" || b.close:
			t.Fatalf("request %d: h1 closed the connection (%s)", i, orOK(b.err))
		case failures == maxFailures:
			t.Fatalf("stopped after %d differing requests", failures)
		}
	}
	for name, c := range map[string]*client{"net/http": std, "h1": h} {
		if r := roundTrip(c, randomRequest{raw: probeRequest, method: http.MethodGet}); r.err != "" || r.status != http.StatusOK {
			t.Errorf("%s: the connection did not survive %d requests: %s, status %d", name, n, orOK(r.err), r.status)
		}
	}
}

// roundTrip sends a request and reads its response.
func roundTrip(c *client, rq randomRequest) reply {
	written := c.send(rq.raw)
	defer func() { <-written }()
	return c.read(rq.method)
}
