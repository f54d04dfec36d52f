// The explorer of one object type: text search, filters, sortable
// columns, column choice and cursor paging. The query is in the URL; the
// page tokens are not (they belong to one walk through the pages): the
// explorer keeps the tokens of the pages it has seen, so Previous goes
// back one page and Next forward, at the same cost at any depth.
import { add, h, notice, num, replace } from "../dom.js";
import { defaultColumns, PAGE_SIZES, props, readState, stateParams, textWhere, typeLabel, where } from "../query.js";
import { exploreHref, objectHref } from "../router.js";
import { value } from "../values.js";
import { followLive } from "./explorer-live.js";
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
  // The set shown, followed live: the type, or the objects its where
  // clause keeps, with the columns and the title.
  const shownWhere = where(list, st);
  const base = { type: "base", objectType: type };
  const live = followLive(ctx, {
    objectSet: shownWhere ? { type: "filter", objectSet: base, where: shownWhere } : base,
    propertySet: [...new Set([...cols, ot.titleProperty].filter((p) => p && byName.has(p)))],
    reload: () => load(true),
  });
  add(el,
    h("nav", { class: "crumbs" }, h("a", { href: "#/types", text: "Object types" }), " / ", h("span", { text: ot.displayName || type })),
    h("h1", {}, ot.pluralDisplayName || ot.displayName || type, " ", h("small", { class: "muted", text: type }), " ", live.indicator),
    ot.description ? h("p", { class: "muted", text: ot.description }) : null,
    form, h("div", { class: "explorer" }, filtersEl, results));
  renderFilters(filtersEl, { api, type, list, st, go, alive: ctx.alive });

  const tokens = [""]; // tokens[i] is the token of page i (page 0: none)
  let index = 0;
  // load shows page index; quiet (a reload for live updates) keeps the
  // page as it is while it loads and when it fails.
  const load = async (quiet) => {
    const body = { where: shownWhere, pageSize: st.size, select: cols };
    if (st.sort && byName.get(st.sort.field)?.sortable) body.orderBy = { fields: [{ field: st.sort.field, direction: st.sort.dir }] };
    if (tokens[index]) body.pageToken = tokens[index];
    live.loading();
    if (!quiet) results.setAttribute("aria-busy", "true");
    let res;
    try {
      res = await api.search(type, body);
    } catch (e) {
      if (!ctx.alive()) return;
      live.shown(null);
      if (quiet) return;
      results.removeAttribute("aria-busy");
      replace(results, notice("error", e.message));
      return;
    }
    if (!ctx.alive()) return;
    tokens.length = index + 1;
    if (res.nextPageToken) tokens.push(res.nextPageToken);
    const view = resultsView(res);
    replace(results, ...view.elements);
    results.removeAttribute("aria-busy");
    live.shown(view.page);
  };

  const row = (o) => h("tr", { dataset: { pk: String(o.__primaryKey) } },
    h("td", { class: "title" }, titleLink(o)), cols.map((c) => h("td", { dataset: { prop: c } }, value(o[c]))));
  const titleLink = (o) => h("a", { href: objectHref(type, o.__primaryKey), text: o.__title ?? String(o.__primaryKey) });
  // update draws o into its row; the cells whose text changed are marked.
  const update = (tr, o) => {
    replace(tr.querySelector("td.title"), titleLink(o));
    for (const td of tr.querySelectorAll("td[data-prop]")) {
      const before = td.textContent;
      replace(td, value(o[td.dataset.prop]));
      td.classList.remove("live-changed");
      if (td.textContent !== before) { void td.offsetWidth; td.classList.add("live-changed"); }
    }
  };

  const resultsView = (res) => {
    const from = index * st.size + 1;
    const to = index * st.size + res.data.length;
    const totalEl = h("span", { id: "total", class: "total" });
    const info = h("span", { id: "page-info", dataset: { page: String(index + 1) } });
    const showTotal = (total) => {
      totalEl.dataset.count = String(total);
      totalEl.textContent = num(total) + (total === 1 ? " object" : " objects");
      info.textContent = res.data.length ? "Page " + (index + 1) + " · " + num(from) + "–" + num(to) + " of " + num(total) : "Page " + (index + 1) + " · no objects";
    };
    showTotal(Number(res.totalCount));
    const elsewhere = h("span", { class: "live-notice", id: "live-notice" });
    const toolbar = h("div", { class: "toolbar" }, totalEl, elsewhere, h("span", { class: "spacer" }), columnChooser(), pageSizeSelect());
    const head = h("tr", {}, h("th", { text: "Object" }), cols.map((c) => headerCell(byName.get(c))));
    const tbody = h("tbody", {}, res.data.map(row));
    const table = h("div", { class: "table-wrap" }, h("table", { class: "objects", id: "objects" }, h("thead", {}, head), tbody));
    const pager = h("div", { class: "pager" },
      h("button", { type: "button", id: "prev", class: "secondary", text: "← Previous", disabled: index === 0, onclick: () => { index--; load(); } }),
      info,
      h("button", { type: "button", id: "next", class: "secondary", text: "Next →", disabled: !res.nextPageToken, onclick: () => { index++; load(); } }));
    // An empty set shows its table too: objects that enter it appear there.
    const complete = index === 0 && !res.nextPageToken;
    const empty = h("p", { class: "muted empty", text: "No objects match." });
    if (!res.data.length) table.hidden = true;
    const page = {
      tbody, complete, total: Number(res.totalCount), notice: elsewhere, row, update,
      rows: new Map([...tbody.children].map((tr) => [tr.dataset.pk, tr])),
      showTotal(total) {
        showTotal(total);
        if (tbody.children.length) { table.hidden = false; empty.hidden = true; }
      },
    };
    return { elements: [toolbar, table, res.data.length ? null : empty, pager], page };
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
