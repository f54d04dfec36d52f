package api

import (
	"strings"
	"testing"
	"time"

	"github.com/ontoindex/ontoindex/api/serverconfig"
	"github.com/ontoindex/ontoindex/api/wire"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// mustConn is a connection without a socket, for the queue's logic.
func mustConn(tb testing.TB, queueLength int) (*streamConn, *subscription, *subscription) {
	tb.Helper()
	m, err := newStreamMetrics(prometheus.NewRegistry())
	if err != nil {
		tb.Fatal(err)
	}
	h := newStreamHub(nil, serverconfig.Subscriptions{QueueLength: queueLength, MaxTotal: 10}, m)
	c := &streamConn{hub: h, subs: map[string]*subscription{}, byID: map[string]*subscription{}, wake: make(chan struct{}, 1)}
	a := &subscription{conn: c, id: "a", identity: "A", typ: "T"}
	b := &subscription{conn: c, id: "b", identity: "B", typ: "T"}
	for _, s := range []*subscription{a, b} {
		c.subs[s.identity], c.byID[s.id] = s, s
	}
	return c, a, b
}

// kinds lists the message types and subscription ids of a batch.
func kinds(batch []queued) string {
	var out []string
	for _, q := range batch {
		id := string(q.msg)
		if i := strings.Index(id, `"id":"`); i >= 0 {
			id = id[i+6:]
			id = id[:strings.IndexByte(id, '"')]
		}
		out = append(out, q.kind+":"+id)
	}
	return strings.Join(out, " ")
}

func TestStreamConn_slowConsumer(t *testing.T) {
	c, a, b := mustConn(t, 2)
	now := time.Now()
	c.queueChange(a, []byte(`{"id":"a"}`), now)
	c.queueChange(b, []byte(`{"id":"b"}`), now)
	c.queueChange(a, []byte(`{"id":"a"}`), now) // the queue is full: a falls behind
	c.queueChange(a, []byte(`{"id":"a"}`), now) // behind: superseded by the refresh it is owed
	c.queueChange(b, []byte(`{"id":"b"}`), now) // full still: b falls behind too
	if a.behind != refreshBehind || b.behind != refreshBehind {
		t.Fatalf("behind: a %q, b %q", a.behind, b.behind)
	}
	if got := testutil.ToFloat64(c.hub.m.drops); got != 2 {
		t.Errorf("drops %v, want 2", got)
	}
	// The writer takes the queue and, after it, the refreshes owed; the
	// order of a and b among the refreshes does not matter.
	got := kinds(c.take())
	if !strings.HasPrefix(got, "objectSetChanged:a objectSetChanged:b refreshObjectSet:") || strings.Count(got, "refreshObjectSet") != 2 {
		t.Errorf("first batch %q", got)
	}
	if a.behind != "" || b.behind != "" {
		t.Errorf("still behind after the refresh was queued: %q %q", a.behind, b.behind)
	}
	// Caught up: changes flow again.
	c.queueChange(a, []byte(`{"id":"a"}`), now)
	if got := kinds(c.take()); got != "objectSetChanged:a" {
		t.Errorf("second batch %q", got)
	}
	if got := kinds(c.take()); got != "" {
		t.Errorf("third batch %q, want none", got)
	}
}

func TestStreamConn_close(t *testing.T) {
	c, a, b := mustConn(t, 4)
	c.hub.reserve(2)
	c.close(a, wire.Err(wire.NameObjectTypeNotFound, map[string]any{"objectType": "T"}))
	c.queueChange(a, []byte(`{"id":"a"}`), time.Now()) // a closed subscription gets nothing
	c.refresh(b, refreshReplaced)
	if got := kinds(c.take()); got != "subscriptionClosed:a refreshObjectSet:b" {
		t.Errorf("batch %q", got)
	}
	if c.hub.total != 1 || c.count() != 1 {
		t.Errorf("after close: %d on the server, %d on the connection, want 1 and 1", c.hub.total, c.count())
	}
}
