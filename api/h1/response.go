package h1

import (
	"fmt"
	"maps"
	"net/http"
	"strconv"
	"time"
)

// Responses are buffered up to this size, so that most get a
// Content-Length; a larger one, or one flushed, is sent chunked.
const bufferBeforeChunking = 64 << 10

// response is the http.ResponseWriter of a request; a connection reuses
// its one, maps and buffer included.
type response struct {
	c      *conn
	req    *http.Request
	header http.Header // the handler's
	// sentHeader is the header as it was at WriteHeader: later changes
	// have no effect, as http.ResponseWriter says. A shallow copy into a
	// reused map: net/http's deep clone is three allocations a request.
	sentHeader http.Header
	buf        []byte // the body, until the headers are sent

	status     int   // 0 until WriteHeader
	clen       int64 // the Content-Length the handler set; -1 none
	written    int64 // body bytes the handler wrote
	noBody     bool  // HEAD, or a status without a body
	sent       bool  // the status line and headers are written
	chunked    bool
	closeAfter bool            // says Connection: close and closes
	dropAfter  bool            // closes after the response, which does not say so
	writeDL    bool            // the handler set a write deadline
	cont       *continueReader // the body of an Expect: 100-continue request
}

func (w *response) reset(c *conn, req *http.Request) {
	h, sh := w.header, w.sentHeader
	if h == nil {
		h, sh = make(http.Header), make(http.Header)
	} else {
		clear(h)
		clear(sh)
	}
	buf := w.buf[:0]
	if cap(buf) > 4*bufferBeforeChunking {
		buf = nil // a large response's buffer is not kept for the next
	}
	// req.Close is http.ReadRequest's: Connection: close, or HTTP/1.0
	// without keep-alive.
	*w = response{c: c, req: req, header: h, sentHeader: sh, buf: buf, clen: -1, closeAfter: req.Close}
}

func (w *response) Header() http.Header { return w.header }

func (w *response) WriteHeader(code int) {
	if code < 100 || code > 999 {
		panic(fmt.Sprintf("invalid WriteHeader code %v", code))
	}
	if w.status != 0 {
		w.c.srv.logWarn("superfluous WriteHeader call", "status", code, "path", w.req.URL.Path)
		return
	}
	if code >= 100 && code <= 199 && code != http.StatusSwitchingProtocols {
		w.writeInformational(code)
		return
	}
	w.status = code
	maps.Copy(w.sentHeader, w.header)
	w.noBody = w.req.Method == http.MethodHead || !bodyAllowed(code)
	if cl := w.sentHeader.Get("Content-Length"); cl != "" {
		if n, err := strconv.ParseInt(cl, 10, 64); err == nil && n >= 0 {
			w.clen = n
		} else {
			w.c.srv.logWarn("invalid Content-Length", "value", cl)
			w.sentHeader.Del("Content-Length")
		}
	}
}

// writeInformational sends a 1xx response with the headers set so far.
func (w *response) writeInformational(code int) {
	if w.sent {
		return
	}
	w.writeStatusLine(code)
	_ = w.header.Write(w.c.bw)
	_, _ = w.c.bw.WriteString("\r\n")
	_ = w.c.bw.Flush()
}

func (w *response) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	if w.noBody && w.req.Method != http.MethodHead {
		return 0, http.ErrBodyNotAllowed
	}
	if w.clen >= 0 && w.written+int64(len(p)) > w.clen {
		// As net/http: the handler's framing went wrong, and a body
		// may be on its way.
		w.dropAfter = w.req.Method != http.MethodHead
		return 0, http.ErrContentLength
	}
	w.written += int64(len(p))
	if !w.sent {
		// HEAD buffers too: the Content-Type is sniffed from the body
		// the handler writes, which is then not sent.
		full := len(w.buf)+len(p) > bufferBeforeChunking
		if !full || !w.noBody {
			w.buf = append(w.buf, p...)
		}
		if !full {
			return len(p), nil
		}
		// Past the buffer: the headers go out with what was written,
		// p included (the sniffing of Content-Type sees it).
		if err := w.sendHeader(false); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	if w.noBody {
		return len(p), nil
	}
	return w.writeBody(p)
}

// writeBody writes body bytes after the headers, as a chunk when the
// response is chunked.
func (w *response) writeBody(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	bw := w.c.bw
	if w.chunked {
		_, _ = bw.WriteString(strconv.FormatInt(int64(len(p)), 16))
		_, _ = bw.WriteString("\r\n")
	}
	n, err := bw.Write(p)
	if w.chunked && err == nil {
		_, err = bw.WriteString("\r\n")
	}
	return n, err
}

// Flush sends the headers and what was written so far.
func (w *response) Flush() {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	if !w.sent {
		if w.sendHeader(false) != nil {
			return
		}
	}
	_ = w.c.bw.Flush()
}

// SetReadDeadline and SetWriteDeadline are what http.ResponseController
// calls; the write deadline lasts until the end of the response.
func (w *response) SetReadDeadline(t time.Time) error {
	w.c.setReadDeadline(t)
	return nil
}

func (w *response) SetWriteDeadline(t time.Time) error {
	w.writeDL = !t.IsZero()
	return w.c.nc.SetWriteDeadline(t)
}

// finish completes the response after the handler returned; it reports
// whether the connection can serve another request.
func (w *response) finish() bool {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	if !w.sent {
		if w.sendHeader(true) != nil {
			return false
		}
	}
	if w.chunked {
		_, _ = w.c.bw.WriteString("0\r\n\r\n")
	}
	if !w.noBody && w.clen >= 0 && w.written != w.clen {
		w.closeAfter = true // the client waits for bytes that will not come
	}
	if err := w.c.bw.Flush(); err != nil {
		return false
	}
	if w.writeDL {
		_ = w.c.nc.SetWriteDeadline(time.Time{})
	}
	if w.closeAfter || w.dropAfter {
		return false // and the body is left unread: closing it would read it all
	}
	_ = w.req.Body.Close()
	return true
}
