package main

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/chromedp/chromedp"
	"github.com/ontoindex/ontoindex/internal/testkit/apidemo"
	"github.com/ontoindex/ontoindex/internal/testkit/browsertest"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
)

// TestConsole drives the web console of a real `indexer serve` with
// headless Chromium: sign-in, the explorer's search, filters, sorting,
// columns, shared URLs and paging, objects and their links, a token that
// sees one type, the status page through a copy-on-write commit and a
// merge-on-read refusal, a value with HTML in it, the operator actions,
// the Content-Security-Policy, and the explorer's live updates while
// another writer commits (in place, filtered, paged, after a rebuild, a
// dropped connection, and from a server without the endpoint). Every
// subtest saves a screenshot and checks that it is a PNG with something
// on it.
func TestConsole(t *testing.T) {
	if testing.Short() {
		t.Skip("drives a browser; run without -short")
	}
	e := mustConsoleEnv(t)
	t.Run("sign in", func(t *testing.T) { testConsoleSignIn(t, e) })
	t.Run("explorer", func(t *testing.T) { testConsoleExplorer(t, e) })
	t.Run("paging", func(t *testing.T) { testConsolePaging(t, e) })
	t.Run("object and links", func(t *testing.T) { testConsoleObject(t, e) })
	t.Run("limited token", func(t *testing.T) { testConsoleLimited(t, e) })
	t.Run("status", func(t *testing.T) { testConsoleStatus(t, e) })
	t.Run("operator actions", func(t *testing.T) { testConsoleActions(t, e) })
	t.Run("content security policy", func(t *testing.T) { testConsoleCSP(t, e) })
	// Live updates: last, since they commit to Employee and rebuild it.
	t.Run("live updates", func(t *testing.T) { testConsoleLive(t, e) })
	t.Run("live filtered set", func(t *testing.T) { testConsoleLiveFilter(t, e) })
	t.Run("live paging", func(t *testing.T) { testConsoleLivePaging(t, e) })
	t.Run("live refresh", func(t *testing.T) { testConsoleLiveRefresh(t, e) })
	t.Run("live reconnect", func(t *testing.T) { testConsoleLiveReconnect(t, e) })
	t.Run("live without the endpoint", func(t *testing.T) { testConsoleLiveMissing(t, e) })
}

// employees are the rows of demo.employees as written.
var employees = apidemo.EmployeeRows()

// pks lists the ids of the employees keep keeps, in key order.
func pks(keep func(r icebergtest.Row) bool) string {
	var ids []int64
	for _, r := range employees {
		if keep(r) {
			ids = append(ids, r["id"].(int64))
		}
	}
	slices.Sort(ids)
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = fmt.Sprint(id)
	}
	return strings.Join(out, " ")
}

func count(keep func(r icebergtest.Row) bool) string {
	return fmt.Sprint(len(strings.Fields(pks(keep))))
}

// hasTerm says whether text, analyzed as the index analyzes it (split on
// what is not a letter or digit, lowercased), has the term.
func hasTerm(v any, term string) bool {
	s, _ := v.(string)
	return slices.Contains(strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }), term)
}

func pilot(r icebergtest.Row) bool {
	return hasTerm(r["name"], "pilot") || hasTerm(r["title"], "pilot") || hasTerm(r["bio"], "pilot")
}

