// Package h1 is the API's HTTP/1.1 server: keep-alive connections served
// by an http.Handler, with the lifecycle of net/http's Server (Serve,
// Shutdown that drains, Close).
//
// Why not net/http's server: on two cores its fixed cost per request is
// most of a get by key. A handler that writes a constant 370-byte object
// costs 7.5-12.5 µs of server CPU per request through net/http and 5.4-9.2
// µs through this server's loop (same chi router, same clients,
// alternating runs); a get by key of the search bench at a million
// objects 11.0 µs against 8.7. The difference is work net/http does for
// every request: a goroutine that watches the connection while the
// handler runs (a read syscall, the wake-up of another thread and a
// handshake to stop it), four or five read deadline changes, a context
// registered with the connection's, and a deep copy of the header map.
//
// The standard library still does the delicate parts: requests are
// parsed by http.ReadRequest (request line, headers, Content-Length and
// chunked bodies, the checks against conflicting framing) and headers
// are written by http.Header.Write. This package does the connection
// loop (a goroutine per connection, requests in turn, pipelined ones
// too), the checks net/http's server adds (Host, header names and values,
// the protocol version), the header size limit (431), read deadlines,
// Expect (100-continue when the handler reads the body, 417 otherwise),
// OPTIONS *, and the framing of responses as net/http chooses it: a
// Transfer-Encoding the handler set, else its Content-Length, else the
// length of a body that fits the buffer (64 KiB, where net/http's is 2
// KiB), else chunked; none for HEAD, 1xx, 204 and 304. Also: the header
// as it was at WriteHeader, Content-Type sniffing, Connection: close and
// HTTP/1.0 keep-alive, reading away an unread request body (256 KiB, then
// close, after a linger that keeps the client from losing the response to
// a reset), http.ResponseController's deadlines, and panics
// (http.ErrAbortHandler aborts silently; others are logged). The tests
// send the same bytes to this server and to net/http's and compare the
// answers.
//
// One difference is of its parsing: an empty Host header is refused (400)
// like a missing one, where net/http's server takes it; http.ReadRequest
// moves the header into Request.Host and the two cannot be told apart
// after it. FuzzServer sends arbitrary bytes to both servers and compares
// the first status too.
//
// What it leaves out, on purpose: TLS and HTTP/2 (the API serves
// cleartext HTTP/1.1; TLS ends in front of it), Hijack, response
// trailers, http.ServerContextKey (its value is an *http.Server), and
// cancelling a request's context when its client disconnects while the
// handler runs: net/http's per-request watcher goroutine is that, and
// the API bounds every request by server.requestTimeout instead. A
// request's context ends when its handler returns, or when the server is
// closed.
package h1
