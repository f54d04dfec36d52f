package api_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/coder/websocket"
	"github.com/ontoindex/ontoindex/api"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/internal/testkit/apidemo"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
)

// streamEnv is a served env (serveEnv), whose Serve runs the
// subscriptions' hub, with the websocket's base address.
type streamEnv struct {
	*served
	url string // ws://127.0.0.1:port
}

func mustStreamEnv(tb testing.TB, edit ...func(*config.Config)) *streamEnv {
	tb.Helper()
	s := mustServe(tb, edit...)
	return &streamEnv{served: s, url: "ws://" + s.addr}
}

// streamClient is a websocket client of the subscriptions, as
// @osdk/client speaks to them.
type streamClient struct {
	tb testing.TB
	ws *websocket.Conn
	n  int // subscribe messages sent
}

const streamPath = "/api/v2/ontologySubscriptions/ontologies/ri.ontology.main.ontology.demo/streamSubscriptions"

func (e *streamEnv) dial(tb testing.TB, token string) *streamClient {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ws, resp, err := websocket.Dial(ctx, e.url+streamPath, &websocket.DialOptions{Subprotocols: []string{"Bearer-" + token}})
	if err != nil {
		tb.Fatalf("dial: %v", err)
	}
	if got := resp.Header.Get("Sec-WebSocket-Protocol"); got != "Bearer-"+token {
		tb.Fatalf("the server chose sub-protocol %q, the client's websocket library needs %q", got, "Bearer-"+token)
	}
	ws.SetReadLimit(64 << 20)
	tb.Cleanup(func() { _ = ws.CloseNow() })
	return &streamClient{tb: tb, ws: ws}
}

// message is a StreamMessage as the client decodes it.
type message struct {
	Type      string `json:"type"`
	ID        string `json:"id"`
	Responses []struct {
		Type   string           `json:"type"`
		ID     string           `json:"id"`
		Errors []map[string]any `json:"errors"`
	} `json:"responses"`
	Updates []struct {
		Type   string         `json:"type"`
		State  string         `json:"state"`
		Object map[string]any `json:"object"`
	} `json:"updates"`
	ObjectType string         `json:"objectType"`
	Cause      map[string]any `json:"cause"`
}

// next reads the next message; the wait is generous, a failure's only.
func (c *streamClient) next() message {
	c.tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, data, err := c.ws.Read(ctx)
	if err != nil {
		c.tb.Fatalf("read: %v", err)
	}
	var m message
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		c.tb.Fatalf("decode %s: %v", data, err)
	}
	return m
}

// subscribe sends the whole list of requests (sets and their property
// lists) and returns the response of each.
func (c *streamClient) subscribe(requests ...string) message {
	c.tb.Helper()
	c.n++
	id := fmt.Sprintf("request-%d", c.n)
	body := `{"id":"` + id + `","requests":[` + strings.Join(requests, ",") + `]}`
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := c.ws.Write(ctx, websocket.MessageText, []byte(body)); err != nil {
		c.tb.Fatalf("write: %v", err)
	}
	m := c.next()
	if m.Type != "subscribeResponses" || m.ID != id {
		c.tb.Fatalf("want the subscribeResponses of %s first, got %+v", id, m)
	}
	return m
}

// request is an ObjectSetStreamSubscribeRequest as @osdk/client writes it.
func request(set string, props ...string) string {
	p, _ := json.Marshal(props)
	if props == nil {
		p = []byte("[]")
	}
	return `{"objectSet":` + set + `,"propertySet":` + string(p) + `,"referenceSet":[],"objectLoadingResponseOptions":{"shouldLoadObjectRids":true}}`
}

const baseEmployees = `{"type":"base","objectType":"Employee"}`