func testConsoleSignIn(t *testing.T, e *consoleEnv) {
	tab := e.b.Tab(t)
	e.open(t, tab, "#/types")
	tab.Do(t, chromedp.WaitVisible(chromedp.CSS("#signin-form")))
	if nav := js(t, tab, `String(document.querySelector("#nav").hidden)`); nav != "true" {
		t.Errorf("the navigation shows before sign-in")
	}
	tab.Do(t, chromedp.SendKeys(chromedp.CSS("#token"), "not-a-token-0123456789"), chromedp.Click(chromedp.CSS("#signin")))
	waitJS(t, tab, textOf("#signin-message"), "The server does not know this token.")
	setValue(t, tab, "#token", "")
	tab.Do(t, chromedp.SendKeys(chromedp.CSS("#token"), serveAppToken+"\n"))

	waitJS(t, tab, `[...document.querySelectorAll("#types tbody tr")].map((r) => r.dataset.type).join(" ")`, strings.Join(consoleTypes, " "))
	waitJS(t, tab, `[...document.querySelectorAll("#types tbody tr")].map((r) => r.querySelector(".objects").textContent).join(" ")`,
		fmt.Sprintf("%d %d %d %d %d %d", apidemo.Employees, len(apidemo.AssignmentRows()), apidemo.Customers, apidemo.Orders, len(apidemo.TagLabels), 5))
	// The token: in this tab's sessionStorage, nowhere else.
	if got := js(t, tab, `sessionStorage.getItem("ontoindex.console.token")`); got != serveAppToken {
		t.Errorf("sessionStorage holds %q", got)
	}
	if got := js(t, tab, `location.href + " " + document.cookie + " " + localStorage.length`); strings.Contains(got, serveAppToken) || !strings.HasSuffix(got, "  0") {
		t.Errorf("the token or a cookie is somewhere else: %q", got)
	}
	// A reload keeps the session of the tab.
	e.open(t, tab, "#/types")
	waitJS(t, tab, `document.querySelectorAll("#types tbody tr").length + " " + !!document.querySelector("#signin-form")`, "6 false")
	if got := js(t, tab, textOf("#who")); got != "app" {
		t.Errorf("signed in as %q", got)
	}

	// The search across types: the employees with the term, and no other type.
	tab.Do(t, chromedp.SendKeys(chromedp.CSS("#q-all"), "pilot\n"))
	waitJS(t, tab, `[...document.querySelectorAll("#hits .hit-type")].map((s) => s.dataset.type + " " + s.querySelector(".count").textContent).join("|")`,
		"Employee "+count(pilot)+" matches")
	if got := js(t, tab, `location.hash`); got != "#/types?q=pilot" {
		t.Errorf("hash = %q", got)
	}
	e.shot(t, tab, "types")
	noProblems(t, tab)

	tab.Do(t, chromedp.Click(chromedp.CSS("#signout")))
	waitJS(t, tab, `!!document.querySelector("#signin-form") + " " + sessionStorage.getItem("ontoindex.console.token")`, "true null")
}

