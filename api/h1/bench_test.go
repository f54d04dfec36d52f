package h1_test

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"strconv"
	"testing"

	"github.com/ontoindex/ontoindex/api/h1"
)

// benchBody is the size of a customer object of the search bench.
var benchBody = bytes.Repeat([]byte("x"), 370)

// BenchmarkServer compares h1 with net/http's server on the request a
// get by key is: a small GET answered with a constant body, from
// kept-alive connections (b.RunParallel's goroutines, GOMAXPROCS*4 of
// them). The ratio of the two is the figure; ns/op is wall time per
// request with clients and server on the same cores.
func BenchmarkServer(b *testing.B) {
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h["Content-Type"] = []string{"application/json"}
		h["Content-Length"] = []string{strconv.Itoa(len(benchBody))}
		_, _ = w.Write(benchBody)
	})
	for _, bc := range []struct {
		name  string
		serve func(ln net.Listener) (stop func())
	}{
		{"net-http", func(ln net.Listener) func() {
			s := &http.Server{Handler: handler}
			go func() { _ = s.Serve(ln) }()
			return func() { _ = s.Close() }
		}},
		{"h1", func(ln net.Listener) func() {
			s := &h1.Server{Handler: handler}
			go func() { _ = s.Serve(ln) }()
			return func() { _ = s.Close() }
		}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				b.Fatal(err)
			}
			defer bc.serve(ln)()
			req := []byte("GET /api/v2/ontologies/bench/objects/Customer/1 HTTP/1.1\r\nHost: bench\r\n\r\n")
			b.SetParallelism(4)
			b.RunParallel(func(pb *testing.PB) {
				c, err := net.Dial("tcp", ln.Addr().String())
				if err != nil {
					b.Error(err)
					return
				}
				defer c.Close()
				r := bufio.NewReader(c)
				body := make([]byte, len(benchBody))
				for pb.Next() {
					if _, err := c.Write(req); err != nil {
						b.Error(err)
						return
					}
					if err := readSmallResponse(r, body); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}

// readSmallResponse reads a response with a Content-Length of
// len(body) into body, as a load generator does.
func readSmallResponse(r *bufio.Reader, body []byte) error {
	n := -1
	for {
		line, err := r.ReadSlice('\n')
		if err != nil {
			return err
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			break
		}
		if v, ok := bytes.CutPrefix(line, []byte("Content-Length: ")); ok {
			if n, err = strconv.Atoi(string(v)); err != nil {
				return err
			}
		}
	}
	if n != len(body) {
		return io.ErrUnexpectedEOF
	}
	_, err := io.ReadFull(r, body)
	return err
}
