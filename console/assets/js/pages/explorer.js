// The explorer of one object type: text search, filters, sortable
// columns, column choice and cursor paging. The query is in the URL; the
// page tokens are not (they belong to one walk through the pages): the
// explorer keeps the tokens of the pages it has seen, so Previous goes
// back one page and Next forward, at the same cost at any depth.
import { add, h, notice, num, replace } from "../dom.js";
import { defaultColumns, PAGE_SIZES, props, readState, stateParams, textWhere, typeLabel, where } from "../query.js";
import { exploreHref, objectHref } from "../router.js";
import { value } from "../values.js";
import { renderFilters } from "./filters.js";

export async function renderExplorer(ctx) {
  const { api, el } = ctx;
  const type = ctx.segs[0];
  if (!type) { location.hash = "#/types"; return; }
  let meta;
  try {
    meta = await api.metadata(type);
  } catch (e) {
    if (e.errorName === "ObjectTypeNotFound") {
      add(el, notice("error", "There is no object type " + type + " (or this token cannot see it)."));
      return;
    }
    throw e;
  }
  if (!ctx.alive()) return;
  const ot = meta.objectType;
  const list = props(meta);
  const byName = new Map(list.map((p) => [p.apiName, p]));
  const st = readState(ctx.params);
  const cols = (st.cols || defaultColumns(meta, list)).filter((c) => byName.has(c));
  const go = (next) => { location.hash = exploreHref(type, stateParams(next)); };
  document.title = (ot.pluralDisplayName || ot.displayName || type) + " · ontoindex";

  const q = h("input", { id: "q", type: "search", value: st.q, placeholder: "Search " + (ot.pluralDisplayName || type).toLowerCase() + "…", "aria-label": "Search" });
  const searchable = textWhere(list, "x") !== null;
  if (!searchable) { q.disabled = true; q.placeholder = "No text or keyword property to search"; }
  const form = h("form", { class: "search", id: "search-form" }, q, h("button", { type: "submit", text: "Search", disabled: !searchable }),
    st.q ? h("button", { type: "button", id: "clear-q", class: "secondary", text: "Clear", onclick: () => go({ ...st, q: "" }) }) : null);
  form.addEventListener("submit", (ev) => { ev.preventDefault(); go({ ...st, q: q.value }); });

  const filtersEl = h("aside", { class: "filters", id: "filters" });
  const results = h("section", { class: "results", id: "results" });
  add(el, 
    h("nav", { class: "crumbs" }, h("a", { href: "#/types", text: "Object types" }), " / ", h("span", { text: ot.displayName || type })),
    h("h1", {}, ot.pluralDisplayName || ot.displayName || type, " ", h("small", { class: "muted", text: type })),
    ot.description ? h("p", { class: "muted", text: ot.description }) : null,
    form, h("div", { class: "explorer" }, filtersEl, results));
  renderFilters(filtersEl, { api, type, list, st, go, alive: ctx.alive });

  const tokens = [""]; // tokens[i] is the token of page i (page 0: none)
  let index = 0;
  const load = async () => {
    const body = { where: where(list, st), pageSize: st.size, select: cols };
    if (st.sort && byName.get(st.sort.field)?.sortable) body.orderBy = { fields: [{ field: st.sort.field, direction: st.sort.dir }] };
    if (tokens[index]) body.pageToken = tokens[index];
    results.setAttribute("aria-busy", "true");
    let res;
    try {
      res = await api.search(type, body);
    } catch (e) {
      if (!ctx.alive()) return;
      results.removeAttribute("aria-busy");
      replace(results, notice("error", e.message));
      return;
    }
    if (!ctx.alive()) return;
    tokens.length = index + 1;
    if (res.nextPageToken) tokens.push(res.nextPageToken);
    replace(results, ...resultsView(res));
    results.removeAttribute("aria-busy");
  };

  const resultsView = (res) => {
    const total = Number(res.totalCount);
    const from = index * st.size + 1;
    const to = index * st.size + res.data.length;
    const toolbar = h("div", { class: "toolbar" },
      h("span", { id: "total", class: "total", dataset: { count: String(total) }, text: num(total) + (total === 1 ? " object" : " objects") }),
      h("span", { class: "spacer" }), columnChooser(), pageSizeSelect());
    const head = h("tr", {}, h("th", { text: "Object" }), cols.map((c) => headerCell(byName.get(c))));
    const rows = res.data.map((o) => h("tr", { dataset: { pk: String(o.__primaryKey) } },
      h("td", { class: "title" }, h("a", { href: objectHref(type, o.__primaryKey), text: o.__title ?? String(o.__primaryKey) })),
      cols.map((c) => h("td", { dataset: { prop: c } }, value(o[c])))));
    const table = h("div", { class: "table-wrap" }, h("table", { class: "objects", id: "objects" }, h("thead", {}, head), h("tbody", {}, rows)));
    const pager = h("div", { class: "pager" },
      h("button", { type: "button", id: "prev", class: "secondary", text: "← Previous", disabled: index === 0, onclick: () => { index--; load(); } }),
      h("span", { id: "page-info", dataset: { page: String(index + 1) }, text: res.data.length ? "Page " + (index + 1) + " · " + num(from) + "–" + num(to) + " of " + num(total) : "Page " + (index + 1) + " · no objects" }),
      h("button", { type: "button", id: "next", class: "secondary", text: "Next →", disabled: !res.nextPageToken, onclick: () => { index++; load(); } }));
    return [toolbar, res.data.length ? table : h("p", { class: "muted empty", text: "No objects match." }), pager];
  };

  const headerCell = (p) => {
    const sorted = st.sort && st.sort.field === p.apiName ? st.sort.dir : "";
    const label = [h("span", { text: p.displayName }), h("span", { class: "type", text: typeLabel(p.dataType) })];
    if (!p.sortable) return h("th", { dataset: { prop: p.apiName } }, label);
    const next = sorted === "asc" ? "desc" : "asc";
    return h("th", { dataset: { prop: p.apiName }, "aria-sort": sorted ? (sorted === "asc" ? "ascending" : "descending") : "none" },
      h("button", { type: "button", class: "sort" + (sorted ? " sorted" : ""), title: "Sort by " + p.displayName + " " + next,
        onclick: () => go({ ...st, sort: { field: p.apiName, dir: next } }) }, label, h("span", { class: "arrow", text: sorted === "asc" ? "▲" : sorted === "desc" ? "▼" : "" })));
  };

  const columnChooser = () => {
    const boxes = list.map((p) => {
      const box = h("input", { type: "checkbox", checked: cols.includes(p.apiName), dataset: { col: p.apiName } });
      box.addEventListener("change", () => {
        const next = box.checked ? list.map((x) => x.apiName).filter((n) => n === p.apiName || cols.includes(n)) : cols.filter((c) => c !== p.apiName);
        go({ ...st, cols: next });
      });
      return h("li", {}, h("label", {}, box, " ", p.displayName));
    });
    return h("details", { class: "menu", id: "columns" }, h("summary", { text: "Columns (" + cols.length + ")" }),
      h("ul", { class: "menu-list" }, boxes,
        h("li", {}, h("button", { type: "button", class: "link", text: "Default columns", onclick: () => go({ ...st, cols: null }) }))));
  };

  const pageSizeSelect = () => {
    const sel = h("select", { id: "page-size", "aria-label": "Objects per page" }, PAGE_SIZES.map((n) => h("option", { value: String(n), text: n + " per page" })));
    sel.value = String(st.size);
    sel.addEventListener("change", () => go({ ...st, size: Number(sel.value) }));
    return sel;
  };

  await load();
}
