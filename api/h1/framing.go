package h1

import (
	"io"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"golang.org/x/net/http/httpguts"
)

// maxDiscard is how much of a request body the handler left unread is
// read away so that the connection can serve the next request; past it
// the connection closes (net/http's figure).
const maxDiscard = 256 << 10

// sendHeader writes the status line and the headers as they were at
// WriteHeader, with the framing of the body, as net/http chooses it: a
// Transfer-Encoding the handler set (chunked; identity: until the
// connection closes), else the Content-Length the handler set, else the
// length of the body when the handler is done (final), else chunked
// (HTTP/1.1) or until the connection closes (HTTP/1.0). Then it writes
// the buffered body.
func (w *response) sendHeader(final bool) error {
	w.sent = true
	h := w.sentHeader
	w.settleRequestBody()
	if w.c.srv.isClosing() || httpguts.HeaderValuesContainsToken(h["Connection"], "close") {
		w.closeAfter = true
	}
	var exclude map[string]bool
	drop := func(k string) {
		if _, ok := h[k]; ok {
			if exclude == nil {
				exclude = map[string]bool{}
			}
			exclude[k] = true
		}
	}
	isHEAD := w.req.Method == http.MethodHead
	te := h.Get("Transfer-Encoding")
	var length, ctype, chunked, connection string
	switch {
	case !bodyAllowed(w.status):
		drop("Content-Length")
		drop("Transfer-Encoding")
		if w.status == http.StatusNotModified {
			drop("Content-Type")
		}
	case isHEAD:
		drop("Transfer-Encoding")
		if final && w.clen < 0 && te == "" && w.written > 0 {
			length = strconv.FormatInt(w.written, 10)
		}
	case te == "identity":
		drop("Transfer-Encoding")
		drop("Content-Length")
		w.clen = -1
		w.closeAfter = true // the body ends with the connection
	case te != "" && w.req.ProtoAtLeast(1, 1):
		drop("Transfer-Encoding")
		drop("Content-Length")
		w.clen, w.chunked, chunked = -1, true, "chunked"
	case w.clen >= 0:
		drop("Transfer-Encoding")
	case final:
		length = strconv.FormatInt(w.written, 10)
		drop("Transfer-Encoding")
	case w.req.ProtoAtLeast(1, 1):
		drop("Transfer-Encoding")
		w.chunked, chunked = true, "chunked"
	default:
		drop("Transfer-Encoding")
		w.closeAfter = true // HTTP/1.0: the body ends with the connection
	}
	// Sniffed as net/http does: not when the handler set a type (even
	// nil, which asks for none), an encoding or a transfer coding.
	if _, typed := h["Content-Type"]; !typed && bodyAllowed(w.status) && len(w.buf) > 0 && h.Get("Content-Encoding") == "" && te == "" {
		ctype = http.DetectContentType(w.buf)
	}
	keepAlive10 := !w.req.ProtoAtLeast(1, 1) && wantsKeepAlive(w.req)
	switch {
	case w.closeAfter:
		drop("Connection")
		if w.req.ProtoAtLeast(1, 1) {
			connection = "close"
		}
	case keepAlive10 && (length != "" || w.clen >= 0 || w.noBody):
		if _, set := h["Connection"]; !set {
			connection = "keep-alive"
		}
	}

	bw := w.c.bw
	w.writeStatusLine(w.status)
	if exclude == nil {
		_ = h.Write(bw)
	} else {
		_ = h.WriteSubset(bw, exclude)
	}
	writeField(bw, "Content-Type", ctype)
	writeField(bw, "Connection", connection)
	writeField(bw, "Transfer-Encoding", chunked)
	if _, dated := h["Date"]; !dated {
		_, _ = bw.WriteString("Date: ")
		_, _ = bw.Write(w.c.srv.date.now())
		_, _ = bw.WriteString("\r\n")
	}
	writeField(bw, "Content-Length", length)
	if _, err := bw.WriteString("\r\n"); err != nil {
		return err
	}
	if w.noBody {
		return nil
	}
	_, err := w.writeBody(w.buf)
	return err
}

// settleRequestBody readies the connection for the next request before
// the response goes out: a body the handler left unread is read away up
// to maxDiscard; past it, or when the body of an Expect: 100-continue
// request was not read to its end, the connection closes after the
// response.
func (w *response) settleRequestBody() {
	if w.closeAfter || w.req.ContentLength == 0 {
		return
	}
	if w.cont != nil {
		if !w.cont.eof {
			w.closeAfter = true
		}
		return
	}
	n, err := io.CopyN(io.Discard, w.req.Body, maxDiscard+1)
	switch {
	case err == nil && n > maxDiscard:
		w.closeAfter, w.c.linger = true, true
	case err == io.EOF, err == http.ErrBodyReadAfterClose:
	default:
		w.closeAfter = true
	}
}

// writeStatusLine writes a status line in the request's version, as
// net/http does: an HTTP/1.0 client reads an HTTP/1.1 answer as one that
// keeps the connection.
func (w *response) writeStatusLine(code int) {
	proto := "HTTP/1.1 "
	if !w.req.ProtoAtLeast(1, 1) {
		proto = "HTTP/1.0 "
	}
	text := http.StatusText(code)
	if text == "" {
		text = "status code " + strconv.Itoa(code)
	}
	_, _ = w.c.bw.WriteString(proto + strconv.Itoa(code) + " " + text + "\r\n")
}

func writeField(bw io.StringWriter, k, v string) {
	if v != "" {
		_, _ = bw.WriteString(k + ": " + v + "\r\n")
	}
}

// bodyAllowed reports whether a response of the status may have a body.
func bodyAllowed(status int) bool {
	switch {
	case status >= 100 && status <= 199:
		return false
	case status == http.StatusNoContent, status == http.StatusNotModified:
		return false
	}
	return true
}

// wantsKeepAlive is an HTTP/1.0 request's Connection: keep-alive.
func wantsKeepAlive(req *http.Request) bool {
	return httpguts.HeaderValuesContainsToken(req.Header["Connection"], "keep-alive")
}

// dateCache is the Date header's value, formatted once a second. The
// bytes it hands out are never changed: the next second gets new ones.
type dateCache struct{ p atomic.Pointer[dated] }

type dated struct {
	sec int64
	b   []byte
}

func (d *dateCache) now() []byte {
	t := time.Now()
	if v := d.p.Load(); v != nil && v.sec == t.Unix() {
		return v.b
	}
	v := &dated{sec: t.Unix(), b: t.UTC().AppendFormat(nil, http.TimeFormat)}
	d.p.Store(v)
	return v.b
}

// isOptionsStar is OPTIONS *, which the server answers itself.
func isOptionsStar(req *http.Request) bool {
	return req.Method == http.MethodOptions && req.RequestURI == "*"
}
