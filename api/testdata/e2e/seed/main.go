// Command seed writes the demo warehouse of the end-to-end test: real
// Iceberg tables (internal/testkit/apidemo), the config that serves them, and the
// rows as JSON for the Node test to compute its expectations from.
//
//	go run ./api/testdata/e2e/seed -dir DIR [-tls] [-opensearch URL]
//
// writes DIR/warehouse, DIR/config.yaml (tokens from $APP_TOKEN and the
// SHA-256 digest of $LIMITED_TOKEN), DIR/build.yaml (the same without
// Ghost), DIR/subscribe.yaml and DIR/data.json. The warehouse holds the
// demo (Employee, Assignment, Ghost) and its linked shop (Customer, Order,
// Tag and the join table of Order.tags). Every config declares apidemo's
// interfaces (Named, Billable extends Named, Party, Member) and their
// implementations by Employee, Customer, Order and Tag; data.json lists
// both under "interfaces" and "implementations".
//
// subscribe.yaml serves the types of build.yaml with the daemon polling
// every table at a short interval, as the subscription test needs, an
// admin token from $ADMIN_TOKEN (for the rebuild endpoint), and with -tls
// serves TLS with a certificate of a CA made for it
// (internal/testkit/tlstest): DIR/tls/ca.pem, cert.pem and key.pem.
//
// With -opensearch, every object type of every config names the
// OpenSearch cluster at URL as its backend, under an index prefix of
// DIR's own, so that the servers of several seeded directories share one
// cluster (run.sh's E2E_OPENSEARCH mode).
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
	"slices"

	"github.com/ontoindex/ontoindex/internal/testkit/apidemo"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
	"github.com/ontoindex/ontoindex/internal/testkit/tlstest"
	"github.com/ontoindex/ontoindex/objects"
)

func main() {
	dir := flag.String("dir", "", "directory to write the warehouse, config and data into")
	tls := flag.Bool("tls", false, "subscribe.yaml serves TLS with a certificate of a CA made here (DIR/tls)")
	openSearch := flag.String("opensearch", "", "`URL` of an OpenSearch cluster every object type names as its backend (default: the embedded index)")
	embeddedIndex := flag.String("embedded-index", "", "with -opensearch, the backend's embeddedIndex: full (the default) or none")
	flag.Parse()
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "seed: -dir is required")
		os.Exit(2)
	}
	if err := run(context.Background(), *dir, *tls, *openSearch, *embeddedIndex); err != nil {
		fmt.Fprintln(os.Stderr, "seed:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, dir string, tls bool, openSearch, embeddedIndex string) error {
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
	if err := apidemo.CreateShop(ctx, w); err != nil {
		return err
	}
	if err := apidemo.CreateStores(ctx, w); err != nil {
		return err
	}
	if err := apidemo.CreatePlaces(ctx, w); err != nil {
		return err
	}
	if err := apidemo.CreateArticles(ctx, w); err != nil {
		return err
	}
	types := apidemo.WithInterfaces(append(apidemo.Specs("warehouse"), apidemo.ShopSpecs("warehouse")...))
	types = append(types, apidemo.StoreSpecs("warehouse")...)
	types = append(types, apidemo.PlaceSpecs("warehouse")...)
	types = append(types, apidemo.ArticleSpecs("warehouse")...)
	digest := sha256.Sum256([]byte(limited))
	backend := backendOf(dir, openSearch, embeddedIndex)
	if err := writeConfig(filepath.Join(dir, "config.yaml"), types, digest, serving{backend: backend}); err != nil {
		return err
	}
	// build.yaml is config.yaml without Ghost, which the tests expect never
	// to be built (409). A plain `indexer build` over it builds every other
	// type and the link table of Order.tags, which `indexer build --type`
	// does not name: it takes object types only.
	var built []objects.TypeSpec
	for _, t := range types {
		if t.APIName != "Ghost" {
			built = append(built, t)
		}
	}
	if err := writeConfig(filepath.Join(dir, "build.yaml"), built, digest, serving{backend: backend}); err != nil {
		return err
	}
	live := serving{live: true, backend: backend}
	if tls {
		if err := os.Mkdir(filepath.Join(dir, "tls"), 0o755); err != nil {
			return err
		}
		if live.tls, _, err = tlstest.WriteFiles(filepath.Join(dir, "tls")); err != nil {
			return err
		}
	}
	if err := writeConfig(filepath.Join(dir, "subscribe.yaml"), built, digest, live); err != nil {
		return err
	}
	// Longs beyond 2^53 go as strings: JavaScript numbers cannot hold them.
	employees := apidemo.EmployeeRows()
	for _, r := range employees {
		r["big"] = fmt.Sprint(r["big"])
	}
	var names []string
	for _, t := range types {
		names = append(names, t.APIName)
	}
	data, err := json.MarshalIndent(map[string]any{
		"objectTypes": names,
		"employees":   employees,
		"assignments": apidemo.AssignmentRows(),
		"bigBase":     fmt.Sprint(apidemo.BigBase),
		"customers":   apidemo.CustomerRows(),
		"orders":      apidemo.OrderRows(),
		"tags":        apidemo.TagRows(),
		"orderTags":   apidemo.OrderTagRows(),
		"stores":      apidemo.StoreRows(),
		"places":      apidemo.Places,
		"articles":    apidemo.ArticleRows(),
		// The interfaces, as the config declares them, and by object type
		// how each implements them (interface property -> property,
		// interface link -> link).
		"interfaces":      apidemo.InterfaceSpecs(),
		"implementations": apidemo.Implementations(),
	}, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "data.json"), data, 0o644)
}

