package searchbench

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/ontoindex/ontoindex/internal/benchdata"
	"github.com/ontoindex/ontoindex/internal/pgserver"
)

// pgSide is the PostgreSQL the bench compares with: a throwaway server
// with the customers table, and a pool of one connection per client.
type pgSide struct {
	srv  *pgserver.Server
	pool *pgxpool.Pool
}

// pgSchema is what makes the rows searchable in PostgreSQL; the load times
// all of it after the COPY. The primary key serves get by key; the next
// three are the indexes of the issue; the orders' btree on customer_id is
// the one the links issue names for the join. orders has no FOREIGN KEY
// constraint: PostgreSQL plans a join from the index and the statistics,
// not from constraints, and checking one would only lengthen the load.
var pgSchema = []string{
	`ALTER TABLE customers ADD PRIMARY KEY (id)`,
	`CREATE INDEX customers_city_balance ON customers (city, balance)`,
	`CREATE INDEX customers_balance ON customers (balance)`,
	`CREATE INDEX customers_name_fts ON customers USING gin (to_tsvector('simple', name))`,
	`ALTER TABLE orders ADD PRIMARY KEY (id)`,
	`CREATE INDEX orders_customer_id ON orders (customer_id)`,
	`ANALYZE customers`,
	`ANALYZE orders`,
}

// pgIndexes says in the report what PostgreSQL had.
const pgIndexes = "customers: primary key (id), btree (city, balance), btree (balance), GIN (to_tsvector('simple', name)); " +
	"orders: primary key (id), btree (customer_id)"

// startPostgres starts a server with room for clients connections. The
// error wraps pgserver.ErrNotFound when PostgreSQL is not installed.
func startPostgres(ctx context.Context, binDir string, clients int, log *slog.Logger) (*pgSide, error) {
	settings := map[string]string{}
	if clients+10 > 100 { // PostgreSQL's default max_connections is 100
		settings["max_connections"] = strconv.Itoa(clients + 10)
	}
	srv, err := pgserver.Start(ctx, pgserver.Options{BinDir: binDir, Settings: settings, Logger: log})
	if err != nil {
		return nil, err
	}
	cfg, err := pgxpool.ParseConfig(srv.URL("postgres"))
	if err != nil {
		_ = srv.Stop()
		return nil, err
	}
	cfg.MaxConns = int32(clients)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		_ = srv.Stop()
		return nil, fmt.Errorf("connect to postgres: %w", err)
	}
	return &pgSide{srv: srv, pool: pool}, nil
}

func (p *pgSide) close() error {
	p.pool.Close()
	return p.srv.Stop()
}

// load creates the customers and orders tables, copies rows of each into
// them and makes them searchable; it returns how long all of that took.
func (p *pgSide) load(ctx context.Context, seed uint64, rows int) (time.Duration, error) {
	conn, err := p.pool.Acquire(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Release()
	start := time.Now()
	tables := []struct {
		name, create string
		columns      []string
		src          pgx.CopyFromSource
	}{
		{"customers", `CREATE TABLE customers (
			id bigint NOT NULL, name text NOT NULL, city text NOT NULL,
			balance double precision NOT NULL, visits integer NOT NULL, active boolean NOT NULL)`,
			[]string{"id", "name", "city", "balance", "visits", "active"}, &customerSource{seed: seed, rows: int64(rows)}},
		{"orders", `CREATE TABLE orders (
			id bigint NOT NULL, customer_id bigint NOT NULL, amount double precision NOT NULL,
			status text NOT NULL, placed_at timestamptz NOT NULL)`,
			[]string{"id", "customer_id", "amount", "status", "placed_at"}, &orderSource{seed: seed, customers: int64(rows), rows: int64(rows)}},
	}
	for _, t := range tables {
		if _, err := conn.Exec(ctx, t.create); err != nil {
			return 0, fmt.Errorf("create table %s: %w", t.name, err)
		}
		n, err := conn.CopyFrom(ctx, pgx.Identifier{t.name}, t.columns, t.src)
		if err != nil {
			return 0, fmt.Errorf("copy %s: %w", t.name, err)
		}
		if n != int64(rows) {
			return 0, fmt.Errorf("copy %s: %d rows copied, want %d", t.name, n, rows)
		}
	}
	for _, stmt := range pgSchema {
		if _, err := conn.Exec(ctx, stmt); err != nil {
			return 0, fmt.Errorf("%s: %w", stmt, err)
		}
	}
	return time.Since(start), nil
}

// customerSource generates the rows for COPY, the same rows the Iceberg
// table holds.
type customerSource struct {
	seed       uint64
	next, rows int64
	cur        benchdata.Customer
}

func (s *customerSource) Next() bool {
	if s.next >= s.rows {
		return false
	}
	s.cur = benchdata.NewCustomer(s.seed, s.next)
	s.next++
	return true
}

func (s *customerSource) Values() ([]any, error) {
	c := s.cur
	return []any{c.ID, c.Name, c.City, c.Balance, c.Visits, c.Active}, nil
}

func (s *customerSource) Err() error { return nil }

// pgColumns are the columns every PostgreSQL query returns: the whole row,
// as ontoindex returns whole objects.
const pgColumns = `id, name, city, balance, visits, active`

// pgIDs runs a query of whole customer rows and returns their ids. Every
// column is received, and only the id decoded (pgx skips the nil
// destinations), as the ontoindex client receives every object and scans
// its primary key: the two load generators do the same work.
func (p *pgSide) pgIDs(ctx context.Context, sql string, args ...any) ([]int64, error) {
	rows, err := p.pool.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int64
	var id int64
	for rows.Next() {
		if err := rows.Scan(&id, nil, nil, nil, nil, nil); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// pgCounts runs a query of (group text, count bigint) rows.
func (p *pgSide) pgCounts(ctx context.Context, sql string, args ...any) (map[string]int64, error) {
	rows, err := p.pool.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var k string
		var n int64
		if err := rows.Scan(&k, &n); err != nil {
			return nil, err
		}
		out[k] = n
	}
	return out, rows.Err()
}

// pss is the memory of the server and its backends while serving, in MiB.
func (p *pgSide) pss() float64 { return treePSSMiB(p.srv.PID()) }
