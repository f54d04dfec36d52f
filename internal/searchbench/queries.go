package searchbench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/ontoindex/ontoindex/internal/benchdata"
)

const pageSize = 100

// params are the parameters of one request; each query uses some.
type params struct {
	id     int64
	city   string
	lo, hi float64
	terms  string // two lowercase terms: "ana silva"
	prefix string // 2 or 3 lowercase letters
	visits int32
}

// result is what two systems must agree on: ids in order, or counts by
// group ("" when there are no groups); and, for a row whose total is
// checked (query.pgTotal), ontoindex's totalCount against PostgreSQL's
// COUNT(*).
type result struct {
	ids     []int64
	counts  map[string]int64
	total   int64
	counted bool // total is set
}

// A query is one row of the report: how each system is asked the same
// thing. onto or pg is nil for a row measured on one system only.
type query struct {
	id   string // short and stable, for JSON and for targets
	name string
	// target is the least ratio of q/s (ontoindex / PostgreSQL) the issue
	// asks for; 0 for rows that are information only.
	target float64
	gen    func(r *rand.Rand) params
	// sameAs names the row whose PostgreSQL answer a PostgreSQL-only row
	// must equal.
	sameAs string
	onto   func(ctx context.Context, c *ontoClient, p params) (result, error)
	pg     func(ctx context.Context, db *pgSide, p params) (result, error)
	// pgTotal, when set, counts what pg pages through; verification
	// compares it with ontoindex's totalCount. The measured PostgreSQL
	// query does not count, as in the other rows.
	pgTotal func(ctx context.Context, db *pgSide, p params) (int64, error)
	// agree, when set, is how many leading ids of a page the two systems
	// must agree on, for rows whose rankings differ below them (BM25 and
	// ts_rank); verification compares those and the page lengths.
	agree func(ctx context.Context, db *pgSide, p params) (int, error)
	// clients, when set, bounds the row's clients: a request that keeps
	// every core busy for seconds (PostgreSQL's derived row at ten
	// million: 30 s of CPU) only queues behind more, and fifty of them
	// kept a part running for many minutes past its duration.
	clients int
}

// Parameter generators. Values are whole numbers so that the JSON and the
// SQL of a request name exactly the same double.

func genID(rows int) func(r *rand.Rand) params {
	return func(r *rand.Rand) params { return params{id: r.Int64N(int64(rows))} }
}

func genSorted(r *rand.Rand) params {
	lo := float64(r.IntN(benchdata.MaxBalance - 50_000))
	return params{city: pick(r, benchdata.Cities), lo: lo, hi: lo + 50_000}
}

func genTerms(r *rand.Rand) params {
	return params{terms: strings.ToLower(pick(r, benchdata.FirstNames) + " " + pick(r, benchdata.LastNames))}
}

func genCountRange(r *rand.Rand) params { // 10% of the balances
	lo := float64(r.IntN(benchdata.MaxBalance * 9 / 10))
	return params{lo: lo, hi: lo + benchdata.MaxBalance/10}
}

func genPrefix(r *rand.Rand) params {
	var word string
	if i := r.IntN(len(benchdata.FirstNames) + len(benchdata.LastNames)); i < len(benchdata.FirstNames) {
		word = benchdata.FirstNames[i]
	} else {
		word = benchdata.LastNames[i-len(benchdata.FirstNames)]
	}
	return params{prefix: strings.ToLower(word[:2+r.IntN(2)])}
}

func genUnion(r *rand.Rand) params { // visits > Y matches up to 10%
	return params{city: pick(r, benchdata.Cities), visits: int32(benchdata.MaxVisits*9/10 + r.IntN(benchdata.MaxVisits/10))}
}

