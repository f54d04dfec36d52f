package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
)

// The messages of live object set subscriptions, as @osdk/foundry.ontologies
// 2.57.0 types them: the client sends ObjectSetStreamSubscribeRequests, the
// server StreamMessage (subscribeResponses, objectSetChanged,
// refreshObjectSet, subscriptionClosed).

// SubscribeRequests is ObjectSetStreamSubscribeRequests: every subscription
// the client wants, replacing the list of its previous message.
type SubscribeRequests struct {
	ID       string             `json:"id"`
	Requests []SubscribeRequest `json:"requests"`
}

// SubscribeRequest is ObjectSetStreamSubscribeRequest.
type SubscribeRequest struct {
	ObjectSet                    json.RawMessage `json:"objectSet"`
	PropertySet                  []string        `json:"propertySet"`
	ReferenceSet                 []string        `json:"referenceSet"`
	ObjectLoadingResponseOptions *struct {
		ShouldLoadObjectRids bool `json:"shouldLoadObjectRids"`
	} `json:"objectLoadingResponseOptions"`
}

// LoadRids reports whether the request asks for the objects' rids.
func (r *SubscribeRequest) LoadRids() bool {
	return r.ObjectLoadingResponseOptions != nil && r.ObjectLoadingResponseOptions.ShouldLoadObjectRids
}

// Identity is what makes two requests the same subscription: the object
// set (compacted), the properties and the rid option. Duplicate requests
// get the same subscription id.
func (r *SubscribeRequest) Identity() string {
	var b bytes.Buffer
	if err := json.Compact(&b, r.ObjectSet); err != nil {
		b.Reset()
		b.Write(r.ObjectSet)
	}
	b.WriteByte(0)
	for _, p := range r.PropertySet {
		b.WriteString(p)
		b.WriteByte(',')
	}
	b.WriteByte(0)
	for _, p := range r.ReferenceSet {
		b.WriteString(p)
		b.WriteByte(',')
	}
	if r.LoadRids() {
		b.WriteString("\x00rids")
	}
	return b.String()
}

// DecodeSubscribeRequests decodes a subscribe message. Its errors name the
// field that is wrong.
func DecodeSubscribeRequests(b []byte) (*SubscribeRequests, error) {
	var m SubscribeRequests
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&m); err != nil {
		return nil, Err(NameMalformedRequestBody, map[string]any{"reason": "a subscribe message is ObjectSetStreamSubscribeRequests: " + err.Error()})
	}
	if dec.More() {
		return nil, Err(NameMalformedRequestBody, map[string]any{"reason": "a subscribe message holds one JSON value"})
	}
	if m.ID == "" {
		return nil, Err(NameMalformedRequestBody, map[string]any{"reason": "id is required: the responses name it"})
	}
	for i := range m.Requests {
		if IsNull(m.Requests[i].ObjectSet) {
			return nil, Err(NameMalformedRequestBody, map[string]any{"reason": fmt.Sprintf("requests[%d].objectSet is required", i)})
		}
	}
	return &m, nil
}

// SubscribeResponse is one ObjectSetSubscribeResponse: success with the
// subscription's id, or error.
type SubscribeResponse struct {
	ID  string
	Err *Error
}

// AppendSubscribeResponses writes a subscribeResponses message, one
// response per request in request order.
func AppendSubscribeResponses(b []byte, requestID string, responses []SubscribeResponse) []byte {
	b = append(b, `{"type":"subscribeResponses","id":`...)
	b = appendJSONString(b, requestID)
	b = append(b, `,"responses":[`...)
	for i, r := range responses {
		if i > 0 {
			b = append(b, ',')
		}
		if r.Err != nil {
			b = append(b, `{"type":"error","errors":[`...)
			b = appendStreamError(b, r.Err)
			b = append(b, "]}"...)
			continue
		}
		b = append(b, `{"type":"success","id":`...)
		b = append(appendJSONString(b, r.ID), '}')
	}
	return append(b, "]}"...)
}

// AppendObjectSetChanged writes an objectSetChanged message of a
// subscription around updates: the JSON array elements of its object
// updates, already written (AppendObjectUpdate).
func AppendObjectSetChanged(b []byte, subscriptionID string, updates []byte) []byte {
	b = append(b, `{"type":"objectSetChanged","id":`...)
	b = appendJSONString(b, subscriptionID)
	b = append(b, `,"updates":[`...)
	b = append(b, updates...)
	return append(b, "]}"...)
}

// Object states of ObjectUpdate.
const (
	StateAddedOrUpdated = "ADDED_OR_UPDATED"
	StateRemoved        = "REMOVED"
)

// AppendObjectUpdate writes one ObjectUpdate: the object (JSON, as
// loadObjects renders it) and its state.
func AppendObjectUpdate(b []byte, state string, object []byte) []byte {
	b = append(b, `{"type":"object","state":"`...)
	b = append(b, state...)
	b = append(b, `","object":`...)
	b = append(b, object...)
	return append(b, '}')
}

// AppendRefreshObjectSet writes a refreshObjectSet message: the client
// must reload the subscription's set (its onOutOfDate).
func AppendRefreshObjectSet(b []byte, subscriptionID, objectType string) []byte {
	b = append(b, `{"type":"refreshObjectSet","id":`...)
	b = appendJSONString(b, subscriptionID)
	b = append(b, `,"objectType":`...)
	b = appendJSONString(b, objectType)
	return append(b, '}')
}

// AppendSubscriptionClosed writes a subscriptionClosed message whose cause
// is an error.
func AppendSubscriptionClosed(b []byte, subscriptionID string, cause *Error) []byte {
	b = append(b, `{"type":"subscriptionClosed","id":`...)
	b = appendJSONString(b, subscriptionID)
	b = append(b, `,"cause":{"type":"error",`...)
	e := appendStreamError(nil, cause)
	b = append(b, e[1:]...) // the error's fields after its opening brace
	return append(b, '}')
}

// appendStreamError writes an Error of the subscription messages:
// {"error": name, "args": [{"name", "value"}]}, the arguments being the
// error's parameters and its message, in name order.
func appendStreamError(b []byte, e *Error) []byte {
	b = append(b, `{"error":`...)
	b = appendJSONString(b, string(e.Name))
	b = append(b, `,"args":[`...)
	names := make([]string, 0, len(e.Params)+1)
	for k := range e.Params {
		names = append(names, k)
	}
	slices.Sort(names)
	args := make([][2]string, 0, len(names)+1)
	for _, k := range names {
		args = append(args, [2]string{k, argValue(e.Params[k])})
	}
	if _, ok := e.Params["message"]; !ok {
		args = append(args, [2]string{"message", e.Message()})
	}
	for i, a := range args {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":`...)
		b = appendJSONString(b, a[0])
		b = append(b, `,"value":`...)
		b = append(appendJSONString(b, a[1]), '}')
	}
	return append(b, "]}"...)
}

// argValue renders a parameter as the string an Arg holds.
func argValue(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	j, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(j)
}

// appendJSONString writes s as a JSON string.
func appendJSONString(b []byte, s string) []byte {
	j, _ := json.Marshal(s) // a string always marshals
	return append(b, j...)
}
