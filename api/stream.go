package api

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/coder/websocket"
	"github.com/go-chi/chi/v5"
	"github.com/ontoindex/ontoindex/api/wire"
)

// Live object set subscriptions: the websocket @osdk/client 2.22.0's
// subscribe opens, with the messages of @osdk/foundry.ontologies 2.57.0
// (wire/stream.go). The hub (stream_hub.go) pushes the changes of every
// build; stream_conn.go holds a connection, stream_subscribe.go its
// subscribe messages.

// subscriptionsPath is the route of the subscription websocket.
const subscriptionsPath = "/api/v2/ontologySubscriptions/ontologies/{ontology}/streamSubscriptions"

// bearerProtocol prefixes the websocket sub-protocol that carries the
// token: browsers cannot set headers on a websocket, so @osdk/client
// offers "Bearer-<token>", and its websocket library requires the server
// to choose it.
const bearerProtocol = "Bearer-"

// routeSubscriptions registers the websocket. It is outside the admission
// slots: a subscription holds its connection for as long as it lives.
func (s *Server) routeSubscriptions(r chi.Router) {
	r.Get(subscriptionsPath, s.streamSubscriptions)
}

// offeredToken returns the token of the Bearer sub-protocol the client
// offered, and the protocol itself, which the server must echo.
func offeredToken(r *http.Request) (token, protocol string) {
	for _, h := range r.Header.Values("Sec-WebSocket-Protocol") {
		for _, p := range strings.Split(h, ",") {
			p = strings.TrimSpace(p)
			if strings.HasPrefix(p, bearerProtocol) {
				return strings.TrimPrefix(p, bearerProtocol), p
			}
		}
	}
	return "", ""
}

// streamSubscriptions is GET streamSubscriptions: it authenticates,
// upgrades and serves the connection until it ends.
func (s *Server) streamSubscriptions(w http.ResponseWriter, r *http.Request) {
	token, protocol := offeredToken(r)
	header := r.Header.Get("Authorization")
	if token != "" {
		header = "Bearer " + token
	}
	p, aerr := s.auth.check(header)
	if aerr != nil {
		s.writeError(w, r, aerr)
		return
	}
	ctx := r.Context()
	info := requestInfoFrom(ctx)
	if info == nil {
		info = &requestInfo{}
		ctx = context.WithValue(ctx, keyRequestInfo, info)
	}
	info.principal = p
	r = r.WithContext(ctx)
	if err := s.checkOntology(r); err != nil {
		s.writeError(w, r, err)
		return
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	c := &streamConn{hub: s.stream, r: r, cancel: cancel, subs: map[string]*subscription{}, byID: map[string]*subscription{},
		wake: make(chan struct{}, 1)}
	switch ok, full := s.stream.add(c); {
	case full:
		s.writeError(w, r, wire.Err(wire.NameSubscriptionLimitExceeded, map[string]any{"reason": "the server holds server.subscriptions.maxConnections subscription connections", "limit": s.cfg.Subscriptions.MaxConnections}))
		return
	case !ok:
		s.writeError(w, r, wire.Err(wire.NameOperationNotAvailable, map[string]any{"reason": "subscriptions are served by Server.Serve, which is not running"}))
		return
	}
	defer func() { s.stream.remove(c, c.count()) }()

	// The server's read and write deadlines bound one request; a websocket
	// lives on. Its own timeouts are the heartbeat and the write timeout.
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Time{})
	_ = rc.SetWriteDeadline(time.Time{})
	var protocols []string
	if protocol != "" {
		protocols = []string{protocol}
	}
	ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: protocols, OriginPatterns: s.cfg.Subscriptions.AllowedOrigins})
	if err != nil {
		s.log.Debug("subscription: websocket upgrade refused", "error", err)
		return // Accept wrote the response
	}
	c.ws = ws
	ws.SetReadLimit(int64(s.cfg.Subscriptions.MaxMessageBytes))
	s.log.Debug("subscription connection opened", "token", p.Name)

	writerDone := make(chan struct{})
	go func() {
		defer close(writerDone)
		c.write(ctx)
	}()
	err = c.read(ctx)
	cancel()
	<-writerDone
	_ = ws.CloseNow()
	s.log.Debug("subscription connection closed", "token", p.Name, "reason", err)
}

// read reads subscribe messages until the connection ends.
func (c *streamConn) read(ctx context.Context) error {
	for {
		typ, data, err := c.ws.Read(ctx)
		if err != nil {
			return err
		}
		if typ != websocket.MessageText {
			_ = c.ws.Close(websocket.StatusUnsupportedData, "send ObjectSetStreamSubscribeRequests as JSON text")
			return errors.New("binary message")
		}
		m, err := wire.DecodeSubscribeRequests(data)
		if err != nil {
			// Without a request id there is no response to carry the error.
			reason := toAPIError(ctx, err).Message()
			if len(reason) > 120 { // a close reason fits in a control frame
				reason = reason[:120]
			}
			_ = c.ws.Close(websocket.StatusInvalidFramePayloadData, reason)
			return err
		}
		c.subscribe(ctx, m)
	}
}