// serving is what a config adds to the types it serves and the app and
// limited tokens every config has.
type serving struct {
	// live runs the daemon with a short poll interval and adds an admin
	// token from $ADMIN_TOKEN.
	live bool
	tls  tlstest.Files // TLS when its Cert is set
	// backend, when set, is the backends section that every type names
	// (backendName).
	backend string
}

// backendName is the backend of the types with -opensearch.
const backendName = "cluster"

// backendOf is the backends section of the configs of dir with the
// cluster at url ("": none). Its index prefix is dir's: OpenSearch index
// names are lower case, and each seeded directory is another server.
func backendOf(dir, url, embeddedIndex string) string {
	if url == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(dir))
	b := fmt.Sprintf("backends:\n  %s:\n    type: opensearch\n    urls: [%q]\n    indexPrefix: e2e-%x-\n    replicas: 0\n",
		backendName, url, sum[:4])
	if embeddedIndex != "" {
		b += "    embeddedIndex: " + embeddedIndex + "\n"
	}
	return b
}

// writeConfig writes a config serving types from the warehouse beside it,
// with the app token from $APP_TOKEN and the limited one by its digest.
func writeConfig(path string, types []objects.TypeSpec, limitedDigest [sha256.Size]byte, how serving) error {
	if how.backend != "" {
		types = slices.Clone(types)
		for i := range types {
			types[i].Backend = backendName
		}
	}
	specs, err := json.Marshal(types)
	if err != nil {
		return err
	}
	interfaces, err := json.Marshal(apidemo.InterfaceSpecs())
	if err != nil {
		return err
	}
	var server, daemon, admin string
	if how.tls.Cert != "" {
		server = fmt.Sprintf("\n  tls:\n    certFile: %q\n    keyFile: %q", how.tls.Cert, how.tls.Key)
	}
	if how.live {
		// A commit is seen within a fraction of a second.
		daemon = "daemon:\n  pollInterval: 250ms\n"
		admin = "\n    - name: admin\n      token: ${ADMIN_TOKEN}\n      objectTypes: [\"*\"]\n      admin: true"
	}
	// YAML is a superset of JSON: the object types are written as JSON.
	// The ontology has no rid: the tests use the default one, which is what
	// @osdk/client names the ontology by.
	cfg := fmt.Sprintf(`ontology:
  apiName: demo
  displayName: Demo
  description: The demo airline
dataDir: ./data
catalogs:
  warehouse:
    type: hadoop
    warehouse: ./warehouse
%sinterfaces: %s
objectTypes: %s
%sserver:
  listen: 127.0.0.1:0%s
auth:
  tokens:
    - name: app
      token: ${APP_TOKEN}
      objectTypes: ["*"]
    - name: limited
      sha256: %s
      objectTypes: ["Assignment"]%s
`, how.backend, interfaces, specs, daemon, server, hex.EncodeToString(limitedDigest[:]), admin)
	return os.WriteFile(path, []byte(cfg), 0o644)
}
