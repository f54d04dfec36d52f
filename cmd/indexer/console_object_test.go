package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/ontoindex/ontoindex/internal/testkit/apidemo"
)

func testConsoleObject(t *testing.T, e *consoleEnv) {
	tab := e.tab(t, serveAppToken)
	e.open(t, tab, "#/explore/Employee?sort=id:asc&size=10")
	waitJS(t, tab, pageInfo, "Page 1 · 1–10 of 48")
	tab.Do(t, chromedp.Click(chromedp.CSS(`#objects tr[data-pk="10"] td.title a`)))
	r := employees[0] // id 10
	waitJS(t, tab, `location.hash`, "#/object/Employee/10")
	waitJS(t, tab, textOf(`#properties tr[data-prop="name"] td.value`), r["name"].(string))

	// Every property, typed, as the API encodes it.
	want := []struct{ prop, typ, value string }{
		{"id", "long", "10"},
		{"name", "string", r["name"].(string)},
		{"title", "string", r["title"].(string)},
		{"dept", "string", r["dept"].(string)},
		{"age", "integer", fmt.Sprint(r["age"])},
		{"salary", "decimal(10,2)", r["salary"].(string)},
		{"rating", "double", fmt.Sprint(r["rating"])},
		{"hired", "date", r["hired"].(string)},
		{"updated", "timestamp", r["updated"].(string)},
		{"active", "boolean", fmt.Sprint(r["active"])},
		{"tags", "array<string>", strings.Join(r["tags"].([]string), "+")},
		{"bio", "string", r["bio"].(string)},
		{"big", "long", fmt.Sprint(apidemo.BigBase + 1)}, // beyond 2^53, every digit
		{"secret", "string", r["secret"].(string)},
	}
	for _, w := range want {
		got := js(t, tab, fmt.Sprintf(`(() => { const tr = document.querySelector('#properties tr[data-prop=%q]'); if (!tr) return "missing";
			const chips = [...tr.querySelectorAll("td.value .chip")].map((c) => c.textContent);
			return tr.querySelector("td.type").textContent + " " + (chips.length ? chips.join("+") : tr.querySelector("td.value").textContent); })()`, w.prop))
		if got != w.typ+" "+w.value {
			t.Errorf("property %s: %q, want %q", w.prop, got, w.typ+" "+w.value)
		}
	}
	st := e.p.status(t, "Employee")
	facts := map[string]string{
		"primary-key": "id = 10",
		"title":       "name = " + r["name"].(string),
		"rid":         "", // checked below
		"snapshot":    fmt.Sprintf("snapshot %d of table warehouse.demo.employees", st.CheckpointSnapshotID),
	}
	for id, w := range facts {
		got := js(t, tab, textOf("#fact-"+id))
		if id == "rid" {
			if !strings.HasPrefix(got, "ri.ontoindex.main.object.Employee.") {
				t.Errorf("rid %q", got)
			}
			continue
		}
		if got != w {
			t.Errorf("fact %s = %q, want %q", id, got, w)
		}
	}
	if got := js(t, tab, `document.querySelector('#properties tr[data-prop="id"]').className`); got != "key" {
		t.Errorf("the primary key row is %q", got)
	}
	e.shot(t, tab, "object")

	// Links: a customer's orders (foreign key, MANY), an order's customer
	// (ONE) and its tags (join table, MANY). c02 places orders 3, 23 and
	// 33 (13 has no customer); order 3 has tags t3 and t5.
	linked := func(link string) string {
		return fmt.Sprintf(`[...document.querySelectorAll('section.link[data-link=%q] li[data-pk]')].map((li) => li.dataset.pk).join(" ")`, link)
	}
	e.open(t, tab, "#/object/Customer/c02")
	waitJS(t, tab, linked("orders"), "3 23 33")
	tab.Do(t, chromedp.Click(chromedp.CSS(`section.link[data-link="orders"] li[data-pk="3"] a`)))
	waitJS(t, tab, `location.hash`, "#/object/Order/3")
	waitJS(t, tab, linked("customer"), "c02")
	waitJS(t, tab, linked("tags"), apidemo.TagID(3)+" "+apidemo.TagID(5))
	waitJS(t, tab, `[...document.querySelectorAll('section.link[data-link="tags"] li[data-pk] a')].map((a) => a.textContent).join(" ")`,
		apidemo.TagLabels[2]+" "+apidemo.TagLabels[4])
	tab.Do(t, chromedp.Click(chromedp.CSS(`section.link[data-link="customer"] li[data-pk="c02"] a`)))
	waitJS(t, tab, `location.hash`, "#/object/Customer/c02")
	waitJS(t, tab, textOf(`#properties tr[data-prop="name"] td.value`), apidemo.CustomerRows()[1]["name"].(string))
	e.shot(t, tab, "links")

	// A composite key whose components hold "," and "%": escaped in the
	// key, percent-encoded in the URL, the same object at the end.
	e.open(t, tab, "#/explore/Assignment?size=50")
	pk := "20,100%25 uptime"
	tab.Do(t, chromedp.Click(chromedp.CSS(fmt.Sprintf(`#objects tr[data-pk=%q] td.title a`, pk))))
	waitJS(t, tab, textOf(`#properties tr[data-prop="project"] td.value`), apidemo.Projects[2])
	waitJS(t, tab, textOf("#fact-primary-key"), "emp_id, project = "+pk)

	// An object that is not there.
	e.open(t, tab, "#/object/Employee/11")
	waitJS(t, tab, textOf(".notice.error"), "No Employee has primary key 11.")
	noProblems(t, tab)
}

// testConsoleLimited: a token that sees Assignment only sees nothing of
// the other types anywhere in the console.
func testConsoleLimited(t *testing.T, e *consoleEnv) {
	tab := e.tab(t, consoleLimitedToken)
	waitJS(t, tab, `[...document.querySelectorAll("#types tbody tr")].map((r) => r.dataset.type).join(" ")`, "Assignment")
	e.open(t, tab, "#/types?q=pilot")
	waitJS(t, tab, textOf("#hits"), "No object matches “pilot”.")
	e.open(t, tab, "#/status")
	waitJS(t, tab, `[...document.querySelectorAll("#type-status .card")].map((c) => c.dataset.type).join(" ")`, "Assignment")
	waitJS(t, tab, `[...document.querySelectorAll("#write-modes tbody tr")].map((r) => r.dataset.type).join(" ")`, "Assignment")
	if got := js(t, tab, `document.querySelectorAll(".rebuild, #reload").length + " " + document.querySelector("#who").textContent`); got != "0 limited" {
		t.Errorf("operator actions for a token that is not admin: %q", got)
	}
	e.shot(t, tab, "limited-status")
	for _, frag := range []string{"#/explore/Employee", "#/object/Employee/10"} {
		e.open(t, tab, frag)
		waitJS(t, tab, textOf(".notice.error"), "There is no object type Employee (or this token cannot see it).")
	}
	// Assignment's page names no other type either.
	e.open(t, tab, "#/explore/Assignment")
	waitJS(t, tab, totalOf, fmt.Sprint(len(apidemo.AssignmentRows())))
	for _, other := range []string{"Employee", "Customer", "Order", "Plane"} {
		if body := js(t, tab, `document.body.textContent`); strings.Contains(body, other) {
			t.Errorf("the Assignment explorer names %s", other)
		}
	}
	noProblems(t, tab)
}