func TestStream_subscribeResponses(t *testing.T) {
	e := mustStreamEnv(t)
	c := e.dial(t, appToken)
	sales := `{"type":"filter","objectSet":` + baseEmployees + `,"where":{"type":"eq","field":"dept","value":"Sales"}}`
	m := c.subscribe(request(baseEmployees), request(sales, "name"), request(baseEmployees),
		request(`{"type":"searchAround","objectSet":`+baseEmployees+`,"link":"assignments"}`),
		request(`{"type":"base","objectType":"Nope"}`), request(baseEmployees, "nope"))
	want := []string{"success", "success", "success", "error", "error", "error"}
	for i, r := range m.Responses {
		if r.Type != want[i] {
			t.Errorf("response %d: %+v, want %s", i, r, want[i])
		}
	}
	if m.Responses[0].ID == "" || m.Responses[0].ID != m.Responses[2].ID || m.Responses[0].ID == m.Responses[1].ID {
		t.Errorf("duplicate requests share an id, others do not: %+v", m.Responses)
	}
	for i, name := range map[int]string{3: "UnsupportedObjectSet", 4: "ObjectTypeNotFound", 5: "PropertiesNotFound"} {
		if errs := m.Responses[i].Errors; len(errs) != 1 || errs[0]["error"] != name {
			t.Errorf("response %d: %+v, want %s", i, m.Responses[i], name)
		}
	}
	// The heartbeat resends the list: the same requests keep their ids.
	again := c.subscribe(request(baseEmployees), request(sales, "name"))
	if again.Responses[0].ID != m.Responses[0].ID || again.Responses[1].ID != m.Responses[1].ID {
		t.Errorf("a resent list changed ids: %+v, then %+v", m.Responses, again.Responses)
	}

	// Scopes: a type the token may not read is an error of its request.
	lc := e.dial(t, limitedToken)
	lm := lc.subscribe(request(baseEmployees), request(`{"type":"base","objectType":"Assignment"}`))
	if lm.Responses[0].Type != "error" || lm.Responses[0].Errors[0]["error"] != "ObjectTypeNotFound" || lm.Responses[1].Type != "success" {
		t.Errorf("limited token: %+v", lm.Responses)
	}
}

func TestStream_auth(t *testing.T) {
	e := mustStreamEnv(t)
	for _, tt := range []struct {
		name      string
		protocols []string
		header    string
		status    int
	}{
		{"no token", nil, "", http.StatusUnauthorized},
		{"wrong token", []string{"Bearer-wrong-token-0123"}, "", http.StatusUnauthorized},
		{"header", nil, "Bearer " + appToken, http.StatusSwitchingProtocols},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			if tt.header != "" {
				h.Set("Authorization", tt.header)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			ws, resp, err := websocket.Dial(ctx, e.url+streamPath, &websocket.DialOptions{Subprotocols: tt.protocols, HTTPHeader: h})
			if ws != nil {
				_ = ws.CloseNow()
			}
			if resp == nil || resp.StatusCode != tt.status {
				t.Fatalf("status %v (%v), want %d", resp, err, tt.status)
			}
		})
	}
	// The ontology of the path is checked.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, resp, err := websocket.Dial(ctx, e.url+strings.Replace(streamPath, "ri.ontology.main.ontology.demo", "other", 1),
		&websocket.DialOptions{Subprotocols: []string{"Bearer-" + appToken}})
	if resp == nil || resp.StatusCode != http.StatusNotFound || err == nil || errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("another ontology: %v %v", resp, err)
	}
}

