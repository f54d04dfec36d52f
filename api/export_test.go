package api

import (
	"context"
	"time"

	"github.com/ontoindex/ontoindex/api/wire"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// WithCursor returns page token tok with its values replaced by values,
// for the fuzz tests: a token that passes the fingerprint check of its
// request, so that what it carries reaches the engine's cursor decoder.
func WithCursor(tok string, values ...string) (string, bool) {
	t, err := wire.ParseToken(tok)
	if err != nil {
		return "", false
	}
	t.Values = values
	return t.Encode(), true
}

// TokenValues returns what page token tok carries (its cursor).
func TokenValues(tok string) ([]string, bool) {
	t, err := wire.ParseToken(tok)
	return t.Values, err == nil
}

// SetCertCheckInterval sets how often handshakes look whether the TLS
// files changed (a second in production).
func SetCertCheckInterval(s *Server, d time.Duration) { s.certs.every.Store(int64(d)) }

// SetListingsClock replaces the clock of the snapshot listings' retention.
func SetListingsClock(s *Server, now func() time.Time) { s.listings.now = now }

// HeldListings is the number of snapshot listings s holds.
func HeldListings(s *Server) int { return s.listings.held() }

// DerivedBudget is the weight of derived evaluations s holds now and the
// most it has held (server.maxDerivedObjects).
func DerivedBudget(s *Server) (held, peak int64) {
	return s.derived.held.Load(), s.derived.peak.Load()
}

// HoldDerived takes n objects of s's derived budget until release.
func HoldDerived(s *Server, n int64) (release func()) {
	release, err := s.derived.acquire(context.Background(), n, func() {})
	if err != nil {
		panic(err)
	}
	return release
}

// DerivedQueued is the number of derived evaluations that waited for
// their weight.
func DerivedQueued(s *Server) float64 { return testutil.ToFloat64(s.hm.derivedQueued) }