func genNone(*rand.Rand) params { return params{} }

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// queries are the rows of the report, in order. deep holds the deep page
// found by prepareDeep.
func queries(rows int, deep *deepPage) []query {
	return []query{
		{
			id: "get", name: "get by primary key", target: 0.8, gen: genID(rows),
			onto: func(ctx context.Context, c *ontoClient, p params) (result, error) {
				o, err := c.get(ctx, p.id)
				if err != nil {
					return result{}, err
				}
				return result{ids: []int64{o.PrimaryKey}}, nil
			},
			pg: func(ctx context.Context, db *pgSide, p params) (result, error) {
				return idsResult(db.pgIDs(ctx, `SELECT `+pgColumns+` FROM customers WHERE id = $1`, p.id))
			},
		},
		{
			id: "sorted", name: "sorted: city = X, balance in [lo, lo+50k), not active; balance desc", target: 1, gen: genSorted,
			onto: func(ctx context.Context, c *ontoClient, p params) (result, error) {
				return pageResult(c.search(ctx, searchRequest{
					Where:   and(eq("city", p.city), gte("balance", p.lo), lt("balance", p.hi), eq("active", false)),
					OrderBy: order("balance", "desc"), PageSize: pageSize}))
			},
			pg: func(ctx context.Context, db *pgSide, p params) (result, error) {
				return idsResult(db.pgIDs(ctx, `SELECT `+pgColumns+` FROM customers
					WHERE city = $1 AND balance >= $2 AND balance < $3 AND NOT active
					ORDER BY balance DESC, id LIMIT 100`, p.city, p.lo, p.hi))
			},
		},
		{
			id: "text", name: "text: two terms on name; sort id", target: 1, gen: genTerms,
			onto: func(ctx context.Context, c *ontoClient, p params) (result, error) {
				return pageResult(c.search(ctx, searchRequest{
					Where: text("containsAllTerms", "name", p.terms), OrderBy: order("id", "asc"), PageSize: pageSize}))
			},
			pg: func(ctx context.Context, db *pgSide, p params) (result, error) {
				return idsResult(db.pgIDs(ctx, `SELECT `+pgColumns+` FROM customers
					WHERE to_tsvector('simple', name) @@ to_tsquery('simple', $1)
					ORDER BY id LIMIT 100`, strings.ReplaceAll(p.terms, " ", " & ")))
			},
		},
		{
			// Every name has two terms, so the rows with both rank first,
			// equal in BM25 and in ts_rank alike, then by id: the systems
			// agree on those. Below, BM25 ranks the rarer name first and
			// ts_rank weighs both alike, so verification stops there.
			id: "relevance", name: "two-term search ordered by relevance", target: 3, gen: genTerms,
			onto: func(ctx context.Context, c *ontoClient, p params) (result, error) {
				return pageResult(c.search(ctx, searchRequest{
					Where:   text("containsAnyTerm", "name", p.terms),
					OrderBy: &orderBy{OrderType: "relevance", Fields: []orderField{}}, PageSize: pageSize}))
			},
			pg: func(ctx context.Context, db *pgSide, p params) (result, error) {
				return idsResult(db.pgIDs(ctx, `SELECT `+pgColumns+` FROM customers, to_tsquery('simple', $1) q
					WHERE to_tsvector('simple', name) @@ q
					ORDER BY ts_rank(to_tsvector('simple', name), q) DESC, id LIMIT 100`, strings.ReplaceAll(p.terms, " ", " | ")))
			},
			agree: func(ctx context.Context, db *pgSide, p params) (int, error) {
				counts, err := db.pgCounts(ctx, `SELECT '', count(*) FROM customers
					WHERE to_tsvector('simple', name) @@ to_tsquery('simple', $1)`, strings.ReplaceAll(p.terms, " ", " & "))
				return int(counts[""]), err
			},
		},
		{
			id: "count", name: "count: balance in a 10% range", target: 1, gen: genCountRange,
			onto: func(ctx context.Context, c *ontoClient, p params) (result, error) {
				return countsResult(c.aggregate(ctx, aggregateRequest{
					Aggregation: []map[string]string{{"type": "count"}}, GroupBy: []map[string]any{},
					Where: and(gte("balance", p.lo), lt("balance", p.hi))}, ""))
			},
			pg: func(ctx context.Context, db *pgSide, p params) (result, error) {
				return countsResult(db.pgCounts(ctx, `SELECT '', count(*) FROM customers WHERE balance >= $1 AND balance < $2`, p.lo, p.hi))
			},
		},
		{
			id: "group", name: "aggregate: count by city where active", target: 1, gen: genNone,
			onto: func(ctx context.Context, c *ontoClient, p params) (result, error) {
				return countsResult(c.aggregate(ctx, aggregateRequest{
					Aggregation: []map[string]string{{"type": "count"}}, GroupBy: []map[string]any{{"type": "exact", "field": "city"}},
					Where: eq("active", true)}, "city"))
			},
			pg: func(ctx context.Context, db *pgSide, p params) (result, error) {
				return countsResult(db.pgCounts(ctx, `SELECT city, count(*) FROM customers WHERE active GROUP BY city`))
			},
		},
		{
			id: "prefix", name: "prefix: 2-3 letters on name; sort id", target: 1, gen: genPrefix,
			onto: func(ctx context.Context, c *ontoClient, p params) (result, error) {
				return pageResult(c.search(ctx, searchRequest{
					Where:   text("containsAllTermsInOrderPrefixLastTerm", "name", p.prefix),
					OrderBy: order("id", "asc"), PageSize: pageSize}))
			},
			pg: func(ctx context.Context, db *pgSide, p params) (result, error) {
				return idsResult(db.pgIDs(ctx, `SELECT `+pgColumns+` FROM customers
					WHERE to_tsvector('simple', name) @@ to_tsquery('simple', $1)
					ORDER BY id LIMIT 100`, p.prefix+":*"))
			},
		},
		{
			id: "deep1", name: "deep paging: active, sort balance; page 1", target: 1, gen: genNone,
			onto: func(ctx context.Context, c *ontoClient, p params) (result, error) {
				return pageResult(c.search(ctx, deepRequest("")))
			},
			pg: func(ctx context.Context, db *pgSide, p params) (result, error) {
				return idsResult(db.pgIDs(ctx, `SELECT `+pgColumns+` FROM customers WHERE active ORDER BY balance, id LIMIT 100`))
			},
		},
		{
			id: "deepN", name: deep.label("deep paging: page %d (token / keyset)"), target: 1, gen: genNone,
			onto: func(ctx context.Context, c *ontoClient, p params) (result, error) {
				return pageResult(c.search(ctx, deepRequest(c.deepToken)))
			},
			pg: func(ctx context.Context, db *pgSide, p params) (result, error) {
				// balance >= $1 lets the btree on balance start at the
				// position; the row comparison breaks ties by id.
				return idsResult(db.pgIDs(ctx, `SELECT `+pgColumns+` FROM customers
					WHERE active AND balance >= $1 AND (balance, id) > ($1, $2)
					ORDER BY balance, id LIMIT 100`, deep.afterBalance, deep.afterID))
			},
		},
		{
			id: "deepOffset", name: deep.label("deep paging: page %d (PG OFFSET, info)"), gen: genNone, sameAs: "deepN",
			pg: func(ctx context.Context, db *pgSide, p params) (result, error) {
				return idsResult(db.pgIDs(ctx, `SELECT `+pgColumns+` FROM customers WHERE active
					ORDER BY balance, id OFFSET $1 LIMIT 100`, deep.offset()))
			},
		},
		{
			id: "union", name: "loadObjects: union city = X, visits > Y; sort id", target: 1, gen: genUnion,
			onto: func(ctx context.Context, c *ontoClient, p params) (result, error) {
				set := objectSet{Type: "union", ObjectSets: []objectSet{filterSet(eq("city", p.city)), filterSet(gt("visits", p.visits))}}
				return pageResult(c.loadObjects(ctx, loadRequest{ObjectSet: set, OrderBy: order("id", "asc"), PageSize: pageSize}))
			},
			pg: func(ctx context.Context, db *pgSide, p params) (result, error) {
				return idsResult(db.pgIDs(ctx, `SELECT `+pgColumns+` FROM customers
					WHERE city = $1 OR visits > $2 ORDER BY id LIMIT 100`, p.city, p.visits))
			},
		},
		{
			id: "around", name: fmt.Sprintf("searchAround: %s customers (filter) -> their orders; sort id, page 100", thousands(rows/100)),
			target: 1, gen: genAround,
			onto: func(ctx context.Context, c *ontoClient, p params) (result, error) {
				return pageTotalResult(c.loadObjects(ctx, aroundRequest(p)))
			},
			pg: pgAround, pgTotal: pgAroundTotal,
		},
		derivedQuery(),
		durationQuery(),
	}
}

