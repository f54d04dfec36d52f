package soak

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// TestClient_do_resent: a read the server drops on a kept-alive connection
// (it closes the connection without answering) is sent again on a new
// connection and counted; a GET is too, by net/http itself.
func TestClient_do_resent(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 2 { // the second request, on the first one's connection
			conn, _, err := http.NewResponseController(w).Hijack()
			if err != nil {
				t.Error(err)
				return
			}
			_ = conn.Close()
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"ok":true}`))
	}))
	defer srv.Close()
	c := &client{hc: newHTTPClient(1), base: srv.URL, token: "t"}
	for i := range 2 {
		var out map[string]bool
		if err := c.do(t.Context(), http.MethodPost, "/search", c.token, map[string]int{"pageSize": 1}, &out); err != nil || !out["ok"] {
			t.Fatalf("request %d: %v %v", i, out, err)
		}
	}
	if got := c.resent.Load(); got != 1 || n.Load() != 3 {
		t.Fatalf("resent %d, server saw %d requests; want 1 and 3", got, n.Load())
	}
}
