// Routes live in the URL fragment: #/<page>/<segment>...?<query>. The
// query holds what a page shows (a search, filters, a sort, columns), so
// the URL can be shared; it never holds the token.

export function parse(hash) {
  const raw = (hash || "").replace(/^#\/?/, "");
  const q = raw.indexOf("?");
  const path = q < 0 ? raw : raw.slice(0, q);
  const params = new URLSearchParams(q < 0 ? "" : raw.slice(q + 1));
  const segs = path.split("/").filter((x) => x !== "").map((x) => {
    try { return decodeURIComponent(x); } catch { return x; }
  });
  return { page: segs[0] || "types", segs: segs.slice(1), params };
}

// href builds a fragment from a page, its segments and its parameters
// (empty values are left out).
export function href(page, segs, params) {
  let out = "#/" + [page, ...(segs || [])].map(encodeURIComponent).join("/");
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(params || {})) {
    if (v !== undefined && v !== null && v !== "") p.set(k, v);
  }
  const qs = p.toString();
  return qs ? out + "?" + qs : out;
}

export function objectHref(type, pk) { return href("object", [type, String(pk)]); }
export function exploreHref(type, params) { return href("explore", [type], params); }
