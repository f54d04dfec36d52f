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
// all of it after the COPY. The primary key serves get by key; the others
// are the three indexes of the issue.
var pgSchema = []string{
	`ALTER TABLE customers ADD PRIMARY KEY (id)`,
	`CREATE INDEX customers_city_balance ON customers (city, balance)`,
	`CREATE INDEX customers_balance ON customers (balance)`,
	`CREATE INDEX customers_name_fts ON customers USING gin (to_tsvector('simple', name))`,
	`ANALYZE customers`,
}

// pgIndexes says in the report what PostgreSQL had.
const pgIndexes = "primary key (id), btree (city, balance), btree (balance), GIN (to_tsvector('simple', name))"

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

// load creates the customers table, copies rows customers into it and
// makes them searchable; it returns how long all of that took.
func (p *pgSide) load(ctx context.Context, seed uint64, rows int) (time.Duration, error) {
	conn, err := p.pool.Acquire(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Release()
	start := time.Now()
	if _, err := conn.Exec(ctx, `CREATE TABLE customers (
		id bigint NOT NULL, name text NOT NULL, city text NOT NULL,
		balance double precision NOT NULL, visits integer NOT NULL, active boolean NOT NULL)`); err != nil {
		return 0, fmt.Errorf("create table: %w", err)
	}
	n, err := conn.CopyFrom(ctx, pgx.Identifier{"customers"}, []string{"id", "name", "city", "balance", "visits", "active"},
		&customerSource{seed: seed, rows: int64(rows)})
	if err != nil {
		return 0, fmt.Errorf("copy customers: %w", err)
	}
	if n != int64(rows) {
		return 0, fmt.Errorf("copy customers: %d rows copied, want %d", n, rows)
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

// pgIDs runs a query of whole customer rows and returns their ids; it
// scans every column, as an application reading the rows would.
func (p *pgSide) pgIDs(ctx context.Context, sql string, args ...any) ([]int64, error) {
	rows, err := p.pool.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int64
	var c benchdata.Customer
	for rows.Next() {
		if err := rows.Scan(&c.ID, &c.Name, &c.City, &c.Balance, &c.Visits, &c.Active); err != nil {
			return nil, err
		}
		out = append(out, c.ID)
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
