package deploytest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/jackc/pgx/v5"
	"github.com/ontoindex/ontoindex/internal/pgserver"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
	"github.com/ontoindex/ontoindex/internal/testkit/s3test"

	_ "github.com/apache/iceberg-go/catalog/sql"
	_ "github.com/apache/iceberg-go/io/gocloud/s3"
	_ "github.com/jackc/pgx/v5/stdlib"
	_ "github.com/uptrace/bun/driver/sqliteshim"
)

// Kind names a deployment.
type Kind string

// The deployments.
const (
	HadoopLocal Kind = "hadoop+local"
	PostgresS3  Kind = "sql/postgres+s3"
	SQLiteLocal Kind = "sql/sqlite+local"
)

// Kinds are every deployment, in the order tests run them.
func Kinds() []Kind { return []Kind{HadoopLocal, PostgresS3, SQLiteLocal} }

// CatalogName is the catalog's name in configs ("warehouse", as the table
// references of peopletest and indexertest name it); the sql catalog keys
// its rows by it.
const CatalogName = "warehouse"

// Bucket is the S3 bucket of the PostgresS3 warehouse.
const Bucket = "lake"

// The environment variables configs take the credentials from.
const (
	EnvS3Endpoint  = "LAKE_S3_ENDPOINT"
	EnvS3AccessKey = "LAKE_S3_ACCESS_KEY"
	EnvS3SecretKey = "LAKE_S3_SECRET_KEY"
	EnvPGPassword  = "LAKE_PG_PASSWORD"
)

// Options shape a deployment.
type Options struct {
	// Meter puts an s3test.Meter between the configured catalog and the S3
	// server (PostgresS3 only): the config's s3.endpoint is the Meter's.
	Meter bool
}

// Deployment is a catalog and a warehouse of one Kind.
type Deployment struct {
	Kind Kind
	Dir  string // a temporary directory: local warehouses, SQLite, configs
	// Warehouse is the test's own catalog handle, opened with the servers'
	// direct endpoints.
	Warehouse *icebergtest.Warehouse
	S3        *s3test.Server // PostgresS3
	Meter     *s3test.Meter  // PostgresS3 with Options.Meter
	PG        *pgserver.Server

	props map[string]string // the catalog's properties, credentials as ${ENV}
	env   map[string]string // what those references expand to
}

// Must stands up a deployment of kind for the test; its servers stop when
// the test ends. Without PostgreSQL or the S3 server it skips the test,
// except on CI (CI=true), where it fails.
func Must(tb testing.TB, kind Kind, o Options) *Deployment {
	tb.Helper()
	ctx := context.Background()
	d := &Deployment{Kind: kind, Dir: tb.TempDir(), env: map[string]string{}}
	switch kind {
	case HadoopLocal:
		d.props = map[string]string{"type": "hadoop", "warehouse": filepath.Join(d.Dir, "warehouse")}
	case SQLiteLocal:
		// A busy timeout: the indexer reads while other processes commit.
		d.props = map[string]string{"type": "sql", "sql.driver": "sqliteshim", "sql.dialect": "sqlite",
			"uri":       "file:" + filepath.Join(d.Dir, "catalog.db") + "?_pragma=busy_timeout(10000)",
			"warehouse": "file://" + filepath.Join(d.Dir, "warehouse")}
	case PostgresS3:
		d.S3 = s3test.Must(tb, s3test.Options{})
		d.S3.MustBucket(tb, Bucket)
		d.PG = mustPostgres(tb)
		password := "pg-secret-" + randomHex(8)
		mustExec(tb, d.PG.URL("postgres"), "CREATE ROLE lake LOGIN PASSWORD '"+password+"'", "CREATE DATABASE lake OWNER lake")
		access, secret := d.S3.Credentials()
		d.env[EnvS3AccessKey], d.env[EnvS3SecretKey], d.env[EnvPGPassword] = access, secret, password
		endpoint := d.S3.Endpoint()
		if o.Meter {
			d.Meter = s3test.MustMeter(tb, d.S3)
			endpoint = d.Meter.Endpoint()
		}
		d.env[EnvS3Endpoint] = endpoint
		// Path-style requests, as an S3-compatible store wants (the default
		// with an endpoint; said here as a config would).
		d.props = map[string]string{"type": "sql", "sql.driver": "pgx", "sql.dialect": "postgres",
			"uri":         fmt.Sprintf("postgres://lake:${%s}@127.0.0.1:%d/lake?sslmode=disable", EnvPGPassword, d.PG.Port()),
			"warehouse":   "s3://" + Bucket + "/warehouse",
			"s3.endpoint": "${" + EnvS3Endpoint + "}", "s3.region": d.S3.Region(), "s3.force-virtual-addressing": "false",
			"s3.access-key-id": "${" + EnvS3AccessKey + "}", "s3.secret-access-key": "${" + EnvS3SecretKey + "}"}
	default:
		tb.Fatalf("unknown deployment %q", kind)
	}
	props := d.Props()
	if kind == PostgresS3 {
		props["s3.endpoint"] = d.S3.Endpoint() // the test's writes are not metered
	}
	w, err := icebergtest.OpenWarehouse(ctx, CatalogName, props)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = w.Close() })
	d.Warehouse = w
	return d
}

