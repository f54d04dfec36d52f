package api

import (
	"encoding/json"
	"time"

	"github.com/ontoindex/ontoindex/api/wire"
	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// whereDecoder is a decoder of the where clauses of one request, with the
// configured limits and the server's clock (relativeDateRange counts from
// it).
func (s *Server) whereDecoder(t *objects.Type) *wire.WhereDecoder {
	return &wire.WhereDecoder{T: t, MaxDepth: s.cfg.MaxWhereDepth, MaxClauses: s.cfg.MaxWhereClauses, Now: s.now}
}

// where decodes the where clause of a request on type t; an absent or
// null clause is nil (every object).
func (s *Server) where(t *objects.Type, raw json.RawMessage) (*query.Filter, error) {
	if wire.IsNull(raw) {
		return nil, nil
	}
	return s.whereDecoder(t).Decode(raw, 1)
}

// clockOf is the clock of Options: Clock, or time.Now without one.
func clockOf(opts Options) func() time.Time {
	if opts.Clock != nil {
		return opts.Clock
	}
	return time.Now
}
