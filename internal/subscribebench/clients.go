package subscribebench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"golang.org/x/sync/errgroup"
)

// streamPath is the subscriptions endpoint of an ontology.
const streamPath = "/api/v2/ontologySubscriptions/ontologies/%s/streamSubscriptions"

// message is a StreamMessage as the bench reads it.
type message struct {
	Type      string `json:"type"`
	ID        string `json:"id"`
	Responses []struct {
		Type   string          `json:"type"`
		ID     string          `json:"id"`
		Errors json.RawMessage `json:"errors"`
	} `json:"responses"`
	Updates []struct {
		State  string `json:"state"`
		Object struct {
			PrimaryKey json.RawMessage `json:"__primaryKey"`
			Name       string          `json:"name"`
		} `json:"object"`
	} `json:"updates"`
}

// fleet is the bench's websocket connections and what they received. It
// owns one reader goroutine per connection; close cancels and waits for
// them.
type fleet struct {
	conns     []*conn
	cancel    context.CancelFunc
	wg        sync.WaitGroup
	delivered atomic.Int64 // deliveries since the last drain
}

// conn is one websocket connection and its subscriptions.
type conn struct {
	ws     *websocket.Conn
	subs   []subscription // of the plan
	closed chan struct{}  // closed when the reader stops

	mu      sync.Mutex
	ids     map[string][]int // subscription id -> plan indexes (a server may merge identical requests)
	waiting map[string]chan *message
	seq     int
	got     []Delivery
	gaps    []Gap
	stray   int   // objectSetChanged of subscriptions that are not current
	err     error // the first protocol error: an unreadable message, a read that failed
}

// dial opens one connection per list of the plan, at most 16 dials at a
// time, and starts reading them.
func dial(ctx context.Context, server, ontology string, p [][]subscription) (*fleet, error) {
	url := "ws" + strings.TrimPrefix(server, "http") + fmt.Sprintf(streamPath, ontology)
	readCtx, cancel := context.WithCancel(context.Background())
	f := &fleet{conns: make([]*conn, len(p)), cancel: cancel}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(16)
	for i, subs := range p {
		g.Go(func() error {
			ws, _, err := websocket.Dial(gctx, url, nil)
			if err != nil {
				return fmt.Errorf("dial %s: %w", url, err)
			}
			ws.SetReadLimit(64 << 20)
			f.conns[i] = &conn{ws: ws, subs: subs, closed: make(chan struct{}), ids: map[string][]int{}, waiting: map[string]chan *message{}}
			return nil
		})
	}
	err := g.Wait()
	for _, c := range f.conns {
		if c != nil {
			f.wg.Go(func() { f.read(readCtx, c) })
		}
	}
	if err != nil {
		f.close()
		return nil, err
	}
	return f, nil
}

// close closes the connections, 64 at a time (each waits for the
// server's close frame), and waits for their readers.
func (f *fleet) close() {
	var g errgroup.Group
	g.SetLimit(64)
	for _, c := range f.conns {
		if c != nil {
			g.Go(func() error { return c.ws.Close(websocket.StatusNormalClosure, "bench done") })
		}
	}
	_ = g.Wait() // a connection the server closed first has nothing left to close
	f.cancel()
	f.wg.Wait()
}

// read receives c's messages until the connection ends.
func (f *fleet) read(ctx context.Context, c *conn) {
	defer close(c.closed)
	for {
		_, data, err := c.ws.Read(ctx)
		at := time.Now()
		if err != nil {
			if websocket.CloseStatus(err) != websocket.StatusNormalClosure && ctx.Err() == nil {
				c.fail(fmt.Errorf("read: %w", err))
			}
			return
		}
		var m message
		if err := json.Unmarshal(data, &m); err != nil {
			c.fail(fmt.Errorf("decode %.200s: %w", data, err))
			continue
		}
		f.delivered.Add(int64(c.receive(&m, at)))
	}
}

