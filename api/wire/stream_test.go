package wire_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ontoindex/ontoindex/api/wire"
)

func TestDecodeSubscribeRequests(t *testing.T) {
	for _, tt := range []struct {
		name, in, wantErr string
		requests          int
	}{
		{name: "osdk client", in: `{"id":"r1","requests":[{"objectSet":{"type":"base","objectType":"Employee"},"propertySet":["name"],"referenceSet":[],"objectLoadingResponseOptions":{"shouldLoadObjectRids":true}}]}`, requests: 1},
		{name: "empty list", in: `{"id":"r1","requests":[]}`},
		{name: "no id", in: `{"requests":[]}`, wantErr: "id is required"},
		{name: "no object set", in: `{"id":"r","requests":[{"propertySet":[]}]}`, wantErr: "requests[0].objectSet is required"},
		{name: "not json", in: `{"id":`, wantErr: "ObjectSetStreamSubscribeRequests"},
		{name: "two values", in: `{"id":"a","requests":[]} {}`, wantErr: "one JSON value"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, err := wire.DecodeSubscribeRequests([]byte(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error()+errReason(err), tt.wantErr) {
					t.Fatalf("error %v, want one saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || len(m.Requests) != tt.requests {
				t.Fatalf("%+v, %v", m, err)
			}
		})
	}
}

func errReason(err error) string {
	if we, ok := err.(*wire.Error); ok {
		return we.Message()
	}
	return ""
}

func TestSubscribeRequest_Identity(t *testing.T) {
	dec := func(s string) wire.SubscribeRequest {
		var r wire.SubscribeRequest
		if err := json.Unmarshal([]byte(s), &r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	a := dec(`{"objectSet":{"type":"base", "objectType":"E"},"propertySet":["a","b"]}`)
	b := dec(`{"objectSet":{"type":"base","objectType":"E"} ,"propertySet":["a","b"]}`)
	c := dec(`{"objectSet":{"type":"base","objectType":"E"},"propertySet":["ab"]}`)
	d := dec(`{"objectSet":{"type":"base","objectType":"E"},"propertySet":["a","b"],"objectLoadingResponseOptions":{"shouldLoadObjectRids":true}}`)
	if a.Identity() != b.Identity() {
		t.Error("whitespace changed the identity")
	}
	if a.Identity() == c.Identity() || a.Identity() == d.Identity() {
		t.Error("other properties or rids kept the identity")
	}
}

// The messages are JSON of the shapes @osdk/client reads.
func TestAppendStreamMessages(t *testing.T) {
	notFound := wire.Err(wire.NameObjectTypeNotFound, map[string]any{"objectType": "X\"<", "n": 3})
	for _, tt := range []struct {
		name string
		b    []byte
		want string
	}{
		{"responses", wire.AppendSubscribeResponses(nil, "r1", []wire.SubscribeResponse{{ID: "s1"}, {Err: notFound}}),
			`{"type":"subscribeResponses","id":"r1","responses":[{"type":"success","id":"s1"},{"type":"error","errors":[{"error":"ObjectTypeNotFound","args":[{"name":"n","value":"3"},{"name":"objectType","value":"X\"\u003c"},{"name":"message","value":"ObjectTypeNotFound"}]}]}]}`},
		{"changed", wire.AppendObjectSetChanged(nil, "s1", wire.AppendObjectUpdate(nil, wire.StateRemoved, []byte(`{"__apiName":"E","__primaryKey":1}`))),
			`{"type":"objectSetChanged","id":"s1","updates":[{"type":"object","state":"REMOVED","object":{"__apiName":"E","__primaryKey":1}}]}`},
		{"refresh", wire.AppendRefreshObjectSet(nil, "s1", "E"), `{"type":"refreshObjectSet","id":"s1","objectType":"E"}`},
		{"closed", wire.AppendSubscriptionClosed(nil, "s1", wire.Err(wire.NameObjectTypeNotFound, nil)),
			`{"type":"subscriptionClosed","id":"s1","cause":{"type":"error","error":"ObjectTypeNotFound","args":[{"name":"message","value":"ObjectTypeNotFound"}]}}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if string(tt.b) != tt.want {
				t.Errorf("got  %s\nwant %s", tt.b, tt.want)
			}
			if !json.Valid(tt.b) {
				t.Errorf("not JSON: %s", tt.b)
			}
		})
	}
}

// FuzzDecodeSubscribeRequests: any bytes decode or fail with an API
// error, never panic; a decoded message's requests all have an object set
// and an identity that survives re-encoding.
func FuzzDecodeSubscribeRequests(f *testing.F) {
	f.Add([]byte(`{"id":"r1","requests":[{"objectSet":{"type":"base","objectType":"Employee"},"propertySet":["name"],"referenceSet":[],"objectLoadingResponseOptions":{"shouldLoadObjectRids":true}}]}`))
	f.Add([]byte(`{"id":"r","requests":[{"objectSet":null}]}`))
	f.Add([]byte(`{"id":"","requests":[]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := wire.DecodeSubscribeRequests(b)
		if err != nil {
			if _, ok := err.(*wire.Error); !ok {
				t.Fatalf("error %T %v is not an API error", err, err)
			}
			return
		}
		if m.ID == "" {
			t.Fatal("decoded without an id")
		}
		for i := range m.Requests {
			r := &m.Requests[i]
			if wire.IsNull(r.ObjectSet) {
				t.Fatalf("request %d without an object set", i)
			}
			var again bytes.Buffer
			enc := json.NewEncoder(&again)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(r); err != nil {
				t.Fatal(err)
			}
			var r2 wire.SubscribeRequest
			if err := json.Unmarshal(again.Bytes(), &r2); err != nil {
				t.Fatal(err)
			}
			if r2.Identity() != r.Identity() {
				t.Fatalf("identity changed on re-encoding: %q, %q", r.Identity(), r2.Identity())
			}
		}
	})
}
