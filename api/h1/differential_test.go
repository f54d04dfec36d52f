package h1_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// request is a raw HTTP/1.1 request with a Host header; its header lines
// follow Host, each written as given.
func request(method, target string, headers ...string) string {
	var b strings.Builder
	b.WriteString(method + " " + target + " HTTP/1.1\r\nHost: example.com\r\n")
	for _, h := range headers {
		b.WriteString(h + "\r\n")
	}
	b.WriteString("\r\n")
	return b.String()
}

func get(target string, headers ...string) string { return request("GET", target, headers...) }

// post is a request with a body of Content-Length.
func post(target, body string, headers ...string) string {
	return request("POST", target, append(headers, "Content-Length: "+strconv.Itoa(len(body)))...) + body
}

// chunkedBody encodes parts as a chunked body, with a trailer.
func chunkedBody(parts ...string) string {
	var b strings.Builder
	for _, p := range parts {
		fmt.Fprintf(&b, "%x\r\n%s\r\n", len(p), p)
	}
	b.WriteString("0\r\nX-Trailer: end\r\n\r\n")
	return b.String()
}

// postChunked is a request with a chunked body.
func postChunked(target string, parts []string, headers ...string) string {
	return request("POST", target, append(headers, "Transfer-Encoding: chunked")...) + chunkedBody(parts...)
}

// once is a single step: write s, read one response per method.
func once(s string, methods ...string) []step {
	if len(methods) == 0 {
		methods = []string{"GET"}
	}
	return []step{{send: s, methods: methods}}
}

type diffCase struct {
	name  string
	steps []step
	// serverError: the server refuses the request itself; see
	// compareReply for what is compared then.
	serverError bool
}

// routeCases are one GET and one HEAD per route of testMux.
func routeCases() []diffCase {
	routes := []string{
		"/fixed", "/small", "/empty", "/large", "/flush", "/flush-first",
		"/status/200", "/status/201?write", "/status/204", "/status/204?write",
		"/status/304", "/status/304?write", "/status/500?write", "/error", "/no/such/route",
		"/sniff/html", "/sniff/binary", "/sniff/none", "/sniff/encoded",
		"/twice", "/late-header", "/header-close", "/short", "/overwrite",
		"/panic/abort", "/panic/value", "/panic/after-flush", "/echo/route",
		"/te/chunked", "/te/identity", "/controller", "/context-values",
	}
	var cases []diffCase
	for _, r := range routes {
		cases = append(cases,
			diffCase{name: "GET " + r, steps: once(get(r))},
			diffCase{name: "HEAD " + r, steps: once(request("HEAD", r), "HEAD")},
		)
	}
	return cases
}

