package main

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/chromedp/chromedp"
	"github.com/ontoindex/ontoindex/indexer/daemon"
	"github.com/ontoindex/ontoindex/internal/testkit/browsertest"
	"github.com/ontoindex/ontoindex/internal/testkit/daemontest"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
	"github.com/ontoindex/ontoindex/internal/testkit/peopletest"
)

// Expressions over the explorer's live updates.
const (
	liveState = `((document.querySelector("#live") || {dataset: {}}).dataset.state || "")`
	// liveRows lists the rows an update touched, as pk:state.
	liveRows = `[...document.querySelectorAll("#objects tbody tr[data-live]")].map((r) => r.dataset.pk + ":" + r.dataset.live).join(" ")`
	// markPage marks the window and every row element: a reload of the
	// document loses the first, a new table the second.
	markPage = `(() => { window.__sameDocument = "yes"; for (const tr of document.querySelectorAll("#objects tbody tr")) tr.__drawn = "yes"; })()`
	// pausedFlash stops every animation at its start, for a screenshot
	// that shows the highlights whatever the moment it is taken.
	pausedFlash = `(() => { for (const a of document.getAnimations()) { a.pause(); a.currentTime = 0; } })()`
)

// drawn is the expression of whether the row of pk is the element
// markPage marked, in the same document ("yes yes").
func drawn(pk int64) string {
	return fmt.Sprintf(`(document.querySelector('#objects tr[data-pk="%d"]') || {}).__drawn + " " + window.__sameDocument`, pk)
}

// cellOf is the expression of the text of one cell of the explorer.
func cellOf(pk int64, prop string) string {
	return textOf(fmt.Sprintf(`#objects tr[data-pk="%d"] td[data-prop=%q]`, pk, prop))
}

// employee returns a copy of the employee row with id as written, edited.
func employee(t *testing.T, id int64, edit func(r icebergtest.Row)) icebergtest.Row {
	t.Helper()
	row := employees[id/10-1]
	if row["id"] != id {
		t.Fatalf("employee row %v, want %d", row["id"], id)
	}
	out := icebergtest.Row{}
	for k, v := range row {
		out[k] = v
	}
	edit(out)
	return out
}

// commitEmployees replaces the employees with the ids by rows in one
// copy-on-write commit, as another writer does.
func (e *consoleEnv) commitEmployees(t *testing.T, ids []int64, rows ...icebergtest.Row) {
	t.Helper()
	var filter iceberg.BooleanExpression = iceberg.AlwaysFalse{}
	for _, id := range ids {
		filter = iceberg.NewOr(filter, iceberg.EqualTo(iceberg.Reference("id"), id))
	}
	if err := e.employees.Overwrite(context.Background(), filter, rows); err != nil {
		t.Fatal(err)
	}
}

// liveExplorer opens the explorer at frag and waits until it is live:
// subscribed, and the page shown is as new as the subscription.
func (e *consoleEnv) liveExplorer(t *testing.T, tab *browsertest.Tab, base, frag string) {
	t.Helper()
	tab.Do(t, chromedp.Navigate(base+"/"+frag))
	waitJS(t, tab, liveState, "live")
	tab.Do(t, chromedp.Evaluate[chromedp.Void](markPage))
}

