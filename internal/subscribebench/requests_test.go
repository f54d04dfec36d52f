package subscribebench

import (
	"encoding/json"
	"testing"
)

func TestPlan(t *testing.T) {
	const rows = 1000
	all := []Kind{KindBase, KindMatch, KindNever}
	tests := []struct {
		name       string
		n, conns   int
		kinds      []Kind
		perConn    []int
		wantByKind map[Kind]int
		distinct   int // different requests over all connections
	}{
		{name: "one per connection", n: 4, conns: 4, kinds: all, perConn: []int{1, 1, 1, 1},
			wantByKind: map[Kind]int{KindBase: 2, KindMatch: 1, KindNever: 1}, distinct: 3},
		{name: "many per connection", n: 10, conns: 3, kinds: all, perConn: []int{4, 3, 3},
			wantByKind: map[Kind]int{KindBase: 4, KindMatch: 3, KindNever: 3}, distinct: 10},
		{name: "16 base subscriptions on one connection differ", n: 16, conns: 1, kinds: []Kind{KindBase}, perConn: []int{16},
			wantByKind: map[Kind]int{KindBase: 16}, distinct: 16},
		{name: "filters only", n: 300, conns: 2, kinds: []Kind{KindMatch, KindNever}, perConn: []int{150, 150},
			wantByKind: map[Kind]int{KindMatch: 150, KindNever: 150}, distinct: 300},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := plan(tt.n, tt.conns, rows, tt.kinds)
			if len(p) != tt.conns {
				t.Fatalf("%d connections, want %d", len(p), tt.conns)
			}
			byKind := map[Kind]int{}
			seenIndex := map[int]bool{}
			for c, subs := range p {
				if len(subs) != tt.perConn[c] {
					t.Errorf("connection %d holds %d subscriptions, want %d", c, len(subs), tt.perConn[c])
				}
				requests := map[string]bool{}
				for _, s := range subs {
					byKind[s.kind]++
					if seenIndex[s.index] || s.index < 0 || s.index >= tt.n {
						t.Errorf("index %d repeated or out of range", s.index)
					}
					seenIndex[s.index] = true
					b, err := json.Marshal(s.request)
					if err != nil {
						t.Fatal(err)
					}
					if requests[string(b)] {
						t.Errorf("connection %d: request %s twice", c, b)
					}
					requests[string(b)] = true
					mustHoldEdits(t, s, rows)
				}
			}
			for k, n := range tt.wantByKind {
				if byKind[k] != n {
					t.Errorf("%d subscriptions of kind %s, want %d", byKind[k], k, n)
				}
			}
			if got := distinctSets(p); got != tt.distinct {
				t.Errorf("%d distinct sets, want %d", got, tt.distinct)
			}
			kinds := kindsOf(p)
			for _, subs := range p {
				for _, s := range subs {
					if kinds[s.index] != s.kind {
						t.Errorf("kindsOf[%d] = %s, want %s", s.index, kinds[s.index], s.kind)
					}
				}
			}
		})
	}
}

// mustHoldEdits checks what a subscription's set holds of the keys the
// writer edits: all of them (base, match) or none (never); and that it
// asks for the name, which carries the edit's mark.
func mustHoldEdits(t *testing.T, s subscription, rows int) {
	t.Helper()
	r := s.request
	if len(r.PropertySet) == 0 || r.PropertySet[0] != "name" {
		t.Errorf("subscription %d asks for %v, without the name first", s.index, r.PropertySet)
	}
	half := editedKeys(rows)
	holds := func(key int64) bool {
		w := r.ObjectSet.Where
		switch {
		case r.ObjectSet.Type == "base":
			return true
		case w.Type == "lt":
			return key < w.Value
		case w.Type == "gte":
			return key >= w.Value
		}
		t.Fatalf("unexpected set %+v", r.ObjectSet)
		return false
	}
	for _, key := range []int64{0, half / 2, half - 1} {
		if holds(key) != s.kind.expects() {
			t.Errorf("subscription %d (%s) holds edited key %d: %v", s.index, s.kind, key, holds(key))
		}
	}
	if s.kind == KindNever && !holds(int64(rows)-1) {
		t.Errorf("subscription %d (never) holds no object at all", s.index)
	}
}

func TestParseKinds(t *testing.T) {
	tests := []struct {
		in      string
		want    []Kind
		wantErr bool
	}{
		{in: "base,match,never", want: []Kind{KindBase, KindMatch, KindNever}},
		{in: " never ", want: []Kind{KindNever}},
		{in: "base,all", wantErr: true},
		{in: "", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseKinds(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("%v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("%v, want %v", got, tt.want)
				}
			}
		})
	}
}
