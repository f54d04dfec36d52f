// The explorer's query: its state in the URL (q, f, sort, cols, size) and
// the Ontology API where clause it stands for.

const NUMERIC = new Set(["byte", "short", "integer", "long", "float", "double", "decimal"]);

// props describes the properties of an object type from its metadata:
// apiName, displayName, dataType, searchRole, the base type (of the
// elements, for arrays), and what the explorer can do with each.
export function props(meta) {
  const ot = meta.objectType;
  const keys = ot.primaryKeyProperties || [ot.primaryKey];
  return Object.entries(ot.properties).map(([apiName, p]) => {
    const dt = p.dataType || { type: "string" };
    const array = dt.type === "array";
    const base = array ? (dt.subType && dt.subType.type) || "string" : dt.type;
    const role = p.searchRole || "";
    let filter = "null"; // every property can be filtered on null
    if (role !== "none") {
      if (base === "boolean") filter = "boolean";
      else if (NUMERIC.has(base)) filter = "range";
      else if (base === "date" || base === "timestamp") filter = "range";
      else if (base === "string" && role === "keyword") filter = "keyword";
    }
    return {
      apiName, displayName: p.displayName || apiName, dataType: dt, role, base, array, filter,
      text: role === "text", key: keys.includes(apiName),
      sortable: role !== "none" && !array,
    };
  }).sort((a, b) => rank(a) - rank(b) || a.apiName.localeCompare(b.apiName));

  // Key properties first, in key order, then the title, then by name.
  function rank(p) { return p.key ? keys.indexOf(p.apiName) : p.apiName === ot.titleProperty ? 1000 : 2000; }
}

// typeLabel names a property's type: long, decimal(10,2), array<string>.
export function typeLabel(dt) {
  if (!dt) return "string";
  if (dt.type === "array") return "array<" + typeLabel(dt.subType) + ">";
  if (dt.type === "decimal" && dt.precision !== undefined) return "decimal(" + dt.precision + "," + dt.scale + ")";
  return dt.type;
}

export const PAGE_SIZES = [10, 25, 50, 100];

// State is what the URL keeps of an explorer query.
export function readState(params) {
  let filters = {};
  try {
    const f = params.get("f");
    if (f) filters = JSON.parse(f);
    if (typeof filters !== "object" || filters === null || Array.isArray(filters)) filters = {};
  } catch { filters = {}; }
  const sortRaw = params.get("sort") || "";
  const [field, dir] = sortRaw.split(":");
  const size = Number(params.get("size"));
  return {
    q: params.get("q") || "",
    filters,
    sort: field ? { field, dir: dir === "desc" ? "desc" : "asc" } : null,
    cols: params.get("cols") ? params.get("cols").split(",").filter(Boolean) : null,
    size: PAGE_SIZES.includes(size) ? size : 25,
  };
}

export function stateParams(st) {
  const f = {};
  for (const [k, v] of Object.entries(st.filters)) {
    if (v && Object.keys(v).length) f[k] = v;
  }
  return {
    q: st.q || "",
    f: Object.keys(f).length ? JSON.stringify(f) : "",
    sort: st.sort ? st.sort.field + ":" + st.sort.dir : "",
    cols: st.cols ? st.cols.join(",") : "",
    size: st.size !== 25 ? String(st.size) : "",
  };
}

// textWhere is the clause of a text search: every term in some text
// property (or, for a type without text properties, the whole query as a
// prefix of some keyword property). null when nothing can be searched.
export function textWhere(list, q) {
  const terms = (q || "").trim().split(/\s+/).filter(Boolean);
  if (terms.length === 0) return undefined;
  const text = list.filter((p) => p.text);
  if (text.length > 0) {
    return and(terms.map((t) => or(text.map((p) => ({ type: "containsAllTerms", field: p.apiName, value: t })))));
  }
  const kw = list.filter((p) => p.filter === "keyword" && !p.array);
  if (kw.length > 0) return or(kw.map((p) => ({ type: "startsWith", field: p.apiName, value: q.trim() })));
  return null;
}

// filterWhere is the clause of one property's filter.
export function filterWhere(p, f) {
  if (!f) return undefined;
  const parts = [];
  if (f.null === true) return { type: "isNull", field: p.apiName, value: true };
  if (f.null === false) parts.push({ type: "isNull", field: p.apiName, value: false });
  if (Array.isArray(f.in) && f.in.length) parts.push({ type: "in", field: p.apiName, value: f.in });
  if (f.eq !== undefined) parts.push({ type: "eq", field: p.apiName, value: f.eq });
  if (f.gte !== undefined && f.gte !== "") parts.push({ type: "gte", field: p.apiName, value: f.gte });
  if (f.lte !== undefined && f.lte !== "") parts.push({ type: "lte", field: p.apiName, value: f.lte });
  return parts.length ? and(parts) : undefined;
}

// where is the clause of the whole query; skip leaves one property's
// filter out (the counts of a facet are over the other filters).
export function where(list, st, skip) {
  const parts = [];
  const t = textWhere(list, st.q);
  if (t) parts.push(t);
  for (const p of list) {
    if (p.apiName === skip) continue;
    const w = filterWhere(p, st.filters[p.apiName]);
    if (w) parts.push(w);
  }
  return parts.length ? and(parts) : undefined;
}

function and(parts) { return parts.length === 1 ? parts[0] : { type: "and", value: parts }; }
function or(parts) { return parts.length === 1 ? parts[0] : { type: "or", value: parts }; }

// defaultColumns: the title and key properties, then others, up to eight.
export function defaultColumns(meta, list) {
  const title = meta.objectType.titleProperty;
  const first = list.filter((p) => p.key || p.apiName === title).map((p) => p.apiName);
  const rest = list.filter((p) => !first.includes(p.apiName)).map((p) => p.apiName);
  return [...first, ...rest].slice(0, 8);
}
