// The client of the server's public HTTP API: the Ontology API v2 under
// /api/v2/ontologies and the ops endpoints under /api/indexer/v1. It sends
// the bearer token in the Authorization header and nowhere else.

const TOKEN_KEY = "ontoindex.console.token";

// The token lives in sessionStorage only: it ends with the tab, and it is
// never put in a URL, a cookie or a log.
export const session = {
  token() { return sessionStorage.getItem(TOKEN_KEY) || ""; },
  save(token) { sessionStorage.setItem(TOKEN_KEY, token); },
  clear() { sessionStorage.removeItem(TOKEN_KEY); },
};

// ApiError is a failed request: the HTTP status and the Conjure error
// (errorName, parameters, message) when the body has one.
export class ApiError extends Error {
  constructor(status, body, path) {
    const name = body && body.errorName;
    const reason = body && (body.message || (body.parameters && body.parameters.reason));
    super(name ? (reason && reason !== name ? reason : name) : "HTTP " + status + " from " + path);
    this.status = status;
    this.errorName = name || "";
    this.parameters = (body && body.parameters) || {};
  }
}

export class Api {
  constructor(token) {
    this.token = token;
    this.cache = new Map(); // metadata, which changes only with a reload
    this.onUnauthorized = null;
    this.live = null; // the session's live feed (live.js), made on first use
  }

  async request(method, path, body) {
    const headers = { Accept: "application/json" };
    if (this.token) headers.Authorization = "Bearer " + this.token;
    const init = { method, headers, cache: "no-store", credentials: "omit", referrerPolicy: "no-referrer" };
    if (body !== undefined) {
      headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const res = await fetch(path, init);
    const text = await res.text();
    let data = null;
    try { data = text ? JSON.parse(text) : null; } catch { data = null; }
    if (!res.ok) {
      // A token the server no longer takes (a restart with other tokens).
      if (res.status === 401 && this.onUnauthorized) this.onUnauthorized();
      throw new ApiError(res.status, data, path);
    }
    return { data, headers: res.headers };
  }

  async get(path) { return (await this.request("GET", path)).data; }
  async post(path, body) { return (await this.request("POST", path, body)).data; }

  // Ops.
  whoami() { return this.get("/api/indexer/v1/whoami"); }
  status() { return this.get("/api/indexer/v1/status"); }
  checks() { return this.get("/api/indexer/v1/checks/write-modes"); }
  rebuild(type) { return this.post("/api/indexer/v1/objectTypes/" + enc(type) + "/rebuild"); }
  reload() { return this.post("/api/indexer/v1/reload"); }

  // The ontology: the server serves one.
  async ontology() {
    if (!this.cache.has("ontology")) {
      const list = await this.get("/api/v2/ontologies");
      if (!list.data || list.data.length === 0) throw new Error("the server serves no ontology");
      this.cache.set("ontology", list.data[0]);
    }
    return this.cache.get("ontology");
  }

  async base() { return "/api/v2/ontologies/" + enc((await this.ontology()).apiName); }

  async objectTypes() {
    const b = await this.base();
    const out = [];
    let token = "";
    do {
      const page = await this.get(b + "/objectTypes?pageSize=500" + (token ? "&pageToken=" + enc(token) : ""));
      out.push(...page.data);
      token = page.nextPageToken || "";
    } while (token);
    return out;
  }

  // metadata is ObjectTypeFullMetadata, cached for the page's life.
  async metadata(type) {
    const key = "meta:" + type;
    if (!this.cache.has(key)) {
      const b = await this.base();
      this.cache.set(key, this.get(b + "/objectTypes/" + enc(type) + "/fullMetadata").catch((e) => { this.cache.delete(key); throw e; }));
    }
    return this.cache.get(key);
  }

  async search(type, body) { return this.post((await this.base()) + "/objects/" + enc(type) + "/search", body); }
  async aggregate(type, body) { return this.post((await this.base()) + "/objects/" + enc(type) + "/aggregate", body); }

  // object returns the object and the snapshot it was read at (the
  // Ontoindex-Snapshot-Id header).
  async object(type, pk) {
    const r = await this.request("GET", (await this.base()) + "/objects/" + enc(type) + "/" + enc(pk));
    return { object: r.data, snapshot: r.headers.get("Ontoindex-Snapshot-Id") || "" };
  }

  async links(type, pk, link, pageSize, pageToken) {
    let p = (await this.base()) + "/objects/" + enc(type) + "/" + enc(pk) + "/links/" + enc(link) + "?pageSize=" + pageSize;
    if (pageToken) p += "&pageToken=" + enc(pageToken);
    return this.get(p);
  }
}

export const enc = encodeURIComponent;
