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

func TestErrorTable(t *testing.T) {
	for name, k := range errorTable {
		status, ok := conjureStatus[k.code]
		if !ok || status == 0 {
			t.Errorf("%s: code %s has no status", name, k.code)
		}
		if k.doc == "" {
			t.Errorf("%s: no description", name)
		}
		if e := apiErr(name, nil); e.Status() != status || e.Code() != k.code {
			t.Errorf("%s: %d %s", name, e.Status(), e.Code())
		}
	}
	if e := apiErr(errorName("NoSuchError"), nil); e.Code() != codeInternal || e.Status() != 500 {
		t.Errorf("unknown names are internal: %s %d", e.Code(), e.Status())
	}
	want := map[errorName]int{nameObjectTypeNotFound: 404, nameObjectNotFound: 404, nameOntologyNotFound: 404, namePropertiesNotFound: 404,
		namePropertiesNotSearchable: 400, namePropertiesNotSortable: 400, nameMalformedPropertyFilters: 400, nameInvalidRangeQuery: 400,
		nameDuplicateOrderBy: 400, nameInvalidPageSize: 400, nameInvalidPageToken: 400, nameObjectTypeNotSynced: 409,
		nameMissingCredentials: 401, nameInvalidCredentials: 401, namePermissionDenied: 403, nameRequestEntityTooLarge: 413}
	for name, status := range want {
		if got := apiErr(name, nil).Status(); got != status {
			t.Errorf("%s: status %d, want %d", name, got, status)
		}
	}
}