func testConsoleExplorer(t *testing.T, e *consoleEnv) {
	tab := e.tab(t, serveAppToken)
	e.open(t, tab, "#/explore/Employee?size=50")
	waitJS(t, tab, totalOf, fmt.Sprint(apidemo.Employees))
	waitJS(t, tab, rowPKs, pks(func(icebergtest.Row) bool { return true }))

	// Text search over the text properties.
	tab.Do(t, chromedp.SendKeys(chromedp.CSS("#q"), "pilot\n"))
	waitJS(t, tab, rowPKs, pks(pilot))
	waitJS(t, tab, totalOf, count(pilot))
	if got := js(t, tab, `location.hash`); got != "#/explore/Employee?q=pilot&size=50" {
		t.Errorf("hash = %q", got)
	}

	// Keyword values with their counts over the search, then one chosen.
	counts := map[string]int{}
	for _, r := range employees {
		if pilot(r) {
			counts[r["dept"].(string)]++
		}
	}
	depts := slices.Collect(func(yield func(string) bool) {
		for d := range counts {
			yield(d)
		}
	})
	slices.SortFunc(depts, func(a, b string) int { return cmp.Or(counts[b]-counts[a], strings.Compare(a, b)) })
	var want []string
	for _, d := range depts {
		want = append(want, fmt.Sprintf("%s=%d", d, counts[d]))
	}
	waitJS(t, tab, `[...document.querySelectorAll('details[data-prop="dept"] .value-list li')].map((li) => li.querySelector(".value").textContent + "=" + li.querySelector(".count").textContent).join(" ")`,
		strings.Join(want, " "))
	tab.Do(t, chromedp.Click(chromedp.CSS(`details[data-prop="dept"] input[data-value="Flight Ops"]`)))
	waitJS(t, tab, rowPKs, pks(func(r icebergtest.Row) bool { return pilot(r) && r["dept"] == "Flight Ops" }))

	// A boolean on top.
	tab.Do(t, chromedp.Click(chromedp.CSS(`details[data-prop="active"] input[data-value="false"]`)))
	waitJS(t, tab, rowPKs, pks(func(r icebergtest.Row) bool { return pilot(r) && r["dept"] == "Flight Ops" && r["active"] == false }))
	waitJS(t, tab, `[...document.querySelectorAll("#active-filters button")].map((b) => b.dataset.prop).join(" ")`, "active dept")
	e.shot(t, tab, "explorer-filtered")

	// Clear them, and the search.
	tab.Do(t, chromedp.Click(chromedp.CSS("#clear-filters")))
	waitJS(t, tab, rowPKs, pks(pilot))
	tab.Do(t, chromedp.Click(chromedp.CSS("#clear-q")))
	waitJS(t, tab, totalOf, fmt.Sprint(apidemo.Employees))

	// A numeric range (nulls are outside every range).
	tab.Do(t, chromedp.Click(chromedp.CSS(`details[data-prop="age"] summary`)),
		chromedp.SendKeys(chromedp.CSS(`details[data-prop="age"] .range-from`), "30"),
		chromedp.SendKeys(chromedp.CSS(`details[data-prop="age"] .range-to`), "40\n"))
	waitJS(t, tab, rowPKs, pks(func(r icebergtest.Row) bool { a, ok := r["age"].(int); return ok && a >= 30 && a <= 40 }))
	tab.Do(t, chromedp.Click(chromedp.CSS("#clear-filters")))
	waitJS(t, tab, totalOf, fmt.Sprint(apidemo.Employees))

	// Null, on a double.
	tab.Do(t, chromedp.Click(chromedp.CSS(`details[data-prop="rating"] summary`)))
	setSelect(t, tab, `details[data-prop="rating"] select.null-filter`, "null")
	waitJS(t, tab, rowPKs, pks(func(r icebergtest.Row) bool { return r["rating"] == nil }))
	tab.Do(t, chromedp.Click(chromedp.CSS("#clear-filters")))
	waitJS(t, tab, totalOf, fmt.Sprint(apidemo.Employees))

	// Sorting by a column, both ways; nulls come last in both.
	var ages []int
	nulls := 0
	for _, r := range employees {
		if a, ok := r["age"].(int); ok {
			ages = append(ages, a)
		} else {
			nulls++
		}
	}
	slices.Sort(ages)
	agesText := func(desc bool) string {
		s := slices.Clone(ages)
		if desc {
			slices.Reverse(s)
		}
		out := make([]string, 0, len(s)+nulls)
		for _, a := range s {
			out = append(out, fmt.Sprint(a))
		}
		for range nulls {
			out = append(out, "null")
		}
		return strings.Join(out, "|")
	}
	tab.Do(t, chromedp.Click(chromedp.CSS(`th[data-prop="age"] button`)))
	waitJS(t, tab, cellsOf("age"), agesText(false))
	tab.Do(t, chromedp.Click(chromedp.CSS(`th[data-prop="age"] button`)))
	waitJS(t, tab, cellsOf("age"), agesText(true))
	if got := js(t, tab, `document.querySelector('th[data-prop="age"]').getAttribute("aria-sort")`); got != "descending" {
		t.Errorf("aria-sort = %q", got)
	}

	// Column choice.
	columns := `[...document.querySelectorAll("#objects thead th[data-prop]")].map((th) => th.dataset.prop).join(" ")`
	before := js(t, tab, columns)
	if !strings.Contains(before, "bio") {
		t.Fatalf("default columns %q have no bio", before)
	}
	tab.Do(t, chromedp.Click(chromedp.CSS("#columns summary")), chromedp.Click(chromedp.CSS(`#columns input[data-col="bio"]`)))
	after := strings.Join(slices.DeleteFunc(strings.Fields(before), func(c string) bool { return c == "bio" }), " ")
	waitJS(t, tab, columns, after)

	// The URL is the query: opened afresh, it shows the same page.
	tab.Do(t, chromedp.SendKeys(chromedp.CSS("#q"), "pilot\n"))
	waitJS(t, tab, totalOf, count(pilot))
	hash := js(t, tab, `location.hash`)
	if strings.Contains(hash, serveAppToken) || !strings.Contains(hash, "sort=age%3Adesc") || !strings.Contains(hash, "cols=") {
		t.Errorf("hash = %q", hash)
	}
	tab.Do(t, chromedp.Navigate("about:blank"))
	e.open(t, tab, hash)
	waitJS(t, tab, totalOf+` + " " + (document.querySelector("#q") || {}).value`, count(pilot)+" pilot")
	waitJS(t, tab, columns, after)
	e.shot(t, tab, "explorer")
	noProblems(t, tab)
}