// receive records a message; it returns the deliveries it added.
func (c *conn) receive(m *message, at time.Time) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch m.Type {
	case "subscribeResponses":
		if ch, ok := c.waiting[m.ID]; ok {
			delete(c.waiting, m.ID)
			ch <- m
		} else {
			c.failLocked(fmt.Errorf("subscribeResponses to unknown request %q", m.ID))
		}
		return 0
	case "objectSetChanged":
		subs, ok := c.ids[m.ID]
		if !ok {
			c.stray++
			return 0
		}
		n := 0
		for _, u := range m.Updates {
			key, err := strconv.ParseInt(string(bytes.Trim(u.Object.PrimaryKey, `"`)), 10, 64)
			if err != nil {
				c.failLocked(fmt.Errorf("objectSetChanged: primary key %s: %w", u.Object.PrimaryKey, err))
				continue
			}
			for _, s := range subs {
				c.got = append(c.got, Delivery{Sub: s, Key: key, Name: u.Object.Name, State: u.State, At: at})
				n++
			}
		}
		return n
	case "refreshObjectSet", "subscriptionClosed":
		subs, ok := c.ids[m.ID]
		if !ok { // of a subscription that ended: nothing to refresh
			return 0
		}
		for _, s := range subs {
			c.gaps = append(c.gaps, Gap{Sub: s, Type: m.Type})
		}
		return 0
	default:
		c.failLocked(fmt.Errorf("message of unknown type %q", m.Type))
		return 0
	}
}

func (c *conn) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.failLocked(err)
}

func (c *conn) failLocked(err error) {
	if c.err == nil {
		c.err = err
	}
}

// subscribe sends every connection its list of the plan (on) or an empty
// list (off), and waits for every answer. A subscription the server
// refuses is an error.
func (f *fleet) subscribe(ctx context.Context, on bool) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(64)
	for _, c := range f.conns {
		g.Go(func() error { return c.subscribe(gctx, on) })
	}
	return g.Wait()
}

func (c *conn) subscribe(ctx context.Context, on bool) error {
	req := subscribeRequests{Requests: []subscribeRequest{}}
	if on {
		for _, s := range c.subs {
			req.Requests = append(req.Requests, s.request)
		}
	}
	ch := make(chan *message, 1)
	c.mu.Lock()
	c.seq++
	req.ID = fmt.Sprintf("bench-%d", c.seq)
	c.waiting[req.ID] = ch
	c.mu.Unlock()
	b, err := json.Marshal(req)
	if err != nil {
		return err
	}
	if err := c.ws.Write(ctx, websocket.MessageText, b); err != nil {
		return fmt.Errorf("send subscriptions: %w", err)
	}
	var m *message
	select {
	case m = <-ch:
	case <-c.closed:
		c.mu.Lock()
		defer c.mu.Unlock()
		return fmt.Errorf("connection ended before the subscribe response: %v", c.err)
	case <-ctx.Done():
		return ctx.Err()
	}
	if len(m.Responses) != len(req.Requests) {
		return fmt.Errorf("%d subscribe responses to %d requests", len(m.Responses), len(req.Requests))
	}
	ids := make(map[string][]int, len(m.Responses))
	for i, r := range m.Responses {
		if r.Type != "success" || r.ID == "" {
			return fmt.Errorf("subscription %d refused: %s %s", c.subs[i].index, r.Type, r.Errors)
		}
		ids[r.ID] = append(ids[r.ID], c.subs[i].index)
	}
	c.mu.Lock()
	c.ids = ids
	c.mu.Unlock()
	return nil
}

// received is what the connections received since the last drain.
type received struct {
	deliveries []Delivery
	gaps       []Gap
	stray      int // objectSetChanged of subscriptions that had ended
}

// drain returns and forgets what the connections received so far, or the
// first protocol error of a connection.
func (f *fleet) drain() (received, error) {
	var r received
	var errs []error
	for _, c := range f.conns {
		c.mu.Lock()
		r.deliveries = append(r.deliveries, c.got...)
		r.gaps = append(r.gaps, c.gaps...)
		r.stray += c.stray
		c.got, c.gaps, c.stray = nil, nil, 0
		if c.err != nil {
			errs = append(errs, c.err)
		}
		c.mu.Unlock()
	}
	f.delivered.Store(0)
	if len(errs) > 0 {
		return r, fmt.Errorf("%d connections failed, first: %w", len(errs), errs[0])
	}
	return r, nil
}
