// The explorer's filter panel: one section per property, fitting its type.
// Keyword and boolean properties list their values with counts (an exact
// group-by aggregation over the other filters); numbers, dates and
// timestamps take a range, with the property's min and max as a hint;
// every property can be filtered on null.
import { add, h, notice, num, replace } from "../dom.js";
import { filterWhere, typeLabel, where } from "../query.js";

const MAX_VALUES = 20;
const opened = new Map(); // type -> Set of the properties whose section is open

export function renderFilters(el, { api, type, list, st, go, alive }) {
  const open = opened.get(type) || new Set();
  opened.set(type, open);
  const set = (apiName, f) => {
    const filters = { ...st.filters };
    if (f && Object.keys(f).length) filters[apiName] = f; else delete filters[apiName];
    go({ ...st, filters });
  };

  const active = list.filter((p) => filterWhere(p, st.filters[p.apiName]));
  const head = h("div", { class: "filters-head" }, h("h2", { text: "Filters" }),
    active.length ? h("button", { type: "button", class: "link", id: "clear-filters", text: "Clear all", onclick: () => go({ ...st, filters: {} }) }) : null);
  add(el, head);
  if (active.length) {
    add(el, h("ul", { class: "active-filters", id: "active-filters" }, active.map((p) => h("li", {},
      h("button", { type: "button", class: "chip removable", title: "Remove this filter", dataset: { prop: p.apiName },
        text: describe(p, st.filters[p.apiName]), onclick: () => set(p.apiName, null) })))));
  }

  // Faceted types first: they are what one filters on most.
  const order = { keyword: 0, boolean: 1, range: 2, null: 3 };
  const sorted = [...list].sort((a, b) => order[a.filter] - order[b.filter]);
  let autoOpen = 0;
  for (const p of sorted) {
    const f = st.filters[p.apiName] || {};
    const isActive = !!filterWhere(p, f);
    const isOpen = open.has(p.apiName) || isActive || (p.filter === "keyword" || p.filter === "boolean") && autoOpen++ < 3 && !open.has("-" + p.apiName);
    const body = h("div", { class: "facet-body" });
    const details = h("details", { class: "facet" + (isActive ? " active" : ""), dataset: { prop: p.apiName }, open: isOpen },
      h("summary", {}, h("span", { class: "name", text: p.displayName }), h("span", { class: "type", text: typeLabel(p.dataType) })), body);
    let filled = false;
    const fill = () => {
      if (filled) return;
      filled = true;
      fillFacet(body, { api, type, list, st, p, f, set, alive });
    };
    details.addEventListener("toggle", () => {
      if (details.open) { open.add(p.apiName); open.delete("-" + p.apiName); fill(); } else { open.delete(p.apiName); open.add("-" + p.apiName); }
    });
    add(el, details);
    if (isOpen) fill();
  }
}

function fillFacet(body, { api, type, list, st, p, f, set, alive }) {
  if (p.filter === "keyword" || p.filter === "boolean") {
    const box = h("div", { class: "values", text: "Counting…" });
    body.append(box);
    api.aggregate(type, {
      aggregation: [{ type: "count", name: "count" }],
      groupBy: [{ type: "exact", field: p.apiName, maxGroupCount: MAX_VALUES }],
      where: where(list, st, p.apiName),
    }).then((res) => {
      if (!alive()) return;
      const groups = res.data.map((g) => ({ value: g.group[p.apiName], count: metric(g, "count") }))
        .filter((g) => g.value !== undefined && g.value !== null);
      replace(box, p.filter === "keyword" ? keywordValues(p, f, groups, set) : booleanValues(p, f, groups, set));
    }).catch((e) => alive() && replace(box, notice("error", e.message)));
  } else if (p.filter === "range") {
    body.append(rangeForm(api, type, list, st, p, f, set, alive));
  }
  body.append(nullSelect(p, f, set));
}

function metric(g, name) {
  const m = (g.metrics || []).find((x) => x.name === name);
  return m ? m.value : undefined;
}

