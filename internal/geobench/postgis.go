package geobench

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// PostGIS's side: a filter's page in primary key order, its count, and
// the two forms of both at once that answer what the engine's page does.

func pgIDs(ctx context.Context, conn *pgx.Conn, where string) ([]int64, error) {
	rows, err := conn.Query(ctx, pageSQL(where))
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[int64])
}

func pageSQL(where string) string {
	return fmt.Sprintf("SELECT id FROM places WHERE %s ORDER BY id LIMIT %d", where, pageSize)
}

func countSQL(where string) string { return "SELECT count(*) FROM places WHERE " + where }

// pgPageThenCount is the page and the count in two round trips, the
// check of the engine's answers.
func pgPageThenCount(ctx context.Context, conn *pgx.Conn, where string) ([]int64, int64, error) {
	ids, err := pgIDs(ctx, conn, where)
	if err != nil {
		return nil, 0, err
	}
	var n int64
	err = conn.QueryRow(ctx, countSQL(where)).Scan(&n)
	return ids, n, err
}

// pageCountForm is a way to ask PostGIS for a page and the exact count of
// its filter in one round trip.
type pageCountForm struct {
	name string
	run  func(ctx context.Context, conn *pgx.Conn, where string) ([]int64, int64, error)
}

var pageCountForms = []pageCountForm{
	// the page's query and the count's, sent together (pgx's batch: one
	// round trip, two plans)
	{"batch", func(ctx context.Context, conn *pgx.Conn, where string) ([]int64, int64, error) {
		b := &pgx.Batch{}
		var ids []int64
		var n int64
		b.Queue(pageSQL(where)).Query(func(rows pgx.Rows) error {
			var err error
			ids, err = pgx.CollectRows(rows, pgx.RowTo[int64])
			return err
		})
		b.Queue(countSQL(where)).QueryRow(func(row pgx.Row) error { return row.Scan(&n) })
		err := conn.SendBatch(ctx, b).Close()
		return ids, n, err
	}},
	// one query, the count a window over every match
	{"window", func(ctx context.Context, conn *pgx.Conn, where string) ([]int64, int64, error) {
		rows, err := conn.Query(ctx, fmt.Sprintf("SELECT id, count(*) OVER () FROM places WHERE %s ORDER BY id LIMIT %d", where, pageSize))
		if err != nil {
			return nil, 0, err
		}
		var ids []int64
		var n int64
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id, &n); err != nil {
				return nil, 0, err
			}
			ids = append(ids, id)
		}
		return ids, n, rows.Err()
	}},
}

// pageCount measures each form of PostGIS's page and count for d and
// keeps the faster in r.
func pageCount(ctx context.Context, d time.Duration, conn *pgx.Conn, where string, r *Result) error {
	for _, form := range pageCountForms {
		qps, err := rate(ctx, d, func() error {
			_, _, err := form.run(ctx, conn, where)
			return err
		})
		if err != nil {
			return fmt.Errorf("%s: postgis (%s): %w", r.Query, form.name, err)
		}
		if qps > r.PGPageCountQPS {
			r.PGPageCountQPS, r.PGPageCountForm = qps, form.name
		}
	}
	return nil
}
