package restcatalog

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
)

// TokenPath is the Gate's OAuth2 token endpoint, the oauth2-server-uri of
// its clients (not the catalog's own /v1/oauth/tokens, so that a client
// that ignores oauth2-server-uri is refused).
const TokenPath = "/oauth2/token"

// Gate is an authenticating reverse proxy in front of a Server, as the
// gateway or identity provider of a deployment: the fixture authenticates
// no one, the Gate does. It issues a bearer token to one OAuth2 client
// (client credentials grant, with a required scope) and passes on only
// catalog requests that carry a token it issued and has not revoked; the
// others get 401 with an OAuth2 error body, as the Iceberg REST spec says.
type Gate struct {
	srv          *httptest.Server
	clientID     string
	clientSecret string
	scope        string

	mu      sync.Mutex
	issued  []string
	granted []url.Values // the token requests it answered with a token
	refused int          // catalog requests refused
}

// MustGate starts a Gate for the client clientID:clientSecret, which must
// ask for scope, in front of s; it stops when the test ends.
func MustGate(tb testing.TB, s *Server, clientID, clientSecret, scope string) *Gate {
	tb.Helper()
	target, err := url.Parse(s.URI())
	if err != nil {
		tb.Fatal(err)
	}
	g := &Gate{clientID: clientID, clientSecret: clientSecret, scope: scope}
	proxy := httputil.NewSingleHostReverseProxy(target)
	g.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == TokenPath {
			g.token(w, r)
			return
		}
		if !g.authorized(r) {
			g.mu.Lock()
			g.refused++
			g.mu.Unlock()
			writeError(w, http.StatusUnauthorized, "NotAuthorizedException", "Not authorized: the bearer token is missing, unknown or revoked")
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	g.srv.Listener = ln
	g.srv.Start()
	tb.Cleanup(g.srv.Close)
	return g
}

// URI is the gate's base URL, the uri of clients that go through it.
func (g *Gate) URI() string { return g.srv.URL }

// TokenURI is the gate's token endpoint, the oauth2-server-uri of its
// clients.
func (g *Gate) TokenURI() string { return g.srv.URL + TokenPath }

// RevokeAll revokes every token issued so far: the next catalog request
// that carries one is refused.
func (g *Gate) RevokeAll() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.issued = nil
}

// Granted are the form values of the token requests answered with a token.
func (g *Gate) Granted() []url.Values {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.granted)
}

// Refused is how many catalog requests the gate refused.
func (g *Gate) Refused() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.refused
}

func (g *Gate) authorized(r *http.Request) bool {
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Contains(g.issued, token)
}

// token answers an OAuth2 token request (RFC 6749 section 4.4, the client's
// id and secret in the form, as Iceberg's clients send them).
func (g *Gate) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil || r.Method != http.MethodPost {
		writeOAuthError(w, http.StatusBadRequest, "invalid_request")
		return
	}
	id, secret := r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	if basicID, basicSecret, ok := r.BasicAuth(); ok {
		id, secret = basicID, basicSecret
	}
	switch {
	case r.PostForm.Get("grant_type") != "client_credentials":
		writeOAuthError(w, http.StatusBadRequest, "unsupported_grant_type")
	case id != g.clientID || secret != g.clientSecret:
		writeOAuthError(w, http.StatusUnauthorized, "invalid_client")
	case !slices.Contains(strings.Fields(r.PostForm.Get("scope")), g.scope):
		writeOAuthError(w, http.StatusBadRequest, "invalid_scope")
	default:
		b := make([]byte, 16)
		_, _ = rand.Read(b)
		token := hex.EncodeToString(b)
		g.mu.Lock()
		g.issued = append(g.issued, token)
		g.granted = append(g.granted, r.PostForm)
		g.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"access_token": token, "token_type": "bearer", "expires_in": 3600,
			"issued_token_type": "urn:ietf:params:oauth:token-type:access_token",
		})
	}
}

func writeOAuthError(w http.ResponseWriter, status int, code string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": code})
}

// writeError is an error of the Iceberg REST spec (ErrorModel).
func writeError(w http.ResponseWriter, status int, typ, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"error": map[string]any{"message": message, "type": typ, "code": status},
	})
}
