package searchbench

import (
	"context"
	"fmt"
	"runtime"
)

// The derived row: each customer's order count and the sum of its
// amounts as derived properties (withProperties: selections over the
// link orders), the top 100 customers by that sum, against PostgreSQL's
// join, group by, order by and limit of the same rows. Every customer
// and every order is read: the sums of all customers decide the top 100.

// derivedRequest is the loadObjects request of the derived row.
func derivedRequest() loadRequest {
	orders := map[string]any{"type": "searchAround", "objectSet": map[string]any{"type": "methodInput"}, "link": aroundLink}
	base := objectSet{Type: "base", ObjectType: objectType}
	return loadRequest{
		ObjectSet: objectSet{Type: "withProperties", ObjectSet: &base, DerivedProperties: map[string]any{
			"orderCount": map[string]any{"type": "selection", "objectSet": orders, "operation": map[string]any{"type": "count"}},
			"orderTotal": map[string]any{"type": "selection", "objectSet": orders,
				"operation": map[string]any{"type": "sum", "selectedPropertyApiName": "amount"}},
		}},
		OrderBy: order("orderTotal", "desc"), PageSize: pageSize,
	}
}

// pgDerivedSQL is the PostgreSQL side: whole customer rows with the count
// and the sum, as ontoindex returns whole customers with both.
const pgDerivedSQL = `SELECT c.id, c.name, c.city, c.balance, c.visits, c.active, count(*), sum(o.amount) AS total
	FROM customers c JOIN orders o ON o.customer_id = c.id
	GROUP BY c.id ORDER BY total DESC, c.id LIMIT 100`

func pgDerived(ctx context.Context, db *pgSide, _ params) (result, error) {
	rows, err := db.pool.Query(ctx, pgDerivedSQL)
	if err != nil {
		return result{}, err
	}
	defer rows.Close()
	var out []int64
	var id int64
	for rows.Next() {
		if err := rows.Scan(&id, nil, nil, nil, nil, nil, nil, nil); err != nil {
			return result{}, err
		}
		out = append(out, id)
	}
	return result{ids: out}, rows.Err()
}

// derivedQuery is the derived row of the report.
func derivedQuery() query {
	return query{
		id: "derived", name: fmt.Sprintf("withProperties: count and sum of each customer's orders; top %d by the sum", pageSize),
		target: 1, gen: genNone, clients: max(2, runtime.NumCPU()),
		onto: func(ctx context.Context, c *ontoClient, p params) (result, error) {
			return pageResult(c.loadObjects(ctx, derivedRequest()))
		},
		pg: pgDerived,
	}
}
