package searchbench

import (
	"context"
	"math/rand/v2"

	"github.com/ontoindex/ontoindex/internal/benchdata"
)

// The links row: a searchAround from a filtered set of customers to their
// orders, against PostgreSQL's join of the same rows. Orders are as many
// as customers (benchdata.NewOrder), each placed by a uniformly drawn
// customer, so a filter matching a fraction of the customers matches
// about that fraction of the orders.

const (
	orderType = "Order"
	// aroundLink is the reverse side of Order.customer: Customer to its
	// orders.
	aroundLink = "orders"
	// aroundBalanceWidth makes the customer filter match 1% of the rows
	// whatever --rows: a city is 1/8 of them and a balance range of
	// 8% of MaxBalance a further 8%, so 10,000 customers (and about
	// 10,000 orders) at 1,000,000 rows.
	aroundBalanceWidth = benchdata.MaxBalance * 8 / 100
)

// genAround draws the customer filter: city = X, balance in [lo, lo+8%).
func genAround(r *rand.Rand) params {
	lo := float64(r.IntN(benchdata.MaxBalance - aroundBalanceWidth))
	return params{city: pick(r, benchdata.Cities), lo: lo, hi: lo + aroundBalanceWidth}
}

// aroundRequest is the loadObjects request of the links row: the orders
// of the customers the filter matches, by order id.
func aroundRequest(p params) loadRequest {
	customers := filterSet(and(eq("city", p.city), gte("balance", p.lo), lt("balance", p.hi)))
	return loadRequest{
		ObjectSet: objectSet{Type: "searchAround", ObjectSet: &customers, Link: aroundLink},
		OrderBy:   order("id", "asc"), PageSize: pageSize,
	}
}

// pgAroundSQL is the PostgreSQL side of the links row: the plain join.
// With a primary key on customers.id, the join, the semi-join (customer_id
// IN (SELECT id ...)) and EXISTS return the same rows, and PostgreSQL 15
// plans all three alike: it walks orders by primary key in id order,
// probes customers' primary key for each order and stops at the 100th
// match (about 10,000 probes at 1%), in parallel workers. The forms that
// start from the customers (customer_id = ANY(ARRAY(SELECT id ...)), a
// MATERIALIZED CTE) use the btree on customer_id and sort the ~10,000
// orders instead; in a trial at 1,000,000 rows with 16 clients they
// sustained fewer q/s than the join, so the join it is.
const pgAroundSQL = `SELECT ` + pgOrderColumnsOf + ` FROM orders o JOIN customers c ON o.customer_id = c.id
	WHERE c.city = $1 AND c.balance >= $2 AND c.balance < $3
	ORDER BY o.id LIMIT 100`

// pgAroundCountSQL counts the join: what ontoindex's totalCount must be.
// Verification runs it; the measured PostgreSQL query does not count.
const pgAroundCountSQL = `SELECT count(*) FROM orders o JOIN customers c ON o.customer_id = c.id
	WHERE c.city = $1 AND c.balance >= $2 AND c.balance < $3`

func pgAround(ctx context.Context, db *pgSide, p params) (result, error) {
	return idsResult(db.pgOrderIDs(ctx, pgAroundSQL, p.city, p.lo, p.hi))
}

func pgAroundTotal(ctx context.Context, db *pgSide, p params) (int64, error) {
	var n int64
	err := db.pool.QueryRow(ctx, pgAroundCountSQL, p.city, p.lo, p.hi).Scan(&n)
	return n, err
}

// pgOrderColumnsOf are the columns the links row returns: the whole order,
// as ontoindex returns whole Order objects.
const pgOrderColumnsOf = `o.id, o.customer_id, o.amount, o.status, o.placed_at`

// pgOrderIDs runs a query of whole order rows and returns their ids,
// decoding the id only, as pgIDs does for customers.
func (p *pgSide) pgOrderIDs(ctx context.Context, sql string, args ...any) ([]int64, error) {
	rows, err := p.pool.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int64
	var id int64
	for rows.Next() {
		if err := rows.Scan(&id, nil, nil, nil, nil); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// orderSource generates the orders for COPY, the same rows the Iceberg
// table holds.
type orderSource struct {
	seed                  uint64
	customers, next, rows int64
	cur                   benchdata.Order
}

func (s *orderSource) Next() bool {
	if s.next >= s.rows {
		return false
	}
	s.cur = benchdata.NewOrder(s.seed, s.customers, s.next)
	s.next++
	return true
}

func (s *orderSource) Values() ([]any, error) {
	o := s.cur
	return []any{o.ID, o.CustomerID, o.Amount, o.Status, o.PlacedAt}, nil
}

func (s *orderSource) Err() error { return nil }