// setSelect chooses a value of a <select> as a person does: the change
// event follows.
func setSelect(t *testing.T, tab *browsertest.Tab, css, value string) {
	t.Helper()
	tab.Do(t, chromedp.WaitVisible(chromedp.CSS(css)),
		chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => { const s = document.querySelector(%q); s.value = %q; s.dispatchEvent(new Event("change")); })()`, css, value)))
}

// setValue sets the value of an input, as clearing it by hand does.
func setValue(t *testing.T, tab *browsertest.Tab, css, value string) {
	t.Helper()
	tab.Do(t, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => { const s = document.querySelector(%q); s.value = %q; s.dispatchEvent(new Event("input")); })()`, css, value)))
}

func testConsolePaging(t *testing.T, e *consoleEnv) {
	tab := e.tab(t, serveAppToken)
	e.open(t, tab, "#/explore/Employee?sort=id:asc&size=10")
	page := func(from, to int) string {
		var out []string
		for id := from; id <= to; id += 10 {
			out = append(out, fmt.Sprint(id))
		}
		return strings.Join(out, " ")
	}
	next := chromedp.Click(chromedp.CSS("#next"))
	prev := chromedp.Click(chromedp.CSS("#prev"))
	steps := []struct {
		click chromedp.Action[chromedp.Void]
		rows  string
		info  string
	}{
		{nil, page(10, 100), "Page 1 · 1–10 of 48"},
		{next, page(110, 200), "Page 2 · 11–20 of 48"},
		{next, page(210, 300), "Page 3 · 21–30 of 48"},
		{prev, page(110, 200), "Page 2 · 11–20 of 48"},
		{prev, page(10, 100), "Page 1 · 1–10 of 48"},
		{next, page(110, 200), "Page 2 · 11–20 of 48"},
		{next, page(210, 300), "Page 3 · 21–30 of 48"},
		{next, page(310, 400), "Page 4 · 31–40 of 48"},
		{next, page(410, 480), "Page 5 · 41–48 of 48"},
	}
	for i, s := range steps {
		if s.click != nil {
			tab.Do(t, s.click)
		}
		waitJS(t, tab, pageInfo, s.info)
		if got := js(t, tab, rowPKs); got != s.rows {
			t.Fatalf("step %d: rows %q, want %q", i, got, s.rows)
		}
	}
	if got := js(t, tab, `document.querySelector("#next").disabled + " " + document.querySelector("#prev").disabled`); got != "true false" {
		t.Errorf("on the last page next, prev disabled = %s", got)
	}
	e.shot(t, tab, "paging")
	noProblems(t, tab)
}
