// One object: every property with its type, the primary key, the title,
// the Iceberg snapshot it was read at, and its linked objects.
import { enc } from "../api.js";
import { add, h, notice, num, replace, when } from "../dom.js";
import { props, typeLabel } from "../query.js";
import { exploreHref, objectHref } from "../router.js";
import { value } from "../values.js";

const LINK_PAGE = 10;

export async function renderObject(ctx) {
  const { api, el } = ctx;
  const [type, pk] = ctx.segs;
  let meta, got;
  try {
    [meta, got] = await Promise.all([api.metadata(type), api.object(type, pk)]);
  } catch (e) {
    if (e.errorName === "ObjectNotFound" || e.errorName === "ObjectTypeNotFound") {
      add(el, notice("error", e.errorName === "ObjectNotFound" ? "No " + type + " has primary key " + pk + "." : "There is no object type " + type + " (or this token cannot see it)."));
      return;
    }
    throw e;
  }
  if (!ctx.alive()) return;
  const status = await api.get("/api/indexer/v1/status/" + enc(type)).catch(() => null);
  if (!ctx.alive()) return;
  const ot = meta.objectType;
  const o = got.object;
  const list = props(meta);
  const title = o.__title ?? String(o.__primaryKey);
  document.title = title + " · " + (ot.displayName || type) + " · ontoindex";

  const keys = list.filter((p) => p.key);
  const rows = list.map((p) => h("tr", { dataset: { prop: p.apiName }, class: p.key ? "key" : p.apiName === ot.titleProperty ? "title" : "" },
    h("th", { scope: "row" }, h("span", { text: p.displayName }), p.displayName !== p.apiName ? h("span", { class: "muted api", text: p.apiName }) : null),
    h("td", { class: "type", text: typeLabel(p.dataType) }),
    h("td", { class: "role", text: p.role || "" }),
    h("td", { class: "value" }, value(o[p.apiName]))));

  add(el, 
    h("nav", { class: "crumbs" }, h("a", { href: "#/types", text: "Object types" }), " / ",
      h("a", { href: exploreHref(type), text: ot.pluralDisplayName || ot.displayName || type }), " / ", h("span", { text: title })),
    h("h1", { id: "object-title" }, title, " ", h("small", { class: "muted", text: ot.displayName || type })),
    h("dl", { class: "facts", id: "object-facts" },
      fact("Primary key", keys.map((p) => p.apiName).join(", ") + " = " + String(o.__primaryKey), "primary-key"),
      fact("Title", (ot.titleProperty || "") + " = " + title, "title"),
      fact("Object rid", o.__rid || "—", "rid"),
      fact("Indexed as of", got.snapshot ? "snapshot " + got.snapshot + (status ? " of table " + status.table : "") : "—", "snapshot"),
      status && status.lastBuild ? fact("Last build", status.lastBuild.kind + " to snapshot " + status.lastBuild.to + ", finished " + when(status.lastBuild.finishedAt), "last-build") : null),
    h("p", { class: "muted small", text: "The object equals its table's row of this key at the snapshot above: the checkpoint of the index generation that served it." }),
    h("h2", { text: "Properties" }),
    h("div", { class: "table-wrap" }, h("table", { class: "properties", id: "properties" },
      h("thead", {}, h("tr", {}, h("th", { text: "Property" }), h("th", { text: "Type" }), h("th", { text: "Search" }), h("th", { text: "Value" }))),
      h("tbody", {}, rows))));

  const links = meta.linkTypes || [];
  if (links.length) {
    add(el, h("h2", { text: "Links" }));
    for (const l of links) add(el, linkSection(ctx, type, o.__primaryKey, l));
  }
}

function fact(label, text, id) {
  return [h("dt", { text: label }), h("dd", { id: "fact-" + id, text })];
}

// linkSection lists the objects one link leads to, a page at a time.
function linkSection(ctx, type, pk, l) {
  const list = h("ul", { class: "linked" });
  const info = h("span", { class: "muted" });
  const more = h("button", { type: "button", class: "secondary small", text: "More", hidden: true });
  const section = h("section", { class: "link", dataset: { link: l.apiName } },
    h("h3", {}, l.displayName || l.apiName, " ", h("span", { class: "muted", text: "→ " + l.objectTypeApiName + " (" + l.cardinality + ")" }), " ", info),
    list, more);
  let token = "";
  const load = async () => {
    more.disabled = true;
    try {
      const res = await ctx.api.links(type, pk, l.apiName, LINK_PAGE, token);
      if (!ctx.alive()) return;
      for (const t of res.data) {
        list.append(h("li", { dataset: { pk: String(t.__primaryKey) } },
          h("a", { href: objectHref(l.objectTypeApiName, t.__primaryKey), text: t.__title ?? String(t.__primaryKey) }),
          t.__title !== undefined && t.__title !== String(t.__primaryKey) ? [" ", h("span", { class: "muted", text: String(t.__primaryKey) })] : null));
      }
      const total = Number(res.totalCount);
      info.textContent = num(total) + (total === 1 ? " object" : " objects");
      if (total === 0) list.append(h("li", { class: "muted", text: "none" }));
      token = res.nextPageToken || "";
      more.hidden = !token;
      more.disabled = false;
    } catch (e) {
      if (ctx.alive()) replace(list, h("li", {}, notice("error", e.message)));
    }
  };
  more.addEventListener("click", load);
  load();
  return section;
}
