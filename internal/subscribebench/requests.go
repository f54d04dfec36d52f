package subscribebench

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ontoindex/ontoindex/internal/searchbench"
)

// Wire shapes of ObjectSetStreamSubscribeRequests (@osdk/foundry.ontologies
// 2.57.0), reduced to what the bench sends.
type (
	where struct {
		Type  string `json:"type"`
		Field string `json:"field"`
		Value int64  `json:"value"`
	}
	objectSet struct {
		Type       string     `json:"type"`
		ObjectType string     `json:"objectType,omitempty"`
		ObjectSet  *objectSet `json:"objectSet,omitempty"`
		Where      *where     `json:"where,omitempty"`
	}
	loadingOptions struct {
		ShouldLoadObjectRids bool `json:"shouldLoadObjectRids"`
	}
	subscribeRequest struct {
		ObjectSet    objectSet      `json:"objectSet"`
		PropertySet  []string       `json:"propertySet"`
		ReferenceSet []string       `json:"referenceSet"`
		Options      loadingOptions `json:"objectLoadingResponseOptions"`
	}
	subscribeRequests struct {
		ID       string             `json:"id"`
		Requests []subscribeRequest `json:"requests"`
	}
)

// subscription is one subscription of the plan.
type subscription struct {
	index   int // in the plan, over all connections
	kind    Kind
	request subscribeRequest
}

// ParseKinds reads a comma-separated list of kinds.
func ParseKinds(s string) ([]Kind, error) {
	var kinds []Kind
	for _, f := range strings.Split(s, ",") {
		k := Kind(strings.TrimSpace(f))
		switch k {
		case KindBase, KindMatch, KindNever:
			kinds = append(kinds, k)
		default:
			return nil, fmt.Errorf("unknown subscription kind %q (kinds: base, match, never)", f)
		}
	}
	return kinds, nil
}

// editedKeys is the bound of the keys the writer edits: [0, rows/2).
// Filters of kind match hold all of them, filters of kind never none.
func editedKeys(rows int) int64 { return int64(rows / 2) }

// baseProperties are the optional properties of base subscriptions; each
// subset is another propertySet, so that the base subscriptions of one
// connection differ (a server may merge identical requests).
var baseProperties = []string{"city", "balance", "visits", "active"}

// plan spreads n subscriptions over connections connections, round robin:
// subscription i is of kinds[i % len(kinds)] and goes on connection
// i % connections. Every request names the name property, which carries
// the edit's mark. Requests on one connection differ from each other as
// long as a connection holds at most 16 base subscriptions; beyond that
// base requests repeat.
func plan(n, connections, rows int, kinds []Kind) [][]subscription {
	out := make([][]subscription, connections)
	half := editedKeys(rows)
	base := func(ot string) *objectSet { return &objectSet{Type: "base", ObjectType: ot} }
	bases := make([]int, connections) // base subscriptions so far, per connection
	for i := range n {
		c := i % connections
		s := subscription{index: i, kind: kinds[i%len(kinds)]}
		r := subscribeRequest{PropertySet: []string{"name"}, ReferenceSet: []string{}, Options: loadingOptions{ShouldLoadObjectRids: true}}
		// i/connections tells the subscriptions of a connection apart.
		j := int64(i / connections)
		switch s.kind {
		case KindBase:
			r.ObjectSet = *base(searchbench.CustomerType)
			for b, p := range baseProperties {
				if bases[c]&(1<<b) != 0 {
					r.PropertySet = append(r.PropertySet, p)
				}
			}
			bases[c]++
		case KindMatch: // id < half + j: every edited key
			r.ObjectSet = objectSet{Type: "filter", ObjectSet: base(searchbench.CustomerType), Where: &where{Type: "lt", Field: "id", Value: half + j}}
			r.PropertySet = append(r.PropertySet, "visits")
		case KindNever: // id >= half + j: objects, none of them edited
			r.ObjectSet = objectSet{Type: "filter", ObjectSet: base(searchbench.CustomerType), Where: &where{Type: "gte", Field: "id", Value: half + j}}
			r.PropertySet = append(r.PropertySet, "visits")
		}
		s.request = r
		out[c] = append(out[c], s)
	}
	return out
}

// kindsOf lists the kinds of the plan's subscriptions by index.
func kindsOf(p [][]subscription) []Kind {
	var n int
	for _, subs := range p {
		n += len(subs)
	}
	kinds := make([]Kind, n)
	for _, subs := range p {
		for _, s := range subs {
			kinds[s.index] = s.kind
		}
	}
	return kinds
}

// distinctSets counts the different requests of the plan (object set and
// properties): the server evaluates each build once per distinct set, and
// writes one message per subscription.
func distinctSets(p [][]subscription) int {
	seen := map[string]bool{}
	for _, subs := range p {
		for _, s := range subs {
			b, _ := json.Marshal(s.request) // plain structs: cannot fail
			seen[string(b)] = true
		}
	}
	return len(seen)
}