// testConsoleLive: a commit to the table of the explorer's type shows in
// the open page without a reload: the changed row in place with its
// changed cells marked, a new row at the top, a deleted one struck
// through, the total following; values with HTML stay text.
func testConsoleLive(t *testing.T, e *consoleEnv) {
	tab := e.tab(t, serveAppToken)
	e.liveExplorer(t, tab, e.p.base, "#/explore/Employee?sort=id:asc&size=50")
	waitJS(t, tab, totalOf, "48")

	// One commit: 50 changes, 60 goes, 1000 comes.
	hire := employee(t, 50, func(r icebergtest.Row) { r["id"], r["name"] = int64(1000), "Nia New-Hire" })
	e.commitEmployees(t, []int64{50, 60}, employee(t, 50, func(r icebergtest.Row) {
		r["name"], r["age"], r["bio"] = "Live Update", 64, xssBio
	}), hire)
	committed := time.Now()
	waitJS(t, tab, liveRows, "1000:added 50:updated 60:removed")
	t.Logf("commit to page: %v (poll interval 100ms; the wait polls every 50ms)", time.Since(committed).Round(time.Millisecond))
	if got := js(t, tab, cellOf(50, "name")+` + "|" + `+cellOf(50, "age")+` + "|" + `+cellOf(50, "bio")); got != "Live Update|64|"+xssBio {
		t.Errorf("row 50 shows %q", got)
	}
	if got := js(t, tab, `[...document.querySelectorAll('#objects tr[data-pk="50"] td.live-changed')].map((td) => td.dataset.prop).join(" ")`); got != "name age bio" {
		t.Errorf("changed cells of row 50: %q", got)
	}
	if got := js(t, tab, drawn(50)+` + " " + `+drawn(60)); got != "yes yes yes yes" {
		t.Errorf("rows 50 and 60 were drawn again or the page reloaded: %q", got)
	}
	if got := js(t, tab, rowPKs); !strings.HasPrefix(got, "1000 10 20 30 40 50 60 70") {
		t.Errorf("rows %q, want the new one first", got)
	}
	if got := js(t, tab, textOf(`#objects tr[data-pk="1000"] td.title`)+` + " " + `+totalOf); got != "Nia New-Hire 48" {
		t.Errorf("new row and total: %q", got)
	}
	if got := js(t, tab, `document.querySelectorAll("main img, main script, main b").length + " " + typeof window.__xss`); got != "0 undefined" {
		t.Errorf("HTML of a pushed value became elements: %q", got)
	}
	tab.Do(t, chromedp.Evaluate[chromedp.Void](pausedFlash))
	e.shot(t, tab, "live")

	// A second change to the same row updates it again, in place.
	e.commitEmployees(t, []int64{50}, employee(t, 50, func(r icebergtest.Row) { r["name"], r["age"], r["bio"] = "Live Update", 65, xssBio }))
	waitJS(t, tab, cellOf(50, "age"), "65")
	if got := js(t, tab, drawn(50)+` + " " + `+liveRows); got != "yes yes 1000:added 50:updated 60:removed" {
		t.Errorf("after the second change: %q", got)
	}
	noProblems(t, tab)
}

// testConsoleLiveFilter: the explorer follows its where clause: an object
// that leaves the filtered set is struck through, one that enters is
// added, one that changes inside it is updated, and a change to an
// object outside the set sends nothing.
func testConsoleLiveFilter(t *testing.T, e *consoleEnv) {
	tab := e.tab(t, serveAppToken)
	f := url.QueryEscape(`{"dept":{"in":["Research"]}}`)
	e.liveExplorer(t, tab, e.p.base, "#/explore/Employee?f="+f+"&sort=id:asc&size=50")
	before, err := strconv.Atoi(js(t, tab, totalOf))
	if err != nil {
		t.Fatal(err)
	}
	if got := js(t, tab, cellsOf("dept")); strings.Trim(strings.ReplaceAll(got, "Research", ""), "|") != "" || !strings.Contains(js(t, tab, rowPKs), "70") {
		t.Fatalf("the Research employees: %q", got)
	}

	// 120 is in Flight Ops: its change comes first, and nothing of it
	// arrives; then 70 leaves Research.
	e.commitEmployees(t, []int64{120}, employee(t, 120, func(r icebergtest.Row) { r["title"] = "Chief Pilot" }))
	e.p.waitStatus(t, "Employee", "the build of the commit", daemontest.UpToDate(e.employees))
	e.commitEmployees(t, []int64{70}, employee(t, 70, func(r icebergtest.Row) { r["dept"] = "Sales" }))
	waitJS(t, tab, liveRows, "70:removed")
	if got := js(t, tab, `document.querySelector("#live").dataset.updates + " " + `+totalOf); got != fmt.Sprintf("1 %d", before-1) {
		t.Errorf("updates and total after 70 left: %q (total before %d)", got, before)
	}

	// 100 enters Research.
	e.commitEmployees(t, []int64{100}, employee(t, 100, func(r icebergtest.Row) { r["dept"] = "Research" }))
	waitJS(t, tab, liveRows, "100:added 70:removed")
	waitJS(t, tab, totalOf, strconv.Itoa(before))
	if got := js(t, tab, cellOf(100, "dept")); got != "Research" {
		t.Errorf("row 100 dept %q", got)
	}

	// 30 changes inside it.
	e.commitEmployees(t, []int64{30}, employee(t, 30, func(r icebergtest.Row) {
		r["name"], r["age"], r["active"] = "Edsger Hamilton-Reyes", 61, true
	}))
	waitJS(t, tab, liveRows, "100:added 30:updated 70:removed")
	if got := js(t, tab, `[...document.querySelectorAll('#objects tr[data-pk="30"] td.live-changed')].map((td) => td.dataset.prop).join(" ")`); got != "name active age" {
		t.Errorf("changed cells of row 30: %q", got)
	}
	tab.Do(t, chromedp.Evaluate[chromedp.Void](pausedFlash))
	e.shot(t, tab, "live-filter")
	noProblems(t, tab)
}