func TestStream_refreshAndUnsubscribe(t *testing.T) {
	ctx := context.Background()
	e := mustStreamEnv(t)
	c := e.dial(t, appToken)
	sales := `{"type":"filter","objectSet":` + baseEmployees + `,"where":{"type":"eq","field":"dept","value":"Sales"}}`
	m := c.subscribe(request(baseEmployees), request(sales))
	base, salesID := m.Responses[0].ID, m.Responses[1].ID

	// A full rebuild swaps in a new generation: every subscription of the
	// type is told to reload.
	if _, err := e.ix.Build(ctx, "Employee", indexer.BuildOptions{Full: true}); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for range 2 {
		m := c.next()
		if m.Type != "refreshObjectSet" || m.ObjectType != "Employee" {
			t.Fatalf("after a full build: %+v", m)
		}
		got[m.ID] = m.Type
	}
	if got[base] == "" || got[salesID] == "" {
		t.Errorf("refreshes %v, want one for %s and %s", got, base, salesID)
	}

	// Unsubscribed (left out of the next list): no more messages for it.
	c.subscribe(request(baseEmployees))
	emp, err := e.w.LoadTable(ctx, "demo.employees")
	if err != nil {
		t.Fatal(err)
	}
	r := apidemo.EmployeeRows()[1] // employee 20, of dept Sales
	if r["dept"] != "Sales" {
		t.Fatalf("employee 20 is of %v", r["dept"])
	}
	r["age"] = 99
	if err := emp.Overwrite(ctx, iceberg.EqualTo(iceberg.Reference("id"), int64(20)), []icebergtest.Row{r}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.ix.Build(ctx, "Employee", indexer.BuildOptions{}); err != nil {
		t.Fatal(err)
	}
	m = c.next()
	if m.Type != "objectSetChanged" || m.ID != base || len(m.Updates) != 1 || m.Updates[0].Object["age"] != json.Number("99") {
		t.Fatalf("after an update: %+v", m)
	}
	// Then nothing more: the next message is the response to a new list.
	c.subscribe(request(baseEmployees))
}

// waitMetric waits until a metric has a value; the wait is generous, a
// failure's only.
func (e *streamEnv) waitMetric(tb testing.TB, name string, want float64) {
	tb.Helper()
	deadline := time.Now().Add(time.Minute)
	for e.metric(tb, name) != want {
		if time.Now().After(deadline) {
			tb.Fatalf("%s is %v, want %v", name, e.metric(tb, name), want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestStream_heartbeatAndMetrics(t *testing.T) {
	e := mustStreamEnv(t, func(cfg *config.Config) { cfg.Server.Subscriptions.Heartbeat = 50 * time.Millisecond })
	c := e.dial(t, appToken)
	m := c.subscribe(request(baseEmployees), request(`{"type":"base","objectType":"Assignment"}`))
	if len(m.Responses) != 2 {
		t.Fatalf("%+v", m)
	}
	// The server counts a message once its write returns, which may be
	// after the client has read it: wait for the count, then check it
	// stays at the one subscribe response.
	e.waitMetric(t, api.MetricSubscriptionMessages, 1)
	// A client that does not read answers no ping: the server closes its
	// connection, and its subscriptions end with it.
	e.waitMetric(t, api.MetricSubscriptionConnections, 0)
	e.waitMetric(t, api.MetricSubscriptions, 0)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, _, err := c.ws.Read(ctx); websocket.CloseStatus(err) != websocket.StatusPolicyViolation {
		t.Errorf("read after the missed pong: %v, want the close of a policy violation", err)
	}
}

func TestStream_limits(t *testing.T) {
	e := mustStreamEnv(t, func(cfg *config.Config) {
		cfg.Server.Subscriptions.MaxPerConnection = 2
		cfg.Server.Subscriptions.MaxTotal = 3
		cfg.Server.Subscriptions.MaxConnections = 2
	})
	set := func(i int) string {
		return `{"type":"filter","objectSet":` + baseEmployees + `,"where":{"type":"gt","field":"age","value":` + fmt.Sprint(i) + `}}`
	}
	a := e.dial(t, appToken)
	m := a.subscribe(request(set(1)), request(set(2)), request(set(3)))
	if m.Responses[0].Type != "success" || m.Responses[1].Type != "success" || m.Responses[2].Type != "error" ||
		m.Responses[2].Errors[0]["error"] != "SubscriptionLimitExceeded" {
		t.Errorf("per connection: %+v", m.Responses)
	}
	b := e.dial(t, appToken)
	m = b.subscribe(request(set(4)), request(set(5)))
	if m.Responses[0].Type != "success" || m.Responses[1].Type != "error" {
		t.Errorf("per server: %+v", m.Responses)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, resp, err := websocket.Dial(ctx, e.url+streamPath, &websocket.DialOptions{Subprotocols: []string{"Bearer-" + appToken}})
	if resp == nil || resp.StatusCode != http.StatusTooManyRequests {
		t.Errorf("a third connection: %v %v", resp, err)
	}
	// Giving subscriptions back makes room.
	a.subscribe()
	m = b.subscribe(request(set(4)), request(set(5)))
	if m.Responses[0].Type != "success" || m.Responses[1].Type != "success" {
		t.Errorf("after the first connection unsubscribed: %+v", m.Responses)
	}
}

func TestStream_shutdown(t *testing.T) {
	e := mustEnv(t)
	s, err := api.New(e.ix, api.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	se := &streamEnv{served: &served{testEnv: e}, url: "ws://" + ln.Addr().String()}
	c := se.dial(t, appToken)
	c.subscribe(request(baseEmployees))
	// Serve returns once its websockets are closed: it does not wait for
	// the clients to leave on their own.
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("serve: %v", err)
	}
	rctx, rcancel := context.WithTimeout(context.Background(), time.Minute)
	defer rcancel()
	if _, _, err := c.ws.Read(rctx); websocket.CloseStatus(err) != websocket.StatusGoingAway {
		t.Errorf("after shutdown: %v, want the close of a server going away", err)
	}
}
