package h1_test

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// largeBodySize is the size of /large's body: far past net/http's 2 KiB
// and h1's buffer, so that both send it without a Content-Length.
const largeBodySize = 300 << 10

// largePart is the i-th 10 KiB part of /large's body.
func largePart(i int) []byte {
	return bytes.Repeat([]byte{'a' + byte(i%26)}, 10<<10)
}

// testMux is the handler both servers of the differential tests serve:
// each route exercises one way a handler can answer.
func testMux() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/echo/", echo)
	mux.HandleFunc("/fixed", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "11")
		io.WriteString(w, "hello world")
	})
	mux.HandleFunc("/small", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "a small body, no Content-Length set\n")
	})
	mux.HandleFunc("/empty", func(w http.ResponseWriter, r *http.Request) {})
	mux.HandleFunc("/large", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		for i := range largeBodySize / (10 << 10) {
			w.Write(largePart(i))
		}
	})
	mux.HandleFunc("/flush", func(w http.ResponseWriter, r *http.Request) {
		f := w.(http.Flusher)
		io.WriteString(w, "first,")
		f.Flush()
		io.WriteString(w, "second,")
		f.Flush()
		io.WriteString(w, "third")
	})
	mux.HandleFunc("/flush-first", func(w http.ResponseWriter, r *http.Request) {
		w.(http.Flusher).Flush()
		io.WriteString(w, "after an empty flush")
	})
	mux.HandleFunc("/status/{code}", func(w http.ResponseWriter, r *http.Request) {
		code, err := strconv.Atoi(r.PathValue("code"))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(code)
		if r.URL.Query().Has("write") {
			_, err := io.WriteString(w, "a body for a status that may not have one")
			fmt.Fprintf(w, "\nwrite error: %v", err)
		}
	})
	mux.HandleFunc("/error", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "something broke", http.StatusInternalServerError)
	})
	mux.HandleFunc("/sniff/{kind}", func(w http.ResponseWriter, r *http.Request) {
		switch r.PathValue("kind") {
		case "html":
			io.WriteString(w, "<!DOCTYPE html><html><body>hi</body></html>")
		case "binary":
			w.Write([]byte{0, 1, 2, 3, 0xff, 0xfe, 'x'})
		case "none": // a nil Content-Type asks for no sniffing
			w.Header()["Content-Type"] = nil
			io.WriteString(w, "<html><body>not sniffed</body></html>")
		case "encoded": // a Content-Encoding stops sniffing too
			w.Header().Set("Content-Encoding", "gzip")
			w.Write([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0})
		}
	})
	mux.HandleFunc("/twice", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusAccepted)
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, "accepted once")
	})
	mux.HandleFunc("/late-header", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Early", "1")
		io.WriteString(w, "headers are fixed at the first write")
		w.Header().Set("X-Late", "1")
	})
	mux.HandleFunc("/header-close", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Connection", "close")
		io.WriteString(w, "the handler asks to close")
	})
	mux.HandleFunc("/partial", func(w http.ResponseWriter, r *http.Request) {
		n, err := io.CopyN(io.Discard, r.Body, 1000)
		fmt.Fprintf(w, "read %d bytes, err %v", n, err)
	})
	mux.HandleFunc("/ignore", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "body ignored")
	})
	mux.HandleFunc("/short", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "10")
		io.WriteString(w, "12345")
	})
	mux.HandleFunc("/overwrite", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "3")
		io.WriteString(w, "abc")
		io.WriteString(w, "defgh") // fails with http.ErrContentLength
	})
	mux.HandleFunc("/te/{coding}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Transfer-Encoding", r.PathValue("coding")) // chunked or identity
		io.WriteString(w, "a body framed as the handler asked")
	})
	mux.HandleFunc("/early-hints", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Link", "</style.css>; rel=preload")
		w.WriteHeader(http.StatusEarlyHints)
		io.WriteString(w, "the final response")
	})
	mux.HandleFunc("/controller", func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		fmt.Fprintf(w, "SetReadDeadline: %v\n", rc.SetReadDeadline(time.Now().Add(time.Minute)))
		fmt.Fprintf(w, "SetWriteDeadline: %v\n", rc.SetWriteDeadline(time.Now().Add(time.Minute)))
		fmt.Fprintf(w, "Flush: %v\n", rc.Flush())
	})
	mux.HandleFunc("/context-values", func(w http.ResponseWriter, r *http.Request) {
		// Not http.ServerContextKey: its value is an *http.Server, which
		// h1 is not (doc.go).
		_, hasAddr := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
		fmt.Fprintf(w, "LocalAddrContextKey set: %t\n", hasAddr)
	})
	mux.HandleFunc("/panic/{kind}", func(w http.ResponseWriter, r *http.Request) {
		switch r.PathValue("kind") {
		case "abort":
			io.WriteString(w, "never sent")
			panic(http.ErrAbortHandler)
		case "value":
			io.WriteString(w, "never sent")
			panic("handler panic value")
		case "after-flush":
			io.WriteString(w, "partial")
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler)
		}
	})
	return mux
}

// echo answers with what the handler saw of the request, then its body.
func echo(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	var b bytes.Buffer
	fmt.Fprintf(&b, "method=%s\nrequestURI=%s\npath=%q rawPath=%q\n", r.Method, r.RequestURI, r.URL.Path, r.URL.RawPath)
	fmt.Fprintf(&b, "urlHost=%q scheme=%q query=%v\n", r.URL.Host, r.URL.Scheme, r.URL.Query())
	fmt.Fprintf(&b, "proto=%s %d.%d host=%q\n", r.Proto, r.ProtoMajor, r.ProtoMinor, r.Host)
	fmt.Fprintf(&b, "contentLength=%d transferEncoding=%q close=%t\n", r.ContentLength, r.TransferEncoding, r.Close)
	fmt.Fprintf(&b, "remoteLoopback=%t ctxErr=%v tls=%t\n", strings.HasPrefix(r.RemoteAddr, "127.0.0.1:"), r.Context().Err(), r.TLS != nil)
	for _, k := range slices.Sorted(maps.Keys(r.Header)) {
		fmt.Fprintf(&b, "header %s=%q\n", k, r.Header[k])
	}
	// Not r.Trailer: h1 leaves trailers out (see doc.go).
	fmt.Fprintf(&b, "body %d bytes, err %v\n", len(body), err)
	w.Header().Set("X-Echo", "1")
	w.Write(b.Bytes())
	w.Write(body)
}
