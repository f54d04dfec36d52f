package searchbench

import (
	"context"
)

// The duration row: orders counted by calendar month of placedAt, a
// $duration group-by, against PostgreSQL's GROUP BY date_trunc('month')
// over the same rows. Orders are as many as customers and span two years
// (benchdata.NewOrder), so the answer is 24 or 25 groups over every row.

// durationQuery is the row of the report.
func durationQuery() query {
	return query{
		id: "duration", name: "aggregate: count of orders by month of placedAt ($duration)", target: 1, gen: genNone,
		onto: func(ctx context.Context, c *ontoClient, p params) (result, error) {
			return countsResult(c.aggregateAt(ctx, "/objects/"+orderType+"/aggregate", aggregateRequest{
				Aggregation: []map[string]string{{"type": "count"}},
				GroupBy:     []map[string]any{{"type": "duration", "field": "placedAt", "value": 1, "unit": "MONTHS"}},
			}, "placedAt"))
		},
		pg: func(ctx context.Context, db *pgSide, p params) (result, error) {
			// The bucket start is rendered as ontoindex renders a timestamp
			// (RFC 3339 in UTC), once per group, after the grouping.
			return countsResult(db.pgCounts(ctx, `SELECT to_char(month, 'YYYY-MM-DD"T"HH24:MI:SS"Z"'), n FROM (
				SELECT date_trunc('month', placed_at AT TIME ZONE 'UTC') AS month, count(*) AS n
				FROM orders GROUP BY 1) m`))
		},
	}
}
