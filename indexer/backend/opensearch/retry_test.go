package opensearch

import (
	"bufio"
	"encoding/json"
	"errors"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ontoindex/ontoindex/objects"
)

// loadShedder answers bulk requests as a loaded cluster does: the items
// whose ids it was told to refuse get 429 the first refusals times they
// come, every other item 201. It records the ids of each request.
type loadShedder struct {
	mu       sync.Mutex
	refuse   map[string]int  // id -> refusals left
	down     map[string]bool // ids whose shard has no active primary: 503
	requests [][]string
}

func (s *loadShedder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodHead { // the index exists
		return
	}
	if !strings.HasSuffix(r.URL.Path, "/_bulk") {
		http.Error(w, "unexpected "+r.URL.Path, http.StatusBadRequest)
		return
	}
	var ids []string
	var items []map[string]any
	sc := bufio.NewScanner(r.Body)
	sc.Buffer(nil, 1<<20)
	s.mu.Lock()
	defer s.mu.Unlock()
	for sc.Scan() {
		var action map[string]map[string]any
		if err := json.Unmarshal(sc.Bytes(), &action); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		for name, a := range action {
			id := a["_id"].(string)
			ids = append(ids, id)
			status := 201
			if s.refuse[id] > 0 {
				s.refuse[id]--
				status = 429
			}
			item := map[string]any{"_id": id, "status": status}
			if s.down[id] {
				item["status"] = 503
				item["error"] = map[string]any{"type": "unavailable_shards_exception", "reason": "primary shard is not active Timeout: [1m]"}
			}
			items = append(items, map[string]any{name: item})
			if name == "index" {
				sc.Scan() // the document
			}
		}
	}
	s.requests = append(s.requests, ids)
	_ = json.NewEncoder(w).Encode(map[string]any{"took": 1, "errors": true, "items": items})
}

func TestWriter_retries(t *testing.T) {
	typ := flightType()
	r := rand.New(rand.NewPCG(4, 4))
	var changes []Change
	for n := range 5 {
		o := randomFlight(r, n)
		changes = append(changes, Change{Key: key(typ, o), Object: o})
	}
	id := func(i int) string { return docID(changes[i]) }
	tests := []struct {
		name     string
		refuse   map[string]int
		retries  int
		wantErr  string
		requests int
	}{
		{"none refused", map[string]int{}, 3, "", 1},
		{"two refused once", map[string]int{id(1): 1, id(3): 1}, 3, "", 2},
		{"one refused twice", map[string]int{id(2): 2}, 3, "", 3},
		{"refused past the retries", map[string]int{id(0): 9}, 2, "1 writes to x-flight-g1 refused for load after 2 retries", 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &loadShedder{refuse: tt.refuse}
			srv := httptest.NewServer(s)
			defer srv.Close()
			c, err := New(Options{Name: "c", URLs: []string{srv.URL}, IndexPrefix: "x-", Retries: tt.retries, RetryWait: time.Millisecond}, slog.New(slog.DiscardHandler))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			st, err := c.Writer(typ).Write(t.Context(), 1, 1, changes)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
			} else if err != nil || st.Indexed != len(changes) {
				t.Fatalf("stats %+v, err %v; want every change indexed", st, err)
			}
			if len(s.requests) != tt.requests {
				t.Fatalf("%d bulk requests, want %d: %v", len(s.requests), tt.requests, s.requests)
			}
			// Each retry sends exactly the items refused the time before.
			for i := 1; i < len(s.requests); i++ {
				for _, id := range s.requests[i] {
					if _, refused := tt.refuse[id]; !refused {
						t.Errorf("request %d sent %s again, which was written", i, id)
					}
				}
			}
		})
	}
}

// docID is the document id of a change.
func docID(c Change) string { return objects.DocID(c.Key) }

// TestWriter_unavailable: writes the cluster could not take for want of
// a shard fail the batch with an *UnavailableError naming the cluster and
// counting them, not with a *RejectedError that blames a document.
func TestWriter_unavailable(t *testing.T) {
	typ := flightType()
	r := rand.New(rand.NewPCG(5, 5))
	var changes []Change
	for n := range 5 {
		o := randomFlight(r, n)
		changes = append(changes, Change{Key: key(typ, o), Object: o})
	}
	s := &loadShedder{down: map[string]bool{docID(changes[1]): true, docID(changes[4]): true}}
	srv := httptest.NewServer(s)
	defer srv.Close()
	c, err := New(Options{Name: "c", URLs: []string{srv.URL}, IndexPrefix: "x-"}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.Writer(typ).Write(t.Context(), 1, 1, changes)
	var ue *UnavailableError
	var re *RejectedError
	if !errors.As(err, &ue) || errors.As(err, &re) || ue.Items != 2 || !strings.Contains(err.Error(), `"c"`) ||
		!strings.Contains(err.Error(), "unavailable_shards_exception") {
		t.Fatalf("err = %v, want an unavailable error of 2 writes naming the cluster", err)
	}
	if len(s.requests) != 1 {
		t.Errorf("%d bulk requests, want 1 (the cluster waited for the shard already)", len(s.requests))
	}
}
