package subscribebench

import (
	"encoding/json"
	"testing"
	"time"
)

// TestConn_receive feeds StreamMessages as the server writes them to a
// connection holding subscription "s1" (plan indexes 4 and 7: a server
// merges identical requests) and "s2" (index 5).
func TestConn_receive(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	newConn := func() *conn {
		return &conn{ids: map[string][]int{"s1": {4, 7}, "s2": {5}}, waiting: map[string]chan *message{}}
	}
	tests := []struct {
		name       string
		msg        string
		wantAdded  int
		deliveries []Delivery
		gaps       []Gap
		stray      int
		wantErr    bool
	}{
		{name: "a change of two objects on a merged subscription",
			msg: `{"type":"objectSetChanged","id":"s1","updates":[
				{"type":"object","state":"ADDED_OR_UPDATED","object":{"__apiName":"Customer","__primaryKey":"12","__title":"Ana","name":"Ana edit3"}},
				{"type":"object","state":"REMOVED","object":{"__apiName":"Customer","__primaryKey":13,"id":"13"}}]}`,
			wantAdded: 4,
			deliveries: []Delivery{
				{Sub: 4, Key: 12, Name: "Ana edit3", State: "ADDED_OR_UPDATED", At: at}, {Sub: 7, Key: 12, Name: "Ana edit3", State: "ADDED_OR_UPDATED", At: at},
				{Sub: 4, Key: 13, State: "REMOVED", At: at}, {Sub: 7, Key: 13, State: "REMOVED", At: at}}},
		{name: "a change of a subscription that ended", msg: `{"type":"objectSetChanged","id":"s9","updates":[]}`, stray: 1},
		{name: "a refresh", msg: `{"type":"refreshObjectSet","id":"s2","objectType":"Customer"}`, gaps: []Gap{{Sub: 5, Type: "refreshObjectSet"}}},
		{name: "a close", msg: `{"type":"subscriptionClosed","id":"s1","cause":{"type":"error","error":"x","args":[]}}`,
			gaps: []Gap{{Sub: 4, Type: "subscriptionClosed"}, {Sub: 7, Type: "subscriptionClosed"}}},
		{name: "a refresh of a subscription that ended", msg: `{"type":"refreshObjectSet","id":"s9","objectType":"Customer"}`},
		{name: "a key that is no number", msg: `{"type":"objectSetChanged","id":"s2","updates":[{"state":"REMOVED","object":{"__primaryKey":"x"}}]}`, wantErr: true},
		{name: "an answer to no request", msg: `{"type":"subscribeResponses","id":"nobody","responses":[]}`, wantErr: true},
		{name: "an unknown type", msg: `{"type":"hello","id":"s1"}`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newConn()
			var m message
			if err := json.Unmarshal([]byte(tt.msg), &m); err != nil {
				t.Fatal(err)
			}
			if added := c.receive(&m, at); added != tt.wantAdded {
				t.Errorf("added %d deliveries, want %d", added, tt.wantAdded)
			}
			if len(c.got) != len(tt.deliveries) {
				t.Fatalf("deliveries %+v, want %+v", c.got, tt.deliveries)
			}
			for i := range c.got {
				if c.got[i] != tt.deliveries[i] {
					t.Errorf("delivery %d: %+v, want %+v", i, c.got[i], tt.deliveries[i])
				}
			}
			if len(c.gaps) != len(tt.gaps) {
				t.Fatalf("gaps %+v, want %+v", c.gaps, tt.gaps)
			}
			for i := range c.gaps {
				if c.gaps[i] != tt.gaps[i] {
					t.Errorf("gap %d: %+v, want %+v", i, c.gaps[i], tt.gaps[i])
				}
			}
			if c.stray != tt.stray || (c.err != nil) != tt.wantErr {
				t.Errorf("stray %d, err %v; want %d, error %v", c.stray, c.err, tt.stray, tt.wantErr)
			}
		})
	}

	t.Run("the answer to a subscribe request", func(t *testing.T) {
		c := newConn()
		ch := make(chan *message, 1)
		c.waiting["bench-1"] = ch
		m := message{Type: "subscribeResponses", ID: "bench-1"}
		c.receive(&m, at)
		if got := <-ch; got.ID != "bench-1" || len(c.waiting) != 0 || c.err != nil {
			t.Errorf("answer %+v, waiting %v, err %v", got, c.waiting, c.err)
		}
	})
}
