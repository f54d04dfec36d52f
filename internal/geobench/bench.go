package geobench

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/ontoindex/ontoindex/indexer/index"
	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/internal/pgserver"
)

// Options configure Run.
type Options struct {
	Rows     int
	Seed     uint64
	Duration time.Duration // each side of each measurement
	BinDir   string        // PostgreSQL's binaries (default: found)
	Logger   *slog.Logger
	Progress io.Writer // a line per step (nil: none)
}

// Result is one filter, as a page of 100 or as a count, on both sides.
// The engine's page also counts its matches (totalCount), PostGIS's page
// does not: for a page, PGPageCountQPS is PostGIS answering what the
// engine's page does, the page and the exact count of the same filter,
// in the faster of its two forms (PGPageCountForm, pageCountForms).
type Result struct {
	Query            string
	Count            bool
	Matches          int64
	EngineQPS, PGQPS float64
	PGPageCountQPS   float64 `json:",omitempty"`
	PGPageCountForm  string  `json:",omitempty"`
}

// Report is a run's figures.
type Report struct {
	Rows                int
	EngineBuild, PGLoad time.Duration
	PGVersion, PostGIS  string
	Results             []Result
}

// Run builds the engine's index of the rows and loads them into PostGIS
// (GiST indexes on the point, the polygon and the point as geography),
// checks that both answer every filter alike (the page's ids and the
// count), then measures each filter's queries per second, one query at a
// time on each side: the engine in process, PostGIS over a loopback
// connection with its plan cached.
func Run(ctx context.Context, o Options) (*Report, error) {
	progress := func(format string, args ...any) {
		if o.Progress != nil {
			fmt.Fprintf(o.Progress, format+"\n", args...)
		}
	}
	rows := Rows(o.Seed, o.Rows)
	rep := &Report{Rows: o.Rows}
	start := time.Now()
	s, err := build(rows)
	if err != nil {
		return nil, err
	}
	rep.EngineBuild = time.Since(start)
	progress("engine: %d rows indexed in %s", len(rows), rep.EngineBuild.Round(time.Millisecond))

	srv, err := pgserver.Start(ctx, pgserver.Options{BinDir: o.BinDir, Logger: o.Logger,
		Settings: map[string]string{"shared_buffers": "2GB", "work_mem": "64MB", "max_parallel_workers_per_gather": "0"}})
	if err != nil {
		return nil, err
	}
	defer func() { _ = srv.Stop() }()
	conn, err := pgx.Connect(ctx, srv.URL("postgres"))
	if err != nil {
		return nil, fmt.Errorf("connect to postgres: %w", err)
	}
	defer func() { _ = conn.Close(context.WithoutCancel(ctx)) }()
	rep.PGVersion = srv.Version()
	start = time.Now()
	if err := load(ctx, conn, rows); err != nil {
		return nil, err
	}
	rep.PGLoad = time.Since(start)
	if err := conn.QueryRow(ctx, "SELECT postgis_lib_version()").Scan(&rep.PostGIS); err != nil {
		return nil, err
	}
	progress("postgis %s: %d rows loaded and indexed in %s", rep.PostGIS, len(rows), rep.PGLoad.Round(time.Millisecond))

	for _, q := range Queries() {
		page, count, err := engine(ctx, s, q.Filter)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", q.Name, err)
		}
		for _, form := range append([]pageCountForm{{"page, then count", pgPageThenCount}}, pageCountForms...) {
			pgPage, pgCount, err := form.run(ctx, conn, q.Where)
			if err != nil {
				return nil, fmt.Errorf("%s: postgis (%s): %w", q.Name, form.name, err)
			}
			if count != pgCount || !slices.Equal(page, pgPage) {
				return nil, fmt.Errorf("%s: the engine finds %d (page %v), PostGIS (%s) %d (page %v)", q.Name, count, head(page), form.name, pgCount, head(pgPage))
			}
		}
		for _, counting := range []bool{false, true} {
			r := Result{Query: q.Name, Count: counting, Matches: count}
			r.EngineQPS, err = rate(ctx, o.Duration, func() error {
				if counting {
					_, err := engineCount(ctx, s, q.Filter)
					return err
				}
				_, err := enginePage(ctx, s, q.Filter)
				return err
			})
			if err != nil {
				return nil, err
			}
			r.PGQPS, err = rate(ctx, o.Duration, func() error {
				if counting {
					var n int64
					return conn.QueryRow(ctx, countSQL(q.Where)).Scan(&n)
				}
				_, err := pgIDs(ctx, conn, q.Where)
				return err
			})
			if err != nil {
				return nil, err
			}
			if !counting {
				if err := pageCount(ctx, o.Duration, conn, q.Where, &r); err != nil {
					return nil, err
				}
			}
			rep.Results = append(rep.Results, r)
			progress("%-32s %-5s %8d matches  engine %9.1f q/s  postgis %9.1f q/s  %.2fx", r.Query, kind(r.Count), r.Matches, r.EngineQPS, r.PGQPS, r.EngineQPS/r.PGQPS)
			if !counting {
				progress("%-32s %-5s %8s          postgis page+count (%s) %9.1f q/s  %.2fx", "", "", "", r.PGPageCountForm, r.PGPageCountQPS, r.EngineQPS/r.PGPageCountQPS)
			}
		}
	}
	return rep, nil
}

