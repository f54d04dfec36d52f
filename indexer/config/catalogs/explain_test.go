package catalogs_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"

	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/indexer/config/catalogs"
	"github.com/ontoindex/ontoindex/internal/testkit/deploytest"
	"github.com/ontoindex/ontoindex/internal/testkit/peopletest"
	"github.com/ontoindex/ontoindex/internal/testkit/s3test"
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
	load := func(t *testing.T) (*config.Config, error) {
		t.Helper()
		cfg, err := config.Parse([]byte(d.Config("objectTypes: [{apiName: People, table: "+peopletest.PeopleTable+"}]\n")), d.Dir)
		if err != nil {
			t.Fatal(err)
		}
		_, err = catalogs.LoadConfigured(ctx, cfg, peopletest.PeopleTable)
		return cfg, cfg.Explain(peopletest.PeopleTable, err)
	}
	check := func(t *testing.T, err error, problem config.Problem, want ...string) {
		t.Helper()
		var se *config.StorageError
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
		check(t, err, config.AccessDenied, "access denied", "SignatureDoesNotMatch", "s3.secret-access-key", "metadata.json")
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
		check(t, err, config.Unreachable, "unreachable", "connection refused")
	})
	t.Run("S3 refused at a port with 301", func(t *testing.T) {
		// gocloud says "not found" for this refusal; the table load asks
		// the store again and says what happened.
		refused := s3test.RefusedEndpoint(t)
		t.Setenv(deploytest.EnvS3Endpoint, refused)
		_, err := load(t)
		var se *config.StorageError
		if !errors.As(err, &se) || se.Problem != config.Unreachable || !strings.Contains(err.Error(), "load table "+peopletest.PeopleTable+": S3 at "+refused+" is unreachable (connection refused") {
			t.Fatalf("error %v: want S3 at %s unreachable", err, refused)
		}
		if strings.Contains(err.Error(), "no such object") || errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("error %v says the file does not exist", err)
		}
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
		tbl, err := catalogs.LoadConfigured(ctx, cfg, peopletest.PeopleTable)
		if err != nil {
			t.Fatal(err)
		}
		fs, err := tbl.FS(ctx)
		if err != nil {
			t.Fatal(err)
		}
		_, err = fs.Open(path)
		err = cfg.Explain(peopletest.PeopleTable, fmt.Errorf("object type People: read data file %s: %w", path, err))
		check(t, err, config.NoSuchObject, "object type People: read data file", "no such object", path)
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
