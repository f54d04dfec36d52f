package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/chromedp/chromedp"
	"github.com/ontoindex/ontoindex/indexer/daemon"
	"github.com/ontoindex/ontoindex/internal/testkit/apidemo"
	"github.com/ontoindex/ontoindex/internal/testkit/browsertest"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
	"github.com/ontoindex/ontoindex/internal/testkit/peopletest"
	"github.com/ontoindex/ontoindex/objects"
)

// consoleKeep, when set, is where the console tests also write every
// screenshot, to look at them.
var consoleKeep = flag.String("console.keep", "", "also write every screenshot of the console tests to this directory")

// consoleLimitedToken sees Assignment only.
const consoleLimitedToken = "console-limited-token-0123456789"

// consoleEnv is a real `indexer serve` over the demo warehouse of the API
// tests (Employee, Assignment and the linked shop) plus Plane, a
// merge-on-read table with a row whose primary key is null, and a headless
// browser.
type consoleEnv struct {
	p         *serveProc
	b         *browsertest.Browser
	w         *icebergtest.Warehouse
	employees *icebergtest.Table
	planes    *icebergtest.Table
}

// Plane rows: ids 1..5 and one without an id, an invalid row.
var planeSchema = iceberg.NewSchema(1,
	iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64},
	iceberg.NestedField{ID: 2, Name: "tail", Type: iceberg.PrimitiveTypes.String},
	iceberg.NestedField{ID: 3, Name: "model", Type: iceberg.PrimitiveTypes.String},
	iceberg.NestedField{ID: 4, Name: "seats", Type: iceberg.PrimitiveTypes.Int32})

func planeRows() []icebergtest.Row {
	models := []string{"A320", "B737", "E190"}
	var rows []icebergtest.Row
	for i := 1; i <= 5; i++ {
		rows = append(rows, icebergtest.Row{"id": int64(i), "tail": fmt.Sprintf("N%d0%dOI", i, i), "model": models[i%len(models)], "seats": 100 + 20*i})
	}
	return append(rows, icebergtest.Row{"id": nil, "tail": "N000XX", "model": "A320", "seats": 150})
}

// consoleTypes are the object types served, in config order.
var consoleTypes = []string{"Employee", "Assignment", "Customer", "Order", "Tag", "Plane"}

func mustConsoleEnv(t *testing.T) *consoleEnv {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	w, err := icebergtest.NewWarehouse(filepath.Join(dir, "warehouse"))
	if err != nil {
		t.Fatal(err)
	}
	if err := apidemo.Create(ctx, w); err != nil {
		t.Fatal(err)
	}
	if err := apidemo.CreateShop(ctx, w); err != nil {
		t.Fatal(err)
	}
	planes := peopletest.MustTable(t, w, "ns.planes", planeSchema, peopletest.MergeOnRead(), planeRows())
	var specs []objects.TypeSpec
	for _, s := range append(apidemo.Specs("warehouse"), apidemo.ShopSpecs("warehouse")...) {
		if s.APIName != "Ghost" { // never built: a daemon would build it
			specs = append(specs, s)
		}
	}
	specs = append(specs, objects.TypeSpec{APIName: "Plane", DisplayName: "Plane", PluralDisplayName: "Planes",
		Table: "warehouse.ns.planes", PrimaryKey: []string{"id"}, TitleProperty: "tail",
		Properties: map[string]objects.PropertySpec{"id": {Column: "id"}, "tail": {Column: "tail"},
			"model": {Column: "model", Search: objects.SearchKeyword}, "seats": {Column: "seats"}}})
	js, err := json.Marshal(specs)
	if err != nil {
		t.Fatal(err)
	}
	limited := sha256.Sum256([]byte(consoleLimitedToken))
	cfg := filepath.Join(dir, "ontology.yaml")
	mustFile(t, cfg, `ontology: {apiName: demo, displayName: Demo, description: The demo airline}
dataDir: ./data
catalogs:
  warehouse: {type: hadoop, warehouse: ./warehouse}
daemon: {pollInterval: 100ms, retryBackoff: 100ms, maxRetryBackoff: 1s}
auth:
  tokens:
    - {name: app, token: `+serveAppToken+`, objectTypes: ["*"]}
    - {name: ops, token: `+serveAdminToken+`, objectTypes: ["*"], admin: true}
    - {name: limited, sha256: `+hex.EncodeToString(limited[:])+`, objectTypes: [Assignment]}
objectTypes: `+string(js)+"\n")
	t.Setenv("INDEXER_LOG", "debug") // the most the server logs: the tokens must be in none of it
	p := startServe(t, cfg)
	for _, name := range append(consoleTypes, objects.LinkTableName("Order", "tags")) {
		p.waitStatus(t, name, "the first build", func(st daemon.TypeStatus) bool { return st.Generation > 0 && st.State == daemon.StateIdle })
	}
	emp, err := w.LoadTable(ctx, "demo.employees")
	if err != nil {
		t.Fatal(err)
	}
	e := &consoleEnv{p: p, b: browsertest.New(t, 1360, 1000), w: w, employees: emp, planes: planes}
	t.Cleanup(func() {
		if strings.Contains(p.stderr.String(), serveAppToken) || strings.Contains(p.stderr.String(), serveAdminToken) ||
			strings.Contains(p.stderr.String(), consoleLimitedToken) {
			t.Error("the server's log holds a token")
		}
	})
	return e
}

