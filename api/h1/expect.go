package h1

import (
	"io"
	"net/http"
	"strings"
)

// expect handles an Expect header as net/http does: 100-continue is sent
// when the handler first reads the body; any other expectation is
// answered 417 and the connection closes.
func (w *response) expect() bool {
	ex := w.req.Header.Get("Expect")
	switch {
	case ex == "":
		return true
	case hasToken(ex, "100-continue"):
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

// hasToken reports whether v holds token, in any case, between the
// value's ends, spaces, tabs or commas: net/http's reading of Expect,
// looser than a comma-separated list of tokens.
func hasToken(v, token string) bool {
	lv, lt := strings.ToLower(v), strings.ToLower(token)
	for i := 0; ; {
		j := strings.Index(lv[i:], lt)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(lt)
		if (start == 0 || isTokenBoundary(lv[start-1])) && (end == len(lv) || isTokenBoundary(lv[end])) {
			return true
		}
		i = start + 1
	}
}

func isTokenBoundary(b byte) bool { return b == ' ' || b == ',' || b == '\t' }

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
