package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ontoindex/ontoindex/internal/testkit/deploytest"
)

// TestMain_demoSQL runs `indexer demo --once --catalog sql --catalog-uri
// postgres://... --warehouse s3://...` twice against a real PostgreSQL and
// S3 server: the tables are generated into the bucket, built fully, changed
// and built incrementally, the merge-on-read table refused and then
// recovered; the config it writes takes the S3 credentials from the
// environment and holds no secret.
func TestMain_demoSQL(t *testing.T) {
	d := deploytest.Must(t, deploytest.PostgresS3, deploytest.Options{})
	access, secret := d.S3.Credentials()
	t.Setenv("AWS_S3_ENDPOINT", d.S3.Endpoint())
	t.Setenv("AWS_REGION", d.S3.Region())
	t.Setenv("AWS_ACCESS_KEY_ID", access)
	t.Setenv("AWS_SECRET_ACCESS_KEY", secret)
	t.Setenv("PGPASSWORD", d.Getenv(deploytest.EnvPGPassword))
	dir := filepath.Join(t.TempDir(), "demo")
	uri := fmt.Sprintf("postgres://lake@127.0.0.1:%d/lake?sslmode=disable", d.PG.Port())
	args := []string{"demo", "--once", "--dir", dir, "--customers", "2000", "--catalog", "sql", "--catalog-uri", uri, "--warehouse", "s3://lake/demo"}

	code, out, errOut := run(args...)
	if code != exitOK {
		t.Fatalf("first run: exit %d\n%s\n%s", code, out, errOut)
	}
	for _, re := range []string{
		`(?m)^  Customer\s+demo\.sales\.customers\s+2000 rows in \d+ data files? \(generated\)$`,
		`(?m)^Customer\s+full\s+0\s+\d+\s+\d+\s+\d+\s+2000\s+2000\s`,
		`(?m)^Customer\s+incremental\s+\d+\s+\d+\s+2\s+\d+\s+\d+\s+1\s+0\s`,
		`(?m)^Aircraft\s+incremental\s.*MERGE_ON_READ$`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("first run: output does not match %s\n%s", re, out)
		}
	}
	raw, err := os.ReadFile(filepath.Join(dir, "ontology.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := string(raw)
	for _, want := range []string{"type: sql", "sql.driver: pgx", "sql.dialect: postgres", `warehouse: "s3://lake/demo"`, `s3.secret-access-key: "${AWS_SECRET_ACCESS_KEY:-}"`} {
		if !strings.Contains(cfg, want) {
			t.Errorf("config does not hold %q:\n%s", want, cfg)
		}
	}
	for _, s := range d.Secrets() {
		if strings.Contains(cfg+out+errOut, s) {
			t.Errorf("the config or the output holds a secret")
		}
	}
	objects, err := d.S3.List(context.Background(), "s3://lake/demo/")
	if err != nil || len(objects) == 0 {
		t.Fatalf("objects in the bucket: %d, %v", len(objects), err)
	}

	code, out, errOut = run(args...)
	if code != exitOK || !regexp.MustCompile(`(?m)^  Customer\s+demo\.sales\.customers\s+2000 rows in \d+ data files? \(reused\)$`).MatchString(out) ||
		!strings.Contains(out, "Aircraft is up to date again") {
		t.Fatalf("second run: exit %d\n%s\n%s", code, out, errOut)
	}
}