// testConsoleLivePaging: on a page of a longer set, a visible row is
// updated in place; a change to an object that is not shown may belong to
// another page, so the toolbar counts it and reloads on a click.
func testConsoleLivePaging(t *testing.T, e *consoleEnv) {
	tab := e.tab(t, serveAppToken)
	e.liveExplorer(t, tab, e.p.base, "#/explore/Employee?sort=id:asc&size=10")
	waitJS(t, tab, rowPKs, "10 20 30 40 50 70 80 90 100 110")
	e.commitEmployees(t, []int64{10, 300},
		employee(t, 10, func(r icebergtest.Row) { r["name"] = "First Row" }),
		employee(t, 300, func(r icebergtest.Row) { r["name"] = "Page Three" }))
	waitJS(t, tab, cellOf(10, "name"), "First Row")
	waitJS(t, tab, textOf("#live-elsewhere"), "1 change outside this page · reload")
	if got := js(t, tab, drawn(10)+` + " " + `+liveRows+` + " " + `+pageInfo); got != "yes yes 10:updated Page 1 · 1–10 of 48" {
		t.Errorf("after the commit: %q", got)
	}
	tab.Do(t, chromedp.Evaluate[chromedp.Void](pausedFlash))
	e.shot(t, tab, "live-paging")
	tab.Do(t, chromedp.Click(chromedp.CSS("#live-elsewhere")))
	waitJS(t, tab, textOf("#live-elsewhere")+` + "|" + `+liveRows, "|")
	if got := js(t, tab, cellOf(10, "name")+` + " " + window.__sameDocument`); got != "First Row yes" {
		t.Errorf("after the reload: %q", got)
	}
	noProblems(t, tab)
}

// testConsoleLiveRefresh: a full rebuild swaps the generation; the server
// says refreshObjectSet and the explorer loads its page again, without
// reloading the document.
func testConsoleLiveRefresh(t *testing.T, e *consoleEnv) {
	tab := e.tab(t, serveAppToken)
	e.liveExplorer(t, tab, e.p.base, "#/explore/Employee?sort=id:asc&size=50")
	generation := e.p.status(t, "Employee").Generation
	if code, body := e.p.do(t, http.MethodPost, "/api/indexer/v1/objectTypes/Employee/rebuild", serveAdminToken, ""); code/100 != 2 {
		t.Fatalf("rebuild: %d %s", code, body)
	}
	e.p.waitStatus(t, "Employee", "the new generation", func(st daemon.TypeStatus) bool { return st.Generation > generation })
	waitJS(t, tab, `document.querySelector("#live").dataset.refreshes`, "1")
	waitJS(t, tab, drawn(10), "undefined yes")
	waitJS(t, tab, liveState+` + " " + `+totalOf, "live 48")
	e.shot(t, tab, "live-refresh")
	noProblems(t, tab)
}

// testConsoleLiveReconnect: through a proxy, as on a network: the browser
// offers the token as the Bearer- sub-protocol; when the connection
// drops the indicator says so, and once it is back the page shows what
// was committed meanwhile.
func testConsoleLiveReconnect(t *testing.T, e *consoleEnv) {
	p := newLiveProxy(t, e.p.base)
	tab := e.tabAt(t, p.base, serveAppToken)
	e.liveExplorer(t, tab, p.base, "#/explore/Employee?sort=id:asc&size=50")
	for _, got := range p.offered() {
		if got != "Bearer-"+serveAppToken {
			t.Errorf("the browser offered the sub-protocols %q", got)
		}
	}

	p.missing.Store(true) // reconnects fail until the change is served
	if n := p.drop(t); n != 1 {
		t.Fatalf("dropped %d websockets, want the explorer's 1", n)
	}
	waitJS(t, tab, liveState, "reconnecting")
	e.shot(t, tab, "live-reconnecting")
	e.commitEmployees(t, []int64{80}, employee(t, 80, func(r icebergtest.Row) { r["name"] = "While Away" }))
	e.p.waitStatus(t, "Employee", "the build of the commit", daemontest.UpToDate(e.employees))
	p.missing.Store(false)
	waitJS(t, tab, liveState, "live")
	waitJS(t, tab, cellOf(80, "name"), "While Away")
	if got := js(t, tab, `window.__sameDocument + " " + `+liveRows); got != "yes " {
		t.Errorf("after the reconnect: %q", got)
	}
	noProblems(t, tab)
}