// tab opens a tab on the console and signs in with token through the form.
func (e *consoleEnv) tab(t *testing.T, token string) *browsertest.Tab {
	t.Helper()
	tab := e.b.Tab(t)
	e.open(t, tab, "")
	tab.Do(t, chromedp.WaitVisible(chromedp.CSS("#signin-form")),
		chromedp.SendKeys(chromedp.CSS("#token"), token), chromedp.Click(chromedp.CSS("#signin")))
	waitJS(t, tab, `document.querySelector("#types") ? "signed in" : (document.querySelector("#signin-message") || {}).textContent || ""`, "signed in")
	return tab
}

// open loads the console at the fragment frag ("#/..." or "").
func (e *consoleEnv) open(t *testing.T, tab *browsertest.Tab, frag string) {
	t.Helper()
	tab.Do(t, chromedp.Navigate(e.p.base+"/"+frag))
}

// shot saves a screenshot of the tab under the test's temp dir, checked
// to be a PNG with something on it; -console.keep keeps a copy. (The
// screenshots of docs/console.md are the demo's: tools/console-shots.sh.)
func (e *consoleEnv) shot(t *testing.T, tab *browsertest.Tab, name string) {
	t.Helper()
	tab.Screenshot(t, filepath.Join(t.TempDir(), name+".png"))
	if *consoleKeep != "" {
		tab.Screenshot(t, filepath.Join(*consoleKeep, name+".png"))
	}
}

// noProblems fails t when the tab saw an uncaught exception or a
// Content-Security-Policy violation.
func noProblems(t *testing.T, tab *browsertest.Tab) {
	t.Helper()
	if ps := tab.Problems(); len(ps) > 0 {
		t.Errorf("the page had problems:\n%s", strings.Join(ps, "\n"))
	}
}

// waitJS evaluates expr (a string expression) until it equals want, and
// fails with the last value after a while.
func waitJS(t *testing.T, tab *browsertest.Tab, expr, want string) string {
	t.Helper()
	deadline := time.Now().Add(browsertest.Timeout)
	var got string
	for {
		got = browsertest.Get(t, tab, chromedp.Evaluate[string](expr))
		if got == want {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited for\n  %s\nto be %q; it is %q", expr, want, got)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// js evaluates a string expression once.
func js(t *testing.T, tab *browsertest.Tab, expr string) string {
	t.Helper()
	return browsertest.Get(t, tab, chromedp.Evaluate[string](expr))
}

// Expressions over the explorer.
const (
	rowPKs   = `[...document.querySelectorAll("#objects tbody tr")].map((r) => r.dataset.pk).join(" ")`
	totalOf  = `((document.querySelector("#total") || {dataset: {}}).dataset.count || "")`
	pageInfo = `((document.querySelector("#page-info") || {}).textContent || "")`
)

// cellsOf is the expression of the texts of one column of the explorer.
func cellsOf(prop string) string {
	return fmt.Sprintf(`[...document.querySelectorAll('#objects tbody td[data-prop=%q]')].map((c) => c.textContent).join("|")`, prop)
}

// textOf is the expression of an element's text ("" when absent).
func textOf(css string) string {
	return fmt.Sprintf(`((document.querySelector(%q) || {}).textContent || "")`, css)
}
