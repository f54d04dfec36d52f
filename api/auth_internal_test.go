package api

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/ontoindex/ontoindex/api/serverconfig"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/objects"
)

// configEngine is an Engine with a config and nothing to read.
type configEngine struct{ cfg *config.Config }

func (e configEngine) Config() *config.Config { return e.cfg }
func (e configEngine) Types() []string        { return nil }
func (e configEngine) NotReady() []string     { return nil }
func (e configEngine) ObjectType(context.Context, string) (*objects.Type, error) {
	return nil, indexer.ErrUnknownType
}
func (e configEngine) View(string) (*indexer.View, error) { return nil, errors.New("no views") }
func (e configEngine) Watch(func(indexer.Commit)) func()  { return func() {} }

func TestServer_requireAdmin(t *testing.T) {
	cfg := config.Default()
	cfg.Auth.Tokens = []serverconfig.Token{
		{Name: "app", Token: "app-token-0123", ObjectTypes: []string{"*"}},
		{Name: "ops", Token: "ops-token-0123", ObjectTypes: []string{"*"}, Admin: true},
	}
	s, err := New(configEngine{cfg}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := chi.NewRouter()
	r.With(s.guard, s.requireAdmin).Post("/api/indexer/v1/build", func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(PrincipalFrom(r.Context()).Name))
	})
	for _, tt := range []struct {
		token  string
		status int
		body   string
	}{
		{"ops-token-0123", 200, "ops"},
		{"app-token-0123", 403, "PermissionDenied"},
		{"", 401, "MissingCredentials"},
	} {
		req := httptest.NewRequest(http.MethodPost, "/api/indexer/v1/build", nil)
		if tt.token != "" {
			req.Header.Set("Authorization", "Bearer "+tt.token)
		}
		rec := httptest.NewRecorder()
		r.ServeHTTP(rec, req)
		if rec.Code != tt.status || !strings.Contains(rec.Body.String(), tt.body) {
			t.Errorf("token %q: %d %s, want %d %s", tt.token, rec.Code, rec.Body, tt.status, tt.body)
		}
	}
}