// requestCases are the ways a client can send requests.
func requestCases() []diffCase {
	big := strings.Repeat("0123456789abcdef", 200<<10/16) // 200 KiB
	huge := strings.Repeat("x", 300<<10)                  // past net/http's 256 KiB of discarding
	expect := func(target string, body string) step {
		return step{
			send:    request("POST", target, "Expect: 100-continue", "Content-Length: "+strconv.Itoa(len(body))),
			cont:    body,
			methods: []string{"POST"},
		}
	}
	return []diffCase{
		{name: "keep-alive sequence", steps: []step{
			{send: get("/small"), methods: []string{"GET"}},
			{send: get("/fixed"), methods: []string{"GET"}},
			{send: get("/large"), methods: []string{"GET"}},
			{send: get("/flush"), methods: []string{"GET"}},
			{send: request("HEAD", "/small"), methods: []string{"HEAD"}},
			{send: get("/echo/last"), methods: []string{"GET"}},
		}},
		{name: "pipelined two", steps: once(get("/small")+get("/fixed"), "GET", "GET")},
		{name: "pipelined mixed", steps: once(
			get("/echo/1")+request("HEAD", "/large")+post("/echo/2", "body two")+
				postChunked("/echo/3", []string{"chunk", "ed"})+get("/large")+get("/status/204"),
			"GET", "HEAD", "POST", "POST", "GET", "GET")},
		{name: "POST content-length", steps: once(post("/echo/post", "name=value&x=1",
			"Content-Type: application/x-www-form-urlencoded"), "POST")},
		{name: "POST empty", steps: once(post("/echo/empty", ""), "POST")},
		{name: "POST chunked", steps: once(postChunked("/echo/chunked", []string{"hello ", "chunked ", "world"}), "POST")},
		{name: "POST large", steps: once(post("/echo/large", big)+get("/small"), "POST", "GET")},
		{name: "POST large chunked", steps: once(postChunked("/echo/large", []string{big[:1000], big[1000:]})+get("/small"), "POST", "GET")},
		{name: "expect 100-continue", steps: []step{expect("/echo/continue", "the body after 100"), expect("/echo/again", "again")}},
		{name: "expect 100-continue chunked", steps: []step{{
			send: request("POST", "/echo/continue", "Expect: 100-continue", "Transfer-Encoding: chunked"),
			cont: chunkedBody("chunked ", "after 100"), methods: []string{"POST"},
		}}},
		{name: "expect 100-continue body ignored", steps: once(request("POST", "/ignore",
			"Expect: 100-continue", "Content-Length: 20"), "POST")},
		{name: "expect 100-continue body partly read", steps: []step{expect("/partial", big)}},
		{name: "expect 100-continue HTTP/1.0", steps: once("POST /echo/e HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\nabc", "POST")},
		{name: "expect 100-continue in a list", steps: []step{{
			send: request("POST", "/echo/list", "Expect: 100-continue, x-other", "Content-Length: 3"),
			cont: "abc", methods: []string{"POST"},
		}}},
		{name: "early hints", steps: once(get("/early-hints"), "GET", "GET")},
		{name: "chunked with Content-Length", steps: once(request("POST", "/echo/x",
			"Transfer-Encoding: chunked", "Content-Length: 100")+chunkedBody("abc"), "POST")},
		{name: "expect other", steps: once(post("/echo/x", "abc", "Expect: something-else"), "POST")},
		{name: "connection close", steps: once(get("/small", "Connection: close"))},
		{name: "connection close large", steps: once(get("/large", "Connection: close"))},
		{name: "HTTP/1.0", steps: once("GET /small HTTP/1.0\r\n\r\n")},
		{name: "HTTP/1.0 echo", steps: once("GET /echo/10 HTTP/1.0\r\nHost: example.com\r\n\r\n")},
		{name: "HTTP/1.0 keep-alive", steps: []step{
			{send: "GET /small HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", methods: []string{"GET"}},
			{send: "GET /fixed HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", methods: []string{"GET"}},
			{send: "HEAD /large HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", methods: []string{"HEAD"}},
		}},
		{name: "HTTP/1.0 keep-alive large", steps: once("GET /large HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")},
		{name: "HTTP/1.0 keep-alive flush", steps: once("GET /flush HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")},
		{name: "query and escaped path", steps: once(get("/echo/a%20b/c%2Fd/%C3%A9?x=1&y=%41&z=a+b&x=2&empty="))},
		{name: "absolute-form target", steps: once(get("http://other.example/echo/abs?q=1"))},
		{name: "repeated header", steps: once(get("/echo/h", "X-Multi: one", "X-Multi: two", "x-lower: v", "X-Spaces:   padded   "))},
		{name: "OPTIONS star", steps: once(request("OPTIONS", "*"), "OPTIONS")},
		{name: "unread small body then next", steps: once(post("/ignore", "a small unread body")+get("/small"), "POST", "GET")},
		{name: "unread chunked body then next", steps: once(postChunked("/ignore", []string{"unread ", "chunks"})+get("/small"), "POST", "GET")},
		{name: "partly read body then next", steps: []step{
			{send: post("/partial", big), methods: []string{"POST"}},
			{send: get("/small"), methods: []string{"GET"}},
		}},
		{name: "unread body past discard limit", steps: once(post("/ignore", huge), "POST")},
		{name: "unread chunked body past discard limit", steps: once(postChunked("/ignore", []string{huge}), "POST")},
		{name: "CRLF after POST body", steps: once(post("/echo/p", "abc")+"\r\n"+get("/small"), "POST", "GET")},
		{name: "missing Host", steps: once("GET /small HTTP/1.1\r\n\r\n"), serverError: true},
		{name: "malformed request line", steps: once("GARBAGE\r\n\r\n"), serverError: true},
		{name: "bad version", steps: once("GET /small HTTP/x.y\r\nHost: a\r\n\r\n"), serverError: true},
		{name: "HTTP/2.0 request line", steps: once("GET /small HTTP/2.0\r\nHost: a\r\n\r\n"), serverError: true},
		{name: "malformed Host", steps: once("GET /small HTTP/1.1\r\nHost: a b\r\n\r\n"), serverError: true},
		{name: "invalid header value", steps: once(get("/small", "X-Bad: a\x01b")), serverError: true},
		{name: "conflicting Content-Length", steps: once(request("POST", "/echo/x",
			"Content-Length: 3", "Content-Length: 4")+"abcd", "POST"), serverError: true},
		{name: "invalid Content-Length", steps: once(request("POST", "/echo/x", "Content-Length: -1"), "POST"), serverError: true},
		{name: "transfer-encoding gzip", steps: once(request("POST", "/echo/x", "Transfer-Encoding: gzip")+"abc", "POST"), serverError: true},
		{name: "headers past MaxHeaderBytes", steps: once(get("/small", "X-Big: "+strings.Repeat("b", 5*maxHeaderBytes))), serverError: true},
		{name: "headers within MaxHeaderBytes", steps: once(get("/echo/h", "X-Big: "+strings.Repeat("b", maxHeaderBytes/2)))},
	}
}

// TestServer_againstNetHTTP sends the same bytes to a net/http server and an h1
// server with the same handler, and compares what comes back.
func TestServer_againstNetHTTP(t *testing.T) {
	srv := startServers(t, testMux())
	for _, tc := range append(routeCases(), requestCases()...) {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			std := exchange(t, srv.std, tc.steps)
			got := exchange(t, srv.h1, tc.steps)
			compareOutcome(t, std, got, tc.serverError)
		})
	}
}