func mustPostgres(tb testing.TB) *pgserver.Server {
	tb.Helper()
	s, err := pgserver.Start(context.Background(), pgserver.Options{})
	if errors.Is(err, pgserver.ErrNotFound) && os.Getenv("CI") != "true" {
		tb.Skipf("no PostgreSQL: %v", err)
	}
	if err != nil {
		tb.Fatalf("start PostgreSQL: %v", err)
	}
	tb.Cleanup(func() { _ = s.Stop() })
	return s
}

func mustExec(tb testing.TB, url string, stmts ...string) {
	tb.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		tb.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, s := range stmts {
		if _, err := conn.Exec(ctx, s); err != nil {
			tb.Fatalf("%s: %v", s, err)
		}
	}
}

// CatalogYAML is the catalog as an entry of a config's catalogs section
// (indented by two spaces), credentials as ${ENV} references.
func (d *Deployment) CatalogYAML() string {
	var b strings.Builder
	fmt.Fprintf(&b, "  %s:\n    type: %s\n", CatalogName, d.props["type"])
	for _, k := range slices.Sorted(maps.Keys(d.props)) {
		if k != "type" {
			fmt.Fprintf(&b, "    %s: %q\n", k, d.props[k])
		}
	}
	return b.String()
}

// Props are the catalog's properties with the references expanded.
func (d *Deployment) Props() iceberg.Properties {
	out := iceberg.Properties{}
	for k, v := range d.props {
		out[k] = os.Expand(v, func(name string) string { return d.env[name] })
	}
	return out
}

// Env is the environment the config's references need, as KEY=value.
func (d *Deployment) Env() []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(d.env)) {
		out = append(out, k+"="+d.env[k])
	}
	return out
}

// Setenv sets the environment of Env for the rest of the test.
func (d *Deployment) Setenv(tb testing.TB) {
	tb.Helper()
	for k, v := range d.env {
		tb.Setenv(k, v)
	}
}

// Secrets are the values that must never be shown: the S3 secret key and
// the PostgreSQL password.
func (d *Deployment) Secrets() []string {
	var out []string
	for _, k := range []string{EnvS3SecretKey, EnvPGPassword} {
		if v := d.env[k]; v != "" {
			out = append(out, v)
		}
	}
	return out
}

// Config is a config file's text over the deployment: dataDir ./data, the
// catalog, then extra (top-level sections, objectTypes among them).
func (d *Deployment) Config(extra string) string {
	return "dataDir: ./data\ncatalogs:\n" + d.CatalogYAML() + extra
}

// MustConfig writes Config(extra) to a file in Dir and returns its path.
func (d *Deployment) MustConfig(tb testing.TB, name, extra string) string {
	tb.Helper()
	path := filepath.Join(d.Dir, name)
	if err := os.WriteFile(path, []byte(d.Config(extra)), 0o644); err != nil {
		tb.Fatal(err)
	}
	return path
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Getenv is the value of one of the environment variables the config
// refers to ("" when the deployment has none).
func (d *Deployment) Getenv(name string) string { return d.env[name] }