function keywordValues(p, f, groups, set) {
  const chosen = new Set(f.in || []);
  // Chosen values stay listed even when the other filters leave them none.
  for (const v of chosen) {
    if (!groups.some((g) => String(g.value) === v)) groups.push({ value: v, count: 0 });
  }
  if (groups.length === 0) return h("p", { class: "muted", text: "No values." });
  return h("ul", { class: "value-list" }, groups.map((g) => {
    const v = String(g.value);
    const box = h("input", { type: "checkbox", checked: chosen.has(v), dataset: { value: v } });
    box.addEventListener("change", () => {
      const next = new Set(chosen);
      if (box.checked) next.add(v); else next.delete(v);
      set(p.apiName, next.size ? { ...f, in: [...next] } : withoutKeys(f, "in"));
    });
    return h("li", {}, h("label", {}, box, h("span", { class: "value", text: v }), h("span", { class: "count", text: num(g.count) })));
  }));
}

function booleanValues(p, f, groups, set) {
  const count = (b) => { const g = groups.find((x) => x.value === b); return g ? g.count : 0; };
  const name = "bool-" + p.apiName;
  const option = (label, val, n) => {
    const r = h("input", { type: "radio", name, checked: f.eq === val, dataset: { value: String(val) } });
    r.addEventListener("change", () => set(p.apiName, val === undefined ? withoutKeys(f, "eq") : { ...f, eq: val }));
    return h("li", {}, h("label", {}, r, h("span", { class: "value", text: label }), n === undefined ? null : h("span", { class: "count", text: num(n) })));
  };
  return h("ul", { class: "value-list" }, option("any", undefined), option("true", true, count(true)), option("false", false, count(false)));
}

function rangeForm(api, type, list, st, p, f, set, alive) {
  const from = h("input", { type: "text", class: "range-from", value: f.gte || "", "aria-label": p.displayName + " from", inputmode: p.base === "date" || p.base === "timestamp" ? "text" : "decimal" });
  const to = h("input", { type: "text", class: "range-to", value: f.lte || "", "aria-label": p.displayName + " to" });
  const hint = h("p", { class: "muted hint" });
  const form = h("form", { class: "range" }, h("label", {}, "from ", from), h("label", {}, "to ", to),
    h("button", { type: "submit", class: "small", text: "Apply" }), hint);
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const next = withoutKeys(f, "gte", "lte");
    if (from.value.trim() !== "") next.gte = from.value.trim();
    if (to.value.trim() !== "") next.lte = to.value.trim();
    set(p.apiName, next);
  });
  api.aggregate(type, {
    aggregation: [{ type: "min", field: p.apiName, name: "min" }, { type: "max", field: p.apiName, name: "max" }],
    groupBy: [], where: where(list, st, p.apiName),
  }).then((res) => {
    if (!alive()) return;
    const g = res.data[0];
    const lo = g && metric(g, "min"), hi = g && metric(g, "max");
    if (lo === undefined || lo === null) { hint.textContent = "No values."; return; }
    from.placeholder = String(lo);
    to.placeholder = String(hi);
    hint.textContent = "values from " + lo + " to " + hi;
  }).catch((e) => alive() && replace(hint, e.message));
  return form;
}

function nullSelect(p, f, set) {
  const sel = h("select", { class: "null-filter", "aria-label": p.displayName + " null" },
    h("option", { value: "", text: "any value or null" }),
    h("option", { value: "set", text: "has a value" }),
    h("option", { value: "null", text: "is null" }));
  sel.value = f.null === true ? "null" : f.null === false ? "set" : "";
  sel.addEventListener("change", () => {
    const next = withoutKeys(f, "null");
    if (sel.value === "null") set(p.apiName, { null: true });
    else set(p.apiName, sel.value === "set" ? { ...next, null: false } : next);
  });
  return h("label", { class: "null-label" }, "null: ", sel);
}

function withoutKeys(f, ...keys) {
  const out = { ...f };
  for (const k of keys) delete out[k];
  return out;
}

// describe says what a filter keeps, for its chip.
function describe(p, f) {
  const parts = [];
  if (f.null === true) return p.displayName + " is null";
  if (f.null === false) parts.push("has a value");
  if (f.in && f.in.length) parts.push("in " + f.in.join(", "));
  if (f.eq !== undefined) parts.push("= " + f.eq);
  if (f.gte !== undefined && f.lte !== undefined) parts.push(f.gte + " … " + f.lte);
  else if (f.gte !== undefined) parts.push("≥ " + f.gte);
  else if (f.lte !== undefined) parts.push("≤ " + f.lte);
  return p.displayName + " " + parts.join(", ") + " ✕";
}
