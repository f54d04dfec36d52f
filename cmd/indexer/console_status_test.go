package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/chromedp/chromedp"
	"github.com/ontoindex/ontoindex/console"
	"github.com/ontoindex/ontoindex/cowguard"
	"github.com/ontoindex/ontoindex/indexer/daemon"
	"github.com/ontoindex/ontoindex/internal/testkit/browsertest"
	"github.com/ontoindex/ontoindex/internal/testkit/daemontest"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
)

// Values with HTML in them, which the console must show as text.
const (
	xssName = `<img src=x onerror="window.__xss='img'">`
	xssBio  = `<script>window.__xss='script'</script><b>bold</b>`
)

// cardText is the expression of the text of a field of a type's status card.
func cardText(typ, field string) string {
	return textOf(fmt.Sprintf(`.card[data-type=%q] .f-%s`, typ, field))
}

func testConsoleStatus(t *testing.T, e *consoleEnv) {
	ctx := context.Background()
	tab := e.tab(t, serveAppToken)
	e.open(t, tab, "#/status")
	builds := func(typ string) string {
		return fmt.Sprintf(`(document.querySelector('.card[data-type=%q] svg.chart') || {dataset: {}}).dataset.builds || ""`, typ)
	}
	waitJS(t, tab, builds("Employee"), "1") // the first build
	waitJS(t, tab, cardText("Employee", "generation"), "1")

	// Copy-on-write commits by another writer, each built incrementally:
	// the card follows, and the chart gets a bar for each build.
	edits := []struct {
		id   int64
		edit func(r icebergtest.Row)
	}{
		{20, func(r icebergtest.Row) { r["name"], r["bio"] = xssName, xssBio }},
		{30, func(r icebergtest.Row) { r["title"] = "Captain" }},
		{40, func(r icebergtest.Row) { r["dept"] = "Research" }},
	}
	for _, ed := range edits {
		row := employees[ed.id/10-1]
		if row["id"] != ed.id {
			t.Fatalf("employee row %v", row["id"])
		}
		changed := icebergtest.Row{}
		for k, v := range row {
			changed[k] = v
		}
		ed.edit(changed)
		if err := e.employees.Overwrite(ctx, iceberg.EqualTo(iceberg.Reference("id"), ed.id), []icebergtest.Row{changed}); err != nil {
			t.Fatal(err)
		}
		e.p.waitStatus(t, "Employee", "the build of the commit", daemontest.UpToDate(e.employees))
	}
	st := e.p.status(t, "Employee")
	lb := st.LastBuild
	if lb == nil || lb.Kind != "incremental" || lb.Upserts != 1 || lb.Deletes != 0 || len(st.RecentBuilds) != 4 {
		t.Fatalf("status after the commits: %+v, last build %+v", st, lb)
	}
	waitJS(t, tab, cardText("Employee", "checkpoint"), fmt.Sprint(e.employees.T.CurrentSnapshot().SnapshotID))
	waitJS(t, tab, cardText("Employee", "table-snapshot"), fmt.Sprint(e.employees.T.CurrentSnapshot().SnapshotID))
	waitJS(t, tab, cardText("Employee", "lag"), "up to date")
	waitJS(t, tab, builds("Employee"), "4")
	waitJS(t, tab, cardText("Employee", "kind"), "incremental (changelog)")
	waitJS(t, tab, cardText("Employee", "snapshots"), fmt.Sprintf("%d → %d", lb.From, lb.To))
	waitJS(t, tab, cardText("Employee", "changes"), "1 / 0")
	if got, want := js(t, tab, cardText("Employee", "files")), fmt.Sprintf("%d (", lb.FilesRead); !strings.HasPrefix(got, want) {
		t.Errorf("files read %q, want %q...", got, want)
	}
	if got := js(t, tab, `[...document.querySelectorAll('.card[data-type="Employee"] svg.chart rect.bar')].map((r) => r.dataset.kind).join(" ")`); got != "full incremental incremental incremental" {
		t.Errorf("chart bars %q", got)
	}

	// A merge-on-read delete: the type is blocked, the card shows the
	// refusal with its table, snapshot, delete files and fix.
	if err := e.planes.Delete(ctx, iceberg.EqualTo(iceberg.Reference("id"), int64(2))); err != nil {
		t.Fatal(err)
	}
	mor := e.planes.T.CurrentSnapshot().SnapshotID
	e.p.waitStatus(t, "Plane", "blocked", func(st daemon.TypeStatus) bool { return st.State == daemon.StateBlocked })
	waitJS(t, tab, `[...document.querySelectorAll("#type-status .card")].map((c) => c.dataset.type + ":" + c.dataset.state).join(" ")`,
		"Plane:blocked Employee:idle Assignment:idle Customer:idle Order:idle Tag:idle Order.tags:idle")
	for field, want := range map[string]string{
		"mor-table":    "warehouse.ns.planes",
		"mor-snapshot": fmt.Sprintf("%d (delete)", mor),
		"mor-position": "1",
		"mor-equality": "0",
		"mor-dv":       "0",
		"mor-modes":    "delete merge-on-read, update copy-on-write, merge copy-on-write",
		"mor-fix":      cowguard.Fix,
		"lag":          "1 snapshot, ", // then the seconds
	} {
		if got := waitPrefix(t, tab, cardText("Plane", field), want); !strings.HasPrefix(got, want) {
			t.Errorf("Plane %s = %q, want %q", field, got, want)
		}
	}
	waitJS(t, tab, textOf(`.card[data-type="Plane"] .invalid-rows h3`), "Invalid rows: 1 skipped")
	if got := js(t, tab, textOf(`.card[data-type="Plane"] .invalid-rows tbody td:last-child`)); !strings.Contains(got, "null") {
		t.Errorf("invalid row sample reason %q", got)
	}
	tab.Do(t, chromedp.Click(chromedp.CSS("#refresh-checks")))
	waitJS(t, tab, `[...document.querySelectorAll("#write-modes tbody tr")].map((r) => r.dataset.type + ":" + r.dataset.verdict).join(" ")`,
		"Employee:ok Assignment:ok Customer:ok Order:ok Tag:ok Plane:fail")
	waitJS(t, tab, textOf("#verdict"), "fail")
	// Tall enough for the blocked type and the chart of Employee's builds.
	tab.Do(t, chromedp.EmulateViewport(1360, 1240), chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`))
	e.shot(t, tab, "status")

	// The HTML of the edited employee is text everywhere.
	e.open(t, tab, "#/explore/Employee?q=onerror")
	waitJS(t, tab, rowPKs, "20")
	waitJS(t, tab, textOf(`#objects tr[data-pk="20"] td.title`), xssName)
	waitJS(t, tab, textOf(`#objects tr[data-pk="20"] td[data-prop="bio"]`), xssBio)
	e.shot(t, tab, "xss-explorer")
	tab.Do(t, chromedp.Click(chromedp.CSS(`#objects tr[data-pk="20"] td.title a`)))
	waitJS(t, tab, textOf(`#properties tr[data-prop="bio"] td.value`), xssBio)
	waitJS(t, tab, textOf(`#properties tr[data-prop="name"] td.value`), xssName)
	if got := js(t, tab, `document.querySelectorAll("main img, main script, main b").length + " " + typeof window.__xss + " " + document.title`); got != "0 undefined "+xssName+" · Employee · ontoindex" {
		t.Errorf("elements, marker and title: %q", got)
	}
	e.shot(t, tab, "xss-object")
	noProblems(t, tab)
}

// waitPrefix waits until the expression's value starts with prefix and
// returns it.
func waitPrefix(t *testing.T, tab *browsertest.Tab, expr, prefix string) string {
	t.Helper()
	return waitJS(t, tab, fmt.Sprintf(`(() => { const v = %s; return v.startsWith(%q) ? %q : v; })()`, expr, prefix, prefix), prefix)
}

// testConsoleActions: rebuild and reload for an admin token, each behind a
// confirmation; none for another token.
func testConsoleActions(t *testing.T, e *consoleEnv) {
	app := e.tab(t, serveAppToken)
	e.open(t, app, "#/status")
	waitJS(t, app, cardText("Customer", "generation"), "1")
	if got := js(t, app, `document.querySelectorAll(".rebuild, #reload").length + ""`); got != "0" {
		t.Errorf("%s operator actions for the app token", got)
	}

	tab := e.tab(t, serveAdminToken)
	e.open(t, tab, "#/status")
	waitJS(t, tab, cardText("Customer", "generation"), "1")
	rebuild := chromedp.Click(chromedp.CSS(`.rebuild[data-type="Customer"]`))
	dialog := `document.querySelector("#confirm").open + " " + document.querySelector("#confirm-title").textContent`
	tab.Do(t, rebuild)
	waitJS(t, tab, dialog, "true Rebuild Customer")
	e.shot(t, tab, "confirm")
	tab.Do(t, chromedp.Click(chromedp.CSS("#confirm-cancel")))
	waitJS(t, tab, dialog, "false Rebuild Customer")
	if strings.Contains(e.p.stderr.String(), "rebuild requested") {
		t.Fatal("a cancelled rebuild was sent")
	}
	tab.Do(t, rebuild)
	waitJS(t, tab, dialog, "true Rebuild Customer")
	tab.Do(t, chromedp.Click(chromedp.CSS("#confirm-ok")))
	waitJS(t, tab, textOf("#rebuild-result"), "Rebuild of Customer requested: generation 1 serves until the new one is ready.")
	waitJS(t, tab, cardText("Customer", "generation"), "2")
	if st := e.p.status(t, "Customer"); st.Generation != 2 || st.LastBuild == nil || st.LastBuild.Kind != "full" {
		t.Errorf("Customer after the rebuild: %+v", st)
	}

	tab.Do(t, chromedp.Click(chromedp.CSS("#reload")))
	waitJS(t, tab, dialog, "true Reload the config")
	tab.Do(t, chromedp.Click(chromedp.CSS("#confirm-ok")))
	waitJS(t, tab, textOf("#reload-result"), "added: none; changed: none; removed: none; unchanged: "+strings.Join(consoleTypes, ", ")+", Order.tags")
	noProblems(t, tab)
	noProblems(t, app)
}

// testConsoleCSP: the console's responses carry the policy, set no
// cookie, and the browser enforces the policy: a script or an event
// handler that got into the page as HTML does not run.
func testConsoleCSP(t *testing.T, e *consoleEnv) {
	for _, path := range []string{"/", console.Prefix + "js/app.js", console.Prefix + "style.css"} {
		resp, err := http.Get(e.p.base + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get("Content-Security-Policy") != console.ContentSecurityPolicy ||
			resp.Header.Get("X-Content-Type-Options") != "nosniff" || len(resp.Header.Values("Set-Cookie")) != 0 {
			t.Errorf("GET %s: %d %v", path, resp.StatusCode, resp.Header)
		}
	}
	tab := e.tab(t, serveAppToken)
	tab.Do(t, chromedp.Evaluate[chromedp.Void](`(() => {
		const s = document.createElement("script"); s.textContent = "window.__inline = 1"; document.body.append(s);
		document.body.insertAdjacentHTML("beforeend", '<img src="data:," onerror="window.__handler = 1" onload="window.__handler = 1">');
	})()`))
	waitJS(t, tab, `(() => { const n = document.querySelectorAll("img").length; return n + " " + typeof window.__inline + " " + typeof window.__handler; })()`, "1 undefined undefined")
	if ps := tab.Problems(); len(ps) == 0 || !strings.Contains(strings.Join(ps, "\n"), "Content Security Policy") {
		t.Errorf("no violation reported: %q", ps)
	}
	e.shot(t, tab, "csp")
}
