package api

import (
	"context"
	"fmt"

	"github.com/ontoindex/ontoindex/api/wire"
	"github.com/ontoindex/ontoindex/indexer/query"
)

// subscribe applies a subscribe message: its requests become the
// connection's subscriptions, replacing the previous list. A request the
// connection already has keeps its subscription and id (@osdk/client
// resends its whole list as its heartbeat, and on every change of it);
// duplicates share one. The response, one entry per request, is queued
// with the new list installed, before any change of the new
// subscriptions.
func (c *streamConn) subscribe(ctx context.Context, m *wire.SubscribeRequests) {
	cfg := c.hub.cfg
	c.mu.Lock()
	old := c.subs
	c.mu.Unlock()
	next := make(map[string]*subscription, len(m.Requests))
	responses := make([]wire.SubscribeResponse, len(m.Requests))
	reserved := 0
	for i := range m.Requests {
		rq := &m.Requests[i]
		identity := rq.Identity()
		if sub := next[identity]; sub != nil {
			responses[i].ID = sub.id
			continue
		}
		if sub := old[identity]; sub != nil {
			next[identity] = sub
			responses[i].ID = sub.id
			continue
		}
		if len(next) >= cfg.MaxPerConnection {
			responses[i].Err = wire.Err(wire.NameSubscriptionLimitExceeded, map[string]any{"limit": cfg.MaxPerConnection,
				"reason": fmt.Sprintf("a connection may hold server.subscriptions.maxPerConnection (%d) subscriptions", cfg.MaxPerConnection)})
			continue
		}
		sub, err := c.newSubscription(rq, identity)
		if err != nil {
			responses[i].Err = toAPIError(ctx, err)
			continue
		}
		if !c.hub.reserve(1) {
			responses[i].Err = wire.Err(wire.NameSubscriptionLimitExceeded, map[string]any{"limit": cfg.MaxTotal,
				"reason": fmt.Sprintf("the server holds server.subscriptions.maxTotal (%d) subscriptions", cfg.MaxTotal)})
			continue
		}
		reserved++
		next[identity] = sub
		responses[i].ID = sub.id
	}
	msg := wire.AppendSubscribeResponses(nil, m.ID, responses)

	c.mu.Lock()
	defer c.mu.Unlock()
	gone := 0
	for identity, sub := range c.subs {
		if next[identity] != sub {
			gone++
		}
	}
	c.hub.reserve(-gone)
	c.subs = next
	c.byID = make(map[string]*subscription, len(next))
	for _, sub := range next {
		c.byID[sub.id] = sub
	}
	c.queue = append(c.queue, queued{msg: msg, kind: "subscribeResponses"})
	c.signal()
}

// newSubscription decodes a request's object set and properties, as
// loadObjects would, for the principal of the connection.
func (c *streamConn) newSubscription(rq *wire.SubscribeRequest, identity string) (*subscription, error) {
	s := c.hub.s
	d := &setDecoder{s: s, r: c.r, wd: s.whereDecoder(nil)}
	defer d.release()
	set, err := (&wire.SetDecoder{Resolver: subscriptionResolver{d}, Where: d.wd}).Decode(rq.ObjectSet, 1)
	if err != nil {
		return nil, err
	}
	var f *query.Filter
	var typ string
	if !set.Empty() {
		if len(set.Types) > 1 || set.Interface != "" {
			return nil, wire.Err(wire.NameUnsupportedObjectSet, map[string]any{"reason": "subscriptions take sets of one object type; subscribe to each implementer's set instead"})
		}
		if set.Derived != nil {
			return nil, wire.Err(wire.NameUnsupportedObjectSet, map[string]any{"reason": "subscriptions to sets with derived properties (withProperties) are not supported"})
		}
		typ, f = set.Types[0], set.Filters[set.Types[0]]
	}
	sub := &subscription{conn: c, id: newInstanceID(), seq: c.hub.seq.Add(1), identity: identity, typ: typ, filter: f, loadRids: rq.LoadRids()}
	v := d.views[typ]
	if v == nil { // an empty set of no type: no commit is of its type
		return sub, nil
	}
	if f == nil {
		sub.filter = &query.Filter{Op: query.OpAll}
	}
	t := v.Type()
	if sub.sel, err = parseSelect(t, rq.PropertySet); err != nil {
		return nil, err
	}
	if _, err := parseSelect(t, rq.ReferenceSet); err != nil {
		return nil, err
	}
	return sub, nil
}

// subscriptionResolver resolves the sets of a subscription: as loadObjects
// does, except searchAround, which Foundry does not subscribe to either
// (a set that follows links would need every build of the linked types
// too).
type subscriptionResolver struct{ *setDecoder }

func (subscriptionResolver) NearestNeighbors(string, *query.Filter, string, []float32, int) ([][]byte, []float64, error) {
	return nil, nil, wire.Err(wire.NameUnsupportedObjectSet, map[string]any{"objectSetType": "nearestNeighbors",
		"reason": "subscriptions do not support nearestNeighbors: its objects are the nearest at one snapshot"})
}

func (subscriptionResolver) SearchAround(*query.Filter, string, string) (*query.Filter, string, error) {
	return nil, "", wire.Err(wire.NameUnsupportedObjectSet, map[string]any{"objectSetType": "searchAround",
		"reason": "subscriptions do not support searchAround: subscribe to the linked type's set instead"})
}
