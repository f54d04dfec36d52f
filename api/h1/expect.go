package h1

import (
	"io"
	"net/http"

	"golang.org/x/net/http/httpguts"
)

// expect handles an Expect header as net/http does: 100-continue is sent
// when the handler first reads the body; any other expectation is
// answered 417 and the connection closes.
func (w *response) expect() bool {
	ex := w.req.Header["Expect"]
	switch {
	case len(ex) == 0 || (len(ex) == 1 && ex[0] == ""):
		return true
	case httpguts.HeaderValuesContainsToken(ex, "100-continue"):
		if w.req.ProtoAtLeast(1, 1) && w.req.ContentLength != 0 {
			w.cont = &continueReader{w: w, body: w.req.Body}
			w.req.Body = w.cont
		}
		return true
	}
	bw := w.c.bw
	w.writeStatusLine(http.StatusExpectationFailed)
	_, _ = bw.WriteString("Content-Length: 0\r\nConnection: close\r\n\r\n")
	_ = bw.Flush()
	return false
}

// continueReader is the body of a request that expects 100 Continue: the
// first read sends it, unless the response has started.
type continueReader struct {
	w    *response
	body io.ReadCloser
	sent bool
	eof  bool // the body was read to its end
}

func (r *continueReader) Read(p []byte) (int, error) {
	if !r.sent {
		r.sent = true
		if !r.w.sent {
			bw := r.w.c.bw
			_, _ = bw.WriteString("HTTP/1.1 100 Continue\r\n\r\n")
			if err := bw.Flush(); err != nil {
				return 0, err
			}
		}
	}
	n, err := r.body.Read(p)
	if err == io.EOF {
		r.eof = true
	}
	return n, err
}

func (r *continueReader) Close() error { return r.body.Close() }
