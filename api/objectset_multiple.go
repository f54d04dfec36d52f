package api

import (
	"context"
	"fmt"
	"strconv"

	"github.com/ontoindex/ontoindex/api/wire"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// A page of a set of several object types is a merge: each type answers
// its own page of the search (the engine pages one type at a time), the
// pages are merged in the request's order, and the page token keeps one
// engine cursor per type, after the last object of that type the merged
// page used. Ties between types go to the type named first, so the order
// is total and a page neither skips nor repeats objects while no build
// runs. A page costs the types' pages, whatever its depth.

// typeSearch is the part of a search over several types that reads one.
type typeSearch struct {
	view   *indexer.View
	shown  *objects.Type     // the type as the request names its properties: the type, or its view through an interface
	names  map[string]string // shown's property names -> the type's (nil: the same)
	filter *query.Filter
	sort   []query.Sort // in the type's names
	r      *renderer
	layout *layout // of shown, when it is a view through an interface
	at     int     // its position among the search's types: ties go to the first
}

// multiSearch is one page request over several types.
type multiSearch struct {
	types     []*typeSearch
	order     []sortField // as the first type shows them; the same names in every type
	pageSize  int
	pageToken string
	fp        [8]byte
}

// multiRow is one object of a merged page: row j of page.
type multiRow struct {
	ts   *typeSearch
	page *indexer.Page
	j    int
}

// multiPage is a merged page.
type multiPage struct {
	rows  []multiRow
	next  string
	total int64
	// extra is appended to the response object after totalCount (the
	// mappings of loadObjectsMultipleObjectTypes); "" for none.
	extra string
}

// Cursor states of one type in a token: not started, resumed after a
// cursor, or done.
const (
	cursorStart = "s"
	cursorAfter = "c"
	cursorDone  = "e"
)

// engineName is the type's name of a property the request names.
func (ts *typeSearch) engineName(name string) string {
	if n, ok := ts.names[name]; ok {
		return n
	}
	return name
}

// run returns one merged page.
func (s *Server) runMultiSearch(ctx context.Context, m *multiSearch) (*multiPage, error) {
	states := make([]string, len(m.types))
	for i := range states {
		states[i] = cursorStart
	}
	if m.pageToken != "" {
		tok, err := wire.DecodeToken(m.pageToken, wire.TokSearch, m.fp)
		if err != nil {
			return nil, err
		}
		if len(tok.Values) != len(m.types) {
			return nil, wire.InvalidToken(m.pageToken)
		}
		for i, v := range tok.Values {
			if v == "" || (v[:1] != cursorStart && v[:1] != cursorAfter && v[:1] != cursorDone) {
				return nil, wire.InvalidToken(m.pageToken)
			}
			states[i] = v
		}
	}
	out := &multiPage{}
	pages := make([]*indexer.Page, len(m.types))
	for i, ts := range m.types {
		q := &query.Search{Filter: ts.filter, Sort: ts.sort, PageSize: m.pageSize, Limits: s.limits()}
		switch states[i][:1] {
		case cursorDone:
			q.PageSize = 1 // only its total
		case cursorAfter:
			q.After = []byte(states[i][1:])
		}
		p, err := ts.view.Search(ctx, q)
		if err != nil {
			if q.After != nil && isBadCursor(err) {
				return nil, wire.InvalidToken(m.pageToken)
			}
			return nil, fmt.Errorf("search %s: %w", ts.view.Type().APIName, err)
		}
		out.total += p.Total
		if states[i] != cursorDone {
			pages[i] = p
		}
	}
	heads := make([]int, len(m.types))
	for len(out.rows) < m.pageSize {
		best := -1
		for i, p := range pages {
			if p == nil || heads[i] >= p.Len() {
				continue
			}
			if best < 0 || m.before(m.types[i], p, heads[i], m.types[best], pages[best], heads[best]) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		out.rows = append(out.rows, multiRow{ts: m.types[best], page: pages[best], j: heads[best]})
		heads[best]++
	}
	more := false
	for i, p := range pages {
		switch {
		case p == nil: // done before this page
		case heads[i] == p.Len() && p.Next == nil:
			states[i] = cursorDone
		case heads[i] == p.Len():
			states[i], more = cursorAfter+string(p.Next), true
		case heads[i] > 0:
			c, err := p.Cursor(heads[i] - 1)
			if err != nil {
				return nil, err
			}
			states[i], more = cursorAfter+string(c), true
		default: // none used: resume where it was
			more = true
		}
	}
	if more {
		out.next = wire.Token{Kind: wire.TokSearch, FP: m.fp, Values: states}.Encode()
	}
	return out, nil
}

// before reports whether row ja of page a (of type ta) comes before row
// jb of page b (of another type tb): by the sort values, nulls last in
// either direction, then by type (the earlier type first).
func (m *multiSearch) before(ta *typeSearch, a *indexer.Page, ja int, tb *typeSearch, b *indexer.Page, jb int) bool {
	for _, f := range m.order {
		va := pageValue(ta.shown, a, ja, f.prop.APIName)
		vb := pageValue(tb.shown, b, jb, f.prop.APIName)
		switch {
		case va == nil && vb == nil:
			continue
		case va == nil:
			return false
		case vb == nil:
			return true
		}
		c := objects.Compare(va, vb)
		if f.desc {
			c = -c
		}
		if c != 0 {
			return c < 0
		}
	}
	return ta.at < tb.at
}

// appendJSON writes the page: data, nextPageToken, totalCount and extra.
func (p *multiPage) appendJSON(b []byte) []byte {
	b = append(b, `{"data":[`...)
	for i, row := range p.rows {
		if i > 0 {
			b = append(b, ',')
		}
		b = row.ts.r.appendPageRow(b, row.page, row.j)
	}
	b = append(b, ']')
	if p.next != "" {
		b = appendString(append(b, `,"nextPageToken":`...), p.next)
	}
	b = strconv.AppendInt(append(b, `,"totalCount":"`...), p.total, 10)
	b = append(b, '"')
	if p.extra != "" {
		b = append(append(b, ','), p.extra...)
	}
	return append(b, '}')
}