func kind(count bool) string {
	if count {
		return "count"
	}
	return "page"
}

func head(ids []int64) []int64 { return ids[:min(len(ids), 5)] }

func build(rows []Row) (*index.Snapshot, error) {
	t := placeType()
	b := index.NewBuilder(t)
	for i, r := range rows {
		o, err := r.object()
		if err != nil {
			return nil, err
		}
		key, err := t.Key(o)
		if err != nil {
			return nil, err
		}
		if err := b.Add(uint32(i), key, o); err != nil {
			return nil, err
		}
	}
	return b.Finish(1), nil
}

func load(ctx context.Context, conn *pgx.Conn, rows []Row) error {
	for _, stmt := range []string{
		"CREATE EXTENSION postgis",
		"CREATE UNLOGGED TABLE staging (id bigint, lon float8, lat float8, wkt text)",
	} {
		if _, err := conn.Exec(ctx, stmt); err != nil {
			return fmt.Errorf("%s: %w", stmt, err)
		}
	}
	_, err := conn.CopyFrom(ctx, pgx.Identifier{"staging"}, []string{"id", "lon", "lat", "wkt"},
		pgx.CopyFromSlice(len(rows), func(i int) ([]any, error) {
			r := rows[i]
			return []any{r.ID, r.Lon, r.Lat, r.Polygon}, nil
		}))
	if err != nil {
		return fmt.Errorf("copy: %w", err)
	}
	for _, stmt := range []string{
		`CREATE TABLE places AS SELECT id, ST_SetSRID(ST_MakePoint(lon, lat), 4326)::geometry(Point, 4326) AS location,
			ST_GeomFromText(wkt, 4326)::geometry(Polygon, 4326) AS area FROM staging`,
		"DROP TABLE staging",
		"ALTER TABLE places ADD PRIMARY KEY (id)",
		"CREATE INDEX places_location ON places USING gist (location)",
		"CREATE INDEX places_area ON places USING gist (area)",
		"CREATE INDEX places_location_geography ON places USING gist ((location::geography))",
		"VACUUM ANALYZE places",
	} {
		if _, err := conn.Exec(ctx, stmt); err != nil {
			return fmt.Errorf("%s: %w", stmt, err)
		}
	}
	return nil
}

const pageSize = 100

func enginePage(ctx context.Context, s *index.Snapshot, f *query.Filter) ([]int64, error) {
	res, err := s.Search(ctx, &query.Search{Filter: f, PageSize: pageSize})
	if err != nil {
		return nil, err
	}
	ids := make([]int64, len(res.Docs))
	for i, d := range res.Docs {
		ids[i] = int64(d) // document i holds row i
	}
	return ids, nil
}

func engineCount(ctx context.Context, s *index.Snapshot, f *query.Filter) (int64, error) {
	ar, err := s.Aggregate(ctx, &query.Aggregate{Filter: f, Metrics: []query.Metric{{Kind: query.Count}}}, nil)
	if err != nil {
		return 0, err
	}
	return ar.Groups[0].Count, nil
}

func engine(ctx context.Context, s *index.Snapshot, f *query.Filter) ([]int64, int64, error) {
	page, err := enginePage(ctx, s, f)
	if err != nil {
		return nil, 0, err
	}
	n, err := engineCount(ctx, s, f)
	return page, n, err
}

// rate runs call for d (after a tenth of it to warm up) and returns the
// calls per second.
func rate(ctx context.Context, d time.Duration, call func() error) (float64, error) {
	warm := time.Now().Add(d / 10)
	for time.Now().Before(warm) {
		if err := call(); err != nil {
			return 0, err
		}
	}
	n, start := 0, time.Now()
	for time.Since(start) < d || n < 3 {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		if err := call(); err != nil {
			return 0, err
		}
		n++
	}
	return float64(n) / time.Since(start).Seconds(), nil
}
