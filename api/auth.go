package api

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"net/http"
	"strings"

	"github.com/ontoindex/ontoindex/api/serverconfig"
	"github.com/ontoindex/ontoindex/api/wire"
)

// Principal is who a request runs as: a configured token, or the
// anonymous principal of a server without tokens (loopback only).
type Principal struct {
	// Name is the token's name from the config; it appears in logs.
	Name string
	// Admin tokens may call the ops POST endpoints.
	Admin bool
	all   bool
	types map[string]bool
}

// CanSee reports whether the principal may see an object type. Types it
// may not see are reported as not found everywhere.
func (p *Principal) CanSee(objectType string) bool { return p.all || p.types[objectType] }

// PrincipalFrom returns the principal of an authenticated request (nil
// before guard, middleware.go, authenticated it).
func PrincipalFrom(ctx context.Context) *Principal {
	if info := requestInfoFrom(ctx); info != nil {
		return info.principal
	}
	return nil
}

type authToken struct {
	digest [sha256.Size]byte
	p      *Principal
}

// authenticator checks bearer tokens against the SHA-256 digests of the
// configured tokens in constant time: the digest of the presented token is
// compared with every configured digest, whichever matches.
type authenticator struct {
	tokens []authToken
	anon   *Principal // the principal of every request when there are no tokens
}

func newAuthenticator(cfg serverconfig.Auth) (*authenticator, error) {
	anon := anonymous
	a := &authenticator{anon: &anon}
	for i, t := range cfg.Tokens {
		d, err := t.Digest()
		if err != nil {
			return nil, fmt.Errorf("auth.tokens[%d]: %w", i, err)
		}
		p := &Principal{Name: t.Name, Admin: t.Admin, all: t.AllTypes(), types: map[string]bool{}}
		for _, name := range t.ObjectTypes {
			p.types[name] = true
		}
		a.tokens = append(a.tokens, authToken{digest: d, p: p})
	}
	return a, nil
}

func (a *authenticator) anonymous() bool { return len(a.tokens) == 0 }

var anonymous = Principal{Name: "anonymous", Admin: true, all: true}

// check returns the principal of an Authorization header value.
func (a *authenticator) check(header string) (*Principal, *wire.Error) {
	if a.anonymous() {
		return a.anon, nil
	}
	scheme, token, ok := strings.Cut(strings.TrimSpace(header), " ")
	if header == "" || !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
		return nil, wire.Err(wire.NameMissingCredentials, map[string]any{"reason": "send Authorization: Bearer <token>"})
	}
	d := sha256.Sum256([]byte(strings.TrimSpace(token)))
	var found *Principal
	for _, t := range a.tokens {
		if subtle.ConstantTimeCompare(d[:], t.digest[:]) == 1 {
			found = t.p
		}
	}
	if found == nil {
		return nil, wire.Err(wire.NameInvalidCredentials, nil)
	}
	return found, nil
}

// requireAdmin refuses principals that are not admin with 403. Use it
// after guard, on the ops POST endpoints.
func (s *Server) requireAdmin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p := PrincipalFrom(r.Context()); p == nil || !p.Admin {
			s.writeError(w, r, wire.Err(wire.NamePermissionDenied, map[string]any{"reason": "this endpoint needs an admin token"}))
			return
		}
		next.ServeHTTP(w, r)
	})
}
