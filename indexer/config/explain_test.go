package config

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ontoindex/ontoindex/internal/testkit/deploytest"
	"github.com/ontoindex/ontoindex/internal/testkit/peopletest"
)

// internals are what a plain storage error must not show: the S3 client's
// wrapping, request ids, and the gocloud blob layer.
var internals = []string{"operation error", "RequestID", "HostID", "https response error", "blob (key", "code=Unknown"}

// TestConfig_Explain provokes each storage failure on a real S3 server
// behind a sql catalog on PostgreSQL, and checks the explanation: the
// problem, the bucket, the endpoint and the file, no client internals and
// no secret.
func TestConfig_Explain(t *testing.T) {
	ctx := context.Background()
	d := deploytest.Must(t, deploytest.PostgresS3, deploytest.Options{})
	people := peopletest.MustPeople(t, d.Warehouse, peopletest.People, nil, 2, 10)
	d.Setenv(t)
	load := func(t *testing.T) (*Config, error) {
		t.Helper()
		cfg, err := Parse([]byte(d.Config("objectTypes: [{apiName: People, table: "+peopletest.PeopleTable+"}]\n")), d.Dir)
		if err != nil {
			t.Fatal(err)
		}
		_, err = cfg.LoadTable(ctx, peopletest.PeopleTable)
		return cfg, cfg.Explain(peopletest.PeopleTable, err)
	}
	check := func(t *testing.T, err error, problem Problem, want ...string) {
		t.Helper()
		var se *StorageError
		if !errors.As(err, &se) || se.Problem != problem {
			t.Fatalf("error %v: want a StorageError with problem %q", err, problem)
		}
		msg := err.Error()
		for _, w := range append(want, `bucket "lake"`, d.S3.Endpoint(), "catalog "+deploytest.CatalogName) {
			if !strings.Contains(msg, w) {
				t.Errorf("error %q does not say %q", msg, w)
			}
		}
		for _, bad := range append(internals, d.Secrets()...) {
			if strings.Contains(msg, bad) {
				t.Errorf("error %q shows %q", msg, bad)
			}
		}
		t.Logf("%s: %s", problem, msg)
	}
	if _, err := load(t); err != nil {
		t.Fatal(err)
	}

	t.Run("wrong credentials", func(t *testing.T) {
		t.Setenv(deploytest.EnvS3SecretKey, "a-wrong-secret-key")
		_, err := load(t)
		check(t, err, AccessDenied, "access denied", "SignatureDoesNotMatch", "s3.secret-access-key", "metadata.json")
		if strings.Contains(err.Error(), "a-wrong-secret-key") {
			t.Errorf("the configured secret is shown: %v", err)
		}
	})
	t.Run("S3 server down", func(t *testing.T) {
		if err := d.S3.Shutdown(); err != nil {
			t.Fatal(err)
		}
		defer func() {
			if err := d.S3.Restart(ctx); err != nil {
				t.Fatal(err)
			}
		}()
		_, err := load(t)
		check(t, err, Unreachable, "unreachable", "connection refused")
	})
	t.Run("data file deleted", func(t *testing.T) {
		cfg, err := load(t)
		if err != nil {
			t.Fatal(err)
		}
		tasks, err := people.T.Scan().PlanFiles(ctx)
		if err != nil {
			t.Fatal(err)
		}
		path := tasks[0].File.FilePath()
		if err := d.S3.DeleteObject(ctx, path); err != nil {
			t.Fatal(err)
		}
		tbl, err := cfg.LoadTable(ctx, peopletest.PeopleTable)
		if err != nil {
			t.Fatal(err)
		}
		fs, err := tbl.FS(ctx)
		if err != nil {
			t.Fatal(err)
		}
		_, err = fs.Open(path)
		err = cfg.Explain(peopletest.PeopleTable, fmt.Errorf("object type People: read data file %s: %w", path, err))
		check(t, err, NoSuchObject, "object type People: read data file", "no such object", path)
	})
	t.Run("PostgreSQL down", func(t *testing.T) {
		if err := d.PG.Shutdown(); err != nil {
			t.Fatal(err)
		}
		defer func() {
			if err := d.PG.Restart(ctx); err != nil {
				t.Fatal(err)
			}
		}()
		_, err := load(t)
		msg := fmt.Sprint(err)
		if err == nil || !strings.Contains(msg, fmt.Sprintf("127.0.0.1:%d", d.PG.Port())) || !strings.Contains(msg, "catalog "+deploytest.CatalogName) {
			t.Fatalf("error %q: want the catalog and the database's address", msg)
		}
		for _, s := range d.Secrets() {
			if strings.Contains(msg, s) {
				t.Fatalf("error %q shows a secret", msg)
			}
		}
		t.Logf("PostgreSQL down: %s", msg)
	})
}

func TestConfig_Redact(t *testing.T) {
	cfg := &Config{Catalogs: map[string]Catalog{
		"pg":   {Type: "sql", Properties: map[string]string{"uri": "postgres://lake:p%40ss-word@db:5432/lake", "s3.secret-access-key": "s3-secret-value", "s3.access-key-id": "AKIDVISIBLE"}},
		"kv":   {Type: "sql", Properties: map[string]string{"uri": "host=db user=lake password='kv pass word' dbname=lake"}},
		"rest": {Type: "rest", Properties: map[string]string{"uri": "https://polaris/api/catalog", "credential": "client:client-secret", "token": "tok"}},
	}}
	tests := []struct{ in, want string }{
		{"dial postgres://lake:p%40ss-word@db:5432/lake", "dial postgres://lake:***@db:5432/lake"},
		{"password p@ss-word in clear", "password *** in clear"},
		{"key s3-secret-value, id AKIDVISIBLE", "key ***, id AKIDVISIBLE"},
		{"conn password='kv pass word'", "conn password='***'"},
		{"oauth client:client-secret refused", "oauth *** refused"},
		{"a tok is too short to redact", "a tok is too short to redact"},
	}
	for _, tt := range tests {
		if got := cfg.Redact(tt.in); got != tt.want {
			t.Errorf("Redact(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	err := cfg.Explain("pg.ns.t", fmt.Errorf("open catalog: %w", errors.New("bad uri postgres://lake:p%40ss-word@db:5432/lake")))
	if strings.Contains(err.Error(), "p%40ss-word") || !strings.Contains(err.Error(), "open catalog: bad uri") {
		t.Fatalf("Explain: %v", err)
	}
}
