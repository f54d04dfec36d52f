// Command seed writes the demo warehouse of the end-to-end test: real
// Iceberg tables (internal/testkit/apidemo), the config that serves them, and the
// rows as JSON for the Node test to compute its expectations from.
//
//	go run ./api/testdata/e2e/seed -dir DIR
//
// writes DIR/warehouse, DIR/config.yaml (tokens from $APP_TOKEN and the
// SHA-256 digest of $LIMITED_TOKEN) and DIR/data.json.
package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ontoindex/ontoindex/internal/testkit/apidemo"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
)

func main() {
	dir := flag.String("dir", "", "directory to write the warehouse, config and data into")
	flag.Parse()
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "seed: -dir is required")
		os.Exit(2)
	}
	if err := run(context.Background(), *dir); err != nil {
		fmt.Fprintln(os.Stderr, "seed:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, dir string) error {
	limited := os.Getenv("LIMITED_TOKEN")
	if limited == "" {
		return fmt.Errorf("LIMITED_TOKEN is not set")
	}
	w, err := icebergtest.NewWarehouse(filepath.Join(dir, "warehouse"))
	if err != nil {
		return err
	}
	if err := apidemo.Create(ctx, w); err != nil {
		return err
	}
	specs, err := json.Marshal(apidemo.Specs("warehouse"))
	if err != nil {
		return err
	}
	digest := sha256.Sum256([]byte(limited))
	// YAML is a superset of JSON: the object types are written as JSON.
	cfg := fmt.Sprintf(`ontology:
  apiName: demo
  displayName: Demo
  description: The demo airline
  rid: ri.ontology.main.ontology.demo
dataDir: ./data
catalogs:
  warehouse:
    type: hadoop
    warehouse: ./warehouse
objectTypes: %s
server:
  listen: 127.0.0.1:0
auth:
  tokens:
    - name: app
      token: ${APP_TOKEN}
      objectTypes: ["*"]
    - name: limited
      sha256: %s
      objectTypes: ["Assignment"]
`, specs, hex.EncodeToString(digest[:]))
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(cfg), 0o644); err != nil {
		return err
	}
	// Longs beyond 2^53 go as strings: JavaScript numbers cannot hold them.
	employees := apidemo.EmployeeRows()
	for _, r := range employees {
		r["big"] = fmt.Sprint(r["big"])
	}
	data, err := json.MarshalIndent(map[string]any{
		"employees":   employees,
		"assignments": apidemo.AssignmentRows(),
		"bigBase":     fmt.Sprint(apidemo.BigBase),
	}, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "data.json"), data, 0o644)
}