// testConsoleLiveMissing: a server without the live endpoint (an older
// one, behind a proxy that answers 404 there): after a few attempts the
// indicator says "Not live" and the explorer works as before.
func testConsoleLiveMissing(t *testing.T, e *consoleEnv) {
	p := newLiveProxy(t, e.p.base)
	p.missing.Store(true)
	tab := e.tabAt(t, p.base, serveAppToken)
	tab.Do(t, chromedp.Navigate(p.base+"/#/explore/Employee?sort=id:asc&size=50"))
	waitJS(t, tab, totalOf, "48")
	waitJS(t, tab, liveState, "off")
	waitJS(t, tab, `document.querySelector("#live").title.startsWith("This server sends no live updates.") + ""`, "true")
	if n := p.attempts.Load(); n != 3 {
		t.Errorf("%d attempts, want 3 before giving up", n)
	}
	tab.Do(t, chromedp.Click(chromedp.CSS(`th[data-prop="age"] button`)))
	waitJS(t, tab, `location.hash.includes("sort=age%3Aasc") + " " + `+totalOf, "true 48")
	waitJS(t, tab, liveState, "off") // the new view does not try again
	if n := p.attempts.Load(); n != 3 {
		t.Errorf("%d attempts after a new view, want 3", n)
	}
	e.shot(t, tab, "live-missing")
	noProblems(t, tab)
}

// tabAt opens a tab on the console at base and signs in with token.
func (e *consoleEnv) tabAt(t *testing.T, base, token string) *browsertest.Tab {
	t.Helper()
	tab := e.b.Tab(t)
	tab.Do(t, chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS("#signin-form")),
		chromedp.SendKeys(chromedp.CSS("#token"), token), chromedp.Click(chromedp.CSS("#signin")))
	waitJS(t, tab, `document.querySelector("#types") ? "signed in" : ""`, "signed in")
	return tab
}

// TestConsoleAnonymousLive: a server without tokens (loopback only)
// needs none: the console offers no sub-protocol, and the explorer is
// live all the same.
func TestConsoleAnonymousLive(t *testing.T) {
	if testing.Short() {
		t.Skip("drives a browser; run without -short")
	}
	dir := t.TempDir()
	w, err := icebergtest.NewWarehouse(filepath.Join(dir, "warehouse"))
	if err != nil {
		t.Fatal(err)
	}
	planes := peopletest.MustTable(t, w, "ns.planes", planeSchema, nil, planeRows()[:5])
	cfg := filepath.Join(dir, "ontology.yaml")
	mustFile(t, cfg, `ontology: {apiName: demo}
dataDir: ./data
catalogs:
  warehouse: {type: hadoop, warehouse: ./warehouse}
daemon: {pollInterval: 100ms, retryBackoff: 100ms, maxRetryBackoff: 1s}
objectTypes:
  - {apiName: Plane, table: warehouse.ns.planes, primaryKey: [id], titleProperty: tail,
     properties: {id: {column: id}, tail: {column: tail}, model: {column: model}, seats: {column: seats}}}
`)
	p := startServe(t, cfg)
	p.waitStatus(t, "Plane", "the first build", daemontest.UpToDate(planes))
	e := &consoleEnv{p: p, b: browsertest.New(t, 1360, 1000)}
	proxy := newLiveProxy(t, p.base)
	tab := e.b.Tab(t)
	e.liveExplorer(t, tab, proxy.base, "#/explore/Plane?sort=id:asc")
	waitJS(t, tab, rowPKs, "1 2 3 4 5")

	row := planeRows()[2]
	row["tail"] = "N3LIVE"
	if err := planes.Overwrite(context.Background(), iceberg.EqualTo(iceberg.Reference("id"), int64(3)), []icebergtest.Row{row}); err != nil {
		t.Fatal(err)
	}
	waitJS(t, tab, cellOf(3, "tail")+` + " " + `+drawn(3), "N3LIVE yes yes")
	if got := proxy.offered(); len(got) != 1 || got[0] != "" {
		t.Errorf("the browser offered the sub-protocols %q, want none", got)
	}
	e.shot(t, tab, "live-anonymous")
	noProblems(t, tab)
}