func idsResult(ids []int64, err error) (result, error) { return result{ids: ids}, err }

func countsResult(c map[string]int64, err error) (result, error) { return result{counts: c}, err }

func pageResult(p pageResponse, err error) (result, error) {
	if err != nil {
		return result{}, err
	}
	return result{ids: p.Keys}, nil
}

// pageTotalResult is pageResult with the page's totalCount, which must be
// there.
func pageTotalResult(p pageResponse, err error) (result, error) {
	r, err := pageResult(p, err)
	if err != nil {
		return result{}, err
	}
	if r.total, err = strconv.ParseInt(p.TotalCount, 10, 64); err != nil {
		return result{}, fmt.Errorf("totalCount %q: %w", p.TotalCount, err)
	}
	r.counted = true
	return r, nil
}

// thousands formats n with commas: 10,000.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// selectQueries returns the ids of qs to measure: those of want, or all
// of them when want is empty. An unknown id is an error naming the known.
func selectQueries(qs []query, want []string) (map[string]bool, error) {
	known := make(map[string]bool, len(qs))
	ids := make([]string, 0, len(qs))
	for _, q := range qs {
		known[q.id] = true
		ids = append(ids, q.id)
	}
	if len(want) == 0 {
		return known, nil
	}
	sel := make(map[string]bool, len(want))
	for _, id := range want {
		if !known[id] {
			return nil, fmt.Errorf("searchbench: unknown query %q (queries: %s)", id, strings.Join(ids, ", "))
		}
		sel[id] = true
	}
	return sel, nil
}
