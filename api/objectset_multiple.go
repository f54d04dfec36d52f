package api

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/ontoindex/ontoindex/api/wire"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// A page of a set of several object types is a merge: each type answers
// a page of the search (the engine pages one type at a time), the pages
// are merged in the request's order, and the page token keeps one engine
// cursor per type, after the last object of that type the merged page
// used. Ties between types go to the type named first, so the order is
// total and a page neither skips nor repeats objects while no build runs.
// A type whose plan walks its sort order stops at its likely part of the
// page (shares) and is asked for more, without a second count, only when
// its part runs out while its next objects may still come first: a page
// costs about what one type of all the objects costs, whatever its depth.

// typeSearch is the part of a search over several types that reads one.
type typeSearch struct {
	view   *indexer.View
	shown  *objects.Type     // the type as the request names its properties: the type, or its view through an interface
	names  map[string]string // shown's property names -> the type's (nil: the same)
	filter *query.Filter
	sort   []query.Sort // in the type's names
	r      *renderer
	layout *layout // of shown, when it is a view through an interface
	sortAt []int   // the positions in shown of the merge's order fields
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

// typeCursor is where the merge stands in one type: the page of it being
// merged, the cursor that page started after (nil: the type's start) and
// how many of its rows the merged page took.
type typeCursor struct {
	page  *indexer.Page
	after []byte
	head  int
	// values are the sort values of row head, read once for the
	// comparisons of the merge (headValues).
	values []any
	read   bool
}

// headValues are the sort values of the cursor's row head.
func (c *typeCursor) headValues(ts *typeSearch) []any {
	if !c.read {
		c.values = c.values[:0]
		for _, i := range ts.sortAt {
			c.values = append(c.values, pageValueAt(ts.shown, c.page, c.head, i))
		}
		c.read = true
	}
	return c.values
}

// advance moves the cursor to its next row.
func (c *typeCursor) advance() { c.head, c.read = c.head+1, false }

// shares is how many objects each type is likely to give the page
// (query.Search.Enough): its part of the page by its share of the types'
// objects, with room for chance (three standard deviations of the draw),
// at most the page. Each type walking its order for the whole page would
// walk as far as one type of all the objects does; a type whose part runs
// out before the merged page is full is asked for the rest
// (runMultiSearch).
func (m *multiSearch) shares() []int {
	out := make([]int, len(m.types))
	var all float64
	for _, ts := range m.types {
		all += float64(ts.view.Count())
	}
	for i, ts := range m.types {
		out[i] = m.pageSize
		if len(m.types) == 1 || all == 0 {
			continue
		}
		w := float64(ts.view.Count()) / all
		mean := float64(m.pageSize) * w
		out[i] = min(int(math.Ceil(mean+3*math.Sqrt(mean*(1-w))))+1, m.pageSize)
	}
	return out
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
	cursors := make([]typeCursor, len(m.types))
	shares := m.shares()
	for i, ts := range m.types {
		q := &query.Search{Filter: ts.filter, Sort: ts.sort, PageSize: m.pageSize, Enough: shares[i], Limits: s.limits()}
		switch states[i][:1] {
		case cursorDone:
			q.PageSize = 1 // only its total
		case cursorAfter:
			q.After = []byte(states[i][1:])
		}
		p, err := ts.view.PartialSearch(ctx, q)
		if err != nil {
			if q.After != nil && isBadCursor(err) {
				return nil, wire.InvalidToken(m.pageToken)
			}
			return nil, fmt.Errorf("search %s: %w", ts.view.Type().APIName, err)
		}
		out.total += p.Total
		if states[i] != cursorDone {
			// The merge compares the rows' sort values one by one: their
			// loads overlap when read ahead together.
			p.ReadAheadProperties(shares[i], ts.sortAt)
			cursors[i] = typeCursor{page: p, after: q.After}
		}
	}
	for len(out.rows) < m.pageSize {
		best := -1
		for i := range cursors {
			c := &cursors[i]
			if c.page == nil {
				continue
			}
			if c.head == c.page.Len() {
				if c.page.Next == nil {
					continue // no more of this type
				}
				// Its part ran out while its next rows may come first.
				if err := s.continueType(ctx, m.types[i], c, m.pageSize-len(out.rows)); err != nil {
					return nil, err
				}
				if c.page.Len() == 0 {
					continue
				}
			}
			if best < 0 || m.before(c.headValues(m.types[i]), cursors[best].headValues(m.types[best])) {
				best = i // on a tie the earlier type, tried first, stays
			}
		}
		if best < 0 {
			break
		}
		c := &cursors[best]
		out.rows = append(out.rows, multiRow{ts: m.types[best], page: c.page, j: c.head})
		c.advance()
	}
	out.readAhead()
	more := false
	for i := range cursors {
		c := &cursors[i]
		switch {
		case c.page == nil: // done before this page
		case c.head == c.page.Len() && c.page.Next == nil:
			states[i] = cursorDone
		case c.head == c.page.Len():
			states[i], more = cursorAfter+string(c.page.Next), true
		case c.head > 0:
			cur, err := c.page.Cursor(c.head - 1)
			if err != nil {
				return nil, err
			}
			states[i], more = cursorAfter+string(cur), true
		case c.after != nil: // none of this page used: resume before it
			states[i], more = cursorAfter+string(c.after), true
		default: // none used: resume where it was
			more = true
		}
	}
	if more {
		out.next = wire.Token{Kind: wire.TokSearch, FP: m.fp, Values: states}.Encode()
	}
	return out, nil
}

// continueType replaces the page of a type whose rows the merge has taken
// with its next rows, up to n, without counting them again.
func (s *Server) continueType(ctx context.Context, ts *typeSearch, c *typeCursor, n int) error {
	q := &query.Search{Filter: ts.filter, Sort: ts.sort, PageSize: n, After: c.page.Next, Limits: s.limits(), NoTotal: true}
	p, err := ts.view.PartialSearch(ctx, q)
	if err != nil {
		return fmt.Errorf("search %s: %w", ts.view.Type().APIName, err)
	}
	*c = typeCursor{page: p, after: q.After, values: c.values}
	return nil
}

// readAhead reads ahead the values of the rows the page renders: a prefix
// of each page they come from.
func (p *multiPage) readAhead() {
	type used struct {
		page *indexer.Page
		n    int
	}
	var pages []used
	for _, r := range p.rows {
		k := slices.IndexFunc(pages, func(u used) bool { return u.page == r.page })
		if k < 0 {
			k = len(pages)
			pages = append(pages, used{page: r.page})
		}
		pages[k].n = max(pages[k].n, r.j+1)
	}
	for _, u := range pages {
		u.page.ReadAhead(u.n)
	}
}

// before reports whether a row whose sort values are va comes strictly
// before one whose values are vb: nulls last in either direction. Rows of
// equal values go by type, the earlier first, which the caller keeps by
// trying types in order.
func (m *multiSearch) before(va, vb []any) bool {
	for k, f := range m.order {
		a, b := va[k], vb[k]
		switch {
		case a == nil && b == nil:
			continue
		case a == nil:
			return false
		case b == nil:
			return true
		}
		c := objects.Compare(a, b)
		if f.desc {
			c = -c
		}
		if c != 0 {
			return c < 0
		}
	}
	return false
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
