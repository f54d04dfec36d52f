// The object types the token sees: table, object count, state and lag,
// refreshed every few seconds; and a search across every type.
import { add, badge, h, notice, num, replace, seconds, when } from "../dom.js";
import { props, textWhere } from "../query.js";
import { exploreHref, href, objectHref } from "../router.js";

const POLL_MS = 3000;
const HITS = 5;

export async function renderTypes(ctx) {
  const { api, el } = ctx;
  document.title = "Object types · ontoindex";
  const types = await api.objectTypes();
  if (!ctx.alive()) return;
  const qs = ctx.params.get("q") || "";
  const q = h("input", { id: "q-all", type: "search", value: qs, placeholder: "Search every object type…", "aria-label": "Search every object type" });
  const form = h("form", { class: "search", id: "search-all" }, q, h("button", { type: "submit", text: "Search" }));
  form.addEventListener("submit", (ev) => { ev.preventDefault(); location.hash = href("types", [], { q: q.value.trim() }); });
  const body = h("tbody");
  const hits = h("div", { id: "hits", class: "hits" });
  add(el, h("h1", { text: "Object types" }), form, hits,
    h("div", { class: "table-wrap" }, h("table", { class: "types", id: "types" },
      h("thead", {}, h("tr", {}, ["Object type", "Table", "Objects", "State", "Lag", "Last build"].map((t) => h("th", { text: t })))), body)));
  if (types.length === 0) add(el, notice("info", "This token sees no object type."));

  const refresh = async () => {
    const rep = await api.status().catch(() => null);
    if (!ctx.alive()) return;
    const byType = new Map(((rep && rep.objectTypes) || []).map((s) => [s.objectType, s]));
    replace(body, types.map((t) => {
      const s = byType.get(t.apiName);
      return h("tr", { dataset: { type: t.apiName } },
        h("td", {}, h("a", { href: exploreHref(t.apiName), text: t.displayName || t.apiName }), t.displayName && t.displayName !== t.apiName ? h("span", { class: "muted api", text: t.apiName }) : null),
        h("td", { class: "mono", text: s ? s.table : "—" }),
        h("td", { class: "num objects", text: s ? num(s.objects) : "—" }),
        h("td", {}, s ? badge(s.state) : "—"),
        h("td", { class: "num" }, s ? lagText(s) : "—"),
        h("td", { class: "small", text: s && s.lastBuild ? s.lastBuild.kind + ", " + when(s.lastBuild.finishedAt) : "—" }));
    }));
  };
  await refresh();
  const timer = setInterval(refresh, POLL_MS);
  ctx.onCleanup(() => clearInterval(timer));

  if (qs) await searchAll(ctx, types, qs, hits);
}

export function lagText(s) {
  if (!s.lagSnapshots) return "up to date";
  return s.lagSnapshots + (s.lagSnapshots === 1 ? " snapshot, " : " snapshots, ") + seconds(s.lagSeconds);
}

// searchAll runs the text search on every type at once and lists the
// first hits of each.
async function searchAll(ctx, types, qs, out) {
  replace(out, h("p", { class: "muted", text: "Searching…" }));
  const sections = await Promise.all(types.map(async (t) => {
    try {
      const meta = await ctx.api.metadata(t.apiName);
      const w = textWhere(props(meta), qs);
      if (w === null) return null; // nothing to search in this type
      const res = await ctx.api.search(t.apiName, { where: w, pageSize: HITS });
      const total = Number(res.totalCount);
      if (total === 0) return null;
      return h("section", { class: "hit-type", dataset: { type: t.apiName } },
        h("h3", {}, h("a", { href: exploreHref(t.apiName, { q: qs }), text: (t.pluralDisplayName || t.displayName || t.apiName) }), " ",
          h("span", { class: "muted count", text: num(total) + (total === 1 ? " match" : " matches") })),
        h("ul", {}, res.data.map((o) => h("li", { dataset: { pk: String(o.__primaryKey) } },
          h("a", { href: objectHref(t.apiName, o.__primaryKey), text: o.__title ?? String(o.__primaryKey) })))));
    } catch (e) {
      return h("section", { class: "hit-type", dataset: { type: t.apiName } }, h("h3", { text: t.apiName }), notice("error", e.message));
    }
  }));
  if (!ctx.alive()) return;
  const found = sections.filter(Boolean);
  replace(out, found.length ? [h("h2", { text: "Matches for “" + qs + "”" }), found] : notice("info", "No object matches “" + qs + "”."));
}
