// End-to-end test of the ontoindex search API through the official OSDK
// platform client: the functions of @osdk/foundry.ontologies over the client
// context of @osdk/shared.client.impl (what @osdk/client's
// createPlatformClient builds), with a bearer token, against a real
// `indexer serve` on the demo warehouse. Expectations are computed from the
// rows written to the Iceberg tables (data.json).
//
// Run by run.sh, which sets ONTOINDEX_URL, APP_TOKEN, LIMITED_TOKEN and
// DATA_JSON.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createSharedClientContext } from "@osdk/shared.client.impl";
import {
  ObjectTypesV2,
  OntologiesV2,
  OntologyObjectSets,
  OntologyObjectsV2,
} from "@osdk/foundry.ontologies";

const env = (name) => {
  const v = process.env[name];
  assert.ok(v, `${name} is not set (run run.sh)`);
  return v;
};
const baseUrl = env("ONTOINDEX_URL");
const token = env("APP_TOKEN");
const data = JSON.parse(readFileSync(env("DATA_JSON"), "utf8"));
const client = createSharedClientContext(baseUrl, async () => token, "ontoindex-e2e/1.0");
const limited = createSharedClientContext(baseUrl, async () => env("LIMITED_TOKEN"), "ontoindex-e2e/1.0");
const O = "demo";
const employees = data.employees;

// Helpers over the table rows.
const ids = (objs) => objs.map((o) => o.__primaryKey);
// Employee ids are longs, which the wire carries as strings.
const idsOf = (rows) => rows.map((r) => String(r.id));
const words = (s) => (s ?? "").toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);
const byThenId = (key, desc) => (a, b) => {
  const x = a[key], y = b[key];
  if (x == null && y == null) return a.id - b.id;
  if (x == null) return 1; // nulls last
  if (y == null) return -1;
  const c = x < y ? -1 : x > y ? 1 : 0;
  return (desc ? -c : c) || a.id - b.id;
};
const num = (r, k) => (r[k] == null ? null : Number(r[k]));

async function rejectsWith(promise, status, errorName) {
  await assert.rejects(promise, (err) => {
    assert.equal(err.errorName, errorName, `errorName of ${err}`);
    assert.equal(err.statusCode, status);
    assert.ok(err.errorInstanceId, "errorInstanceId");
    return true;
  });
}

async function allPages(load, pageSize) {
  const out = [];
  let pageToken;
  for (let i = 0; i < 1000; i++) {
    const page = await load({ pageSize, pageToken });
    assert.ok(page.data.length <= pageSize);
    out.push(...page.data);
    pageToken = page.nextPageToken;
    if (!pageToken) return { objects: out, totalCount: page.totalCount };
  }
  throw new Error("paging does not end");
}

test("ontologies", async () => {
  const list = await OntologiesV2.list(client);
  assert.deepEqual(list.data.map((o) => o.apiName), ["demo"]);
  const o = await OntologiesV2.get(client, "ri.ontology.main.ontology.demo");
  assert.equal(o.apiName, "demo");
  assert.equal(o.displayName, "Demo");
  await rejectsWith(OntologiesV2.get(client, "nope"), 404, "OntologyNotFound");
});

test("object types", async () => {
  const list = await ObjectTypesV2.list(client, O);
  assert.deepEqual(list.data.map((t) => t.apiName), data.objectTypes);
  const t = await ObjectTypesV2.get(client, O, "Employee");
  assert.equal(t.primaryKey, "id");
  assert.equal(t.titleProperty, "name");
  assert.deepEqual(t.properties.salary.dataType, { type: "decimal", precision: 10, scale: 2 });
  assert.deepEqual(t.properties.tags.dataType, { type: "array", subType: { type: "string" }, reducers: [] });
  assert.equal(t.properties.updated.dataType.type, "timestamp");
  await rejectsWith(ObjectTypesV2.get(client, O, "Nope"), 404, "ObjectTypeNotFound");
});

test("list pages through every object in primary-key order", async () => {
  const { objects, totalCount } = await allPages(
    (p) => OntologyObjectsV2.list(client, O, "Employee", { select: [], ...p }),
    7,
  );
  assert.equal(totalCount, String(employees.length));
  assert.deepEqual(ids(objects), idsOf(employees));
  for (const [i, r] of employees.entries()) {
    const o = objects[i];
    assert.equal(o.name, r.name);
    assert.equal(o.salary, r.salary, "decimals are strings");
    assert.equal(o.hired, r.hired, "dates are YYYY-MM-DD");
    assert.equal(o.updated, r.updated, "timestamps are RFC 3339");
    assert.equal(o.age, r.age ?? undefined, "nulls are omitted");
    assert.deepEqual(o.tags, r.tags ?? undefined);
    assert.equal(o.id, String(r.id), "longs are strings");
    assert.equal(o.big, r.big, "longs keep every digit");
    assert.equal(o.__apiName, "Employee");
    assert.equal(o.__title, r.name);
    assert.match(o.__rid, /^ri\.ontoindex\.main\.object\.Employee\./);
  }
});

test("list with orderBy and select", async () => {
  const { objects } = await allPages(
    (p) => OntologyObjectsV2.list(client, O, "Employee", { select: ["age"], orderBy: "properties.age:desc", excludeRid: true, ...p }),
    10,
  );
  assert.deepEqual(ids(objects), idsOf([...employees].sort(byThenId("age", true))));
  assert.deepEqual(Object.keys(objects[0]).sort(), ["__apiName", "__primaryKey", "__title", "age", "id"]);
});

test("longs beyond 2^53 keep their digits on the wire, as strings", async () => {
  const res = await fetch(`${baseUrl}/api/v2/ontologies/demo/objects/Employee/10`, {
    headers: { Authorization: `Bearer ${token}` },
  });
  assert.equal(res.status, 200);
  const text = await res.text();
  const want = employees.find((r) => r.id === 10).big;
  assert.ok(text.includes(`"big":"${want}"`), `${text} holds big "${want}"`);
});

test("get", async () => {
  const o = await OntologyObjectsV2.get(client, O, "Employee", "10", { select: [] });
  const r = employees.find((r) => r.id === 10);
  assert.equal(o.__primaryKey, "10");
  assert.equal(o.name, r.name);
  assert.equal(o.salary, r.salary);
  assert.deepEqual(o.tags, r.tags);
  const a = await OntologyObjectsV2.get(client, O, "Assignment", "10,R&D%2C phase 1", { select: [] });
  assert.equal(a.project, "R&D, phase 1");
  assert.equal(a.__primaryKey, "10,R&D%2C phase 1");
  const b = await OntologyObjectsV2.get(client, O, "Assignment", "20,100%25 uptime", { select: [] });
  assert.equal(b.project, "100% uptime");
  await rejectsWith(OntologyObjectsV2.get(client, O, "Employee", "11", { select: [] }), 404, "ObjectNotFound");
  await rejectsWith(OntologyObjectsV2.get(client, O, "Ghost", "1", { select: [] }), 409, "ObjectTypeNotSynced");
});

test("search with nested and/or/not, text, range and ordering", async () => {
  const where = {
    type: "and",
    value: [
      { type: "or", value: [
        { type: "eq", field: "dept", value: "Sales" },
        { type: "eq", field: "dept", value: "Research" },
      ] },
      { type: "not", value: { type: "isNull", field: "age", value: true } },
      { type: "gte", field: "hired", value: "2016-01-01" },
      { type: "lt", field: "salary", value: "95000.00" },
      { type: "not", value: { type: "containsAnyTerm", field: "bio", value: "pilots turbofan" } },
    ],
  };
  const want = employees
    .filter((r) => (r.dept === "Sales" || r.dept === "Research") && r.age != null && r.hired >= "2016-01-01"
      && Number(r.salary) < 95000 && !words(r.bio).some((w) => w === "pilots" || w === "turbofan"))
    .sort((a, b) => Number(b.salary) - Number(a.salary) || a.id - b.id);
  assert.ok(want.length > 3, "the query selects a few rows");
  const { objects, totalCount } = await allPages(
    (p) => OntologyObjectsV2.search(client, O, "Employee", { where, orderBy: { fields: [{ field: "salary", direction: "desc" }] }, select: [], ...p }),
    3,
  );
  assert.equal(totalCount, String(want.length));
  assert.deepEqual(ids(objects), idsOf(want));
});

test("search text queries", async () => {
  const cases = [
    [{ type: "containsAllTermsInOrder", field: "bio", value: "North Atlantic" }, (r) => (r.bio ?? "").includes("North Atlantic")],
    [{ type: "containsAllTerms", field: "bio", value: "hangr doors", fuzzy: true }, (r) => words(r.bio).includes("hangar")],
    [{ type: "startsWith", field: "name", value: "gra" }, (r) => words(r.name).some((w) => w.startsWith("gra"))],
    [{ type: "wildcard", field: "title", value: "*Pilot" }, (r) => r.title.endsWith("Pilot")],
    [{ type: "contains", field: "tags", value: "mentor" }, (r) => (r.tags ?? []).includes("mentor")],
    [{ type: "in", field: "age", value: [34, 47] }, (r) => r.age === 34 || r.age === 47],
  ];
  for (const [where, keep] of cases) {
    const res = await OntologyObjectsV2.search(client, O, "Employee", { where, select: [], pageSize: 100 });
    assert.deepEqual(ids(res.data), idsOf(employees.filter(keep)), JSON.stringify(where));
  }
  await rejectsWith(
    OntologyObjectsV2.search(client, O, "Employee", { where: { type: "withinDistanceOf", field: "name", value: {} }, select: [] }),
    400, "PropertyFiltersNotSupported");
});

test("count", async () => {
  assert.deepEqual(await OntologyObjectsV2.count(client, O, "Employee"), { count: employees.length });
  assert.deepEqual(await OntologyObjectsV2.count(client, O, "Assignment"), { count: data.assignments.length });
});

test("aggregate", async () => {
  const res = await OntologyObjectsV2.aggregate(client, O, "Employee", {
    aggregation: [
      { type: "count", name: "n" },
      { type: "avg", field: "age", name: "avgAge" },
      { type: "max", field: "salary", name: "maxSalary" },
      { type: "exactDistinct", field: "title", name: "titles" },
    ],
    groupBy: [{ type: "exact", field: "dept" }],
    where: { type: "eq", field: "active", value: true },
  });
  assert.equal(res.accuracy, "ACCURATE");
  const active = employees.filter((r) => r.active);
  const depts = [...new Set(active.map((r) => r.dept))];
  assert.equal(res.data.length, depts.length);
  for (const item of res.data) {
    const rows = active.filter((r) => r.dept === item.group.dept);
    const m = Object.fromEntries(item.metrics.map((x) => [x.name, x.value]));
    const ages = rows.filter((r) => r.age != null).map((r) => r.age);
    assert.equal(m.n, rows.length);
    assert.ok(Math.abs(m.avgAge - ages.reduce((a, b) => a + b, 0) / ages.length) < 1e-9);
    assert.equal(m.maxSalary, rows.map((r) => r.salary).sort((a, b) => Number(b) - Number(a))[0]);
    assert.equal(m.titles, new Set(rows.map((r) => r.title)).size);
  }
  const ranges = await OntologyObjectsV2.aggregate(client, O, "Employee", {
    aggregation: [{ type: "count", name: "n" }],
    groupBy: [{ type: "ranges", field: "age", ranges: [{ startValue: 20, endValue: 40 }, { startValue: 40, endValue: 70 }] }],
  });
  const n = (lo, hi) => employees.filter((r) => r.age != null && r.age >= lo && r.age < hi).length;
  const got = Object.fromEntries(ranges.data.map((d) => [d.group.age.startValue, d.metrics[0].value]));
  assert.deepEqual(got, { 20: n(20, 40), 40: n(40, 70) });
});

test("loadObjects", async () => {
  const first = await OntologyObjectsV2.search(client, O, "Employee", { where: { type: "in", field: "id", value: [20, 60] }, select: [] });
  const objectSet = {
    type: "subtract",
    objectSets: [
      { type: "union", objectSets: [
        { type: "filter", objectSet: { type: "base", objectType: "Employee" }, where: { type: "eq", field: "dept", value: "Sales" } },
        { type: "filter", objectSet: { type: "base", objectType: "Employee" }, where: { type: "gte", field: "age", value: 55 } },
      ] },
      { type: "static", objects: first.data.map((o) => o.__rid) },
    ],
  };
  const want = employees
    .filter((r) => (r.dept === "Sales" || (r.age ?? 0) >= 55) && r.id !== 20 && r.id !== 60)
    .sort(byThenId("hired", false));
  const { objects, totalCount } = await allPages(
    (p) => OntologyObjectSets.load(client, O, { objectSet, select: [], orderBy: { fields: [{ field: "hired", direction: "asc" }] }, ...p }),
    4,
  );
  assert.equal(totalCount, String(want.length));
  assert.deepEqual(ids(objects), idsOf(want));
  await rejectsWith(
    OntologyObjectSets.load(client, O, { objectSet: { type: "searchAround", objectSet: { type: "base", objectType: "Employee" }, link: "x" }, select: [] }),
    404, "LinkTypeNotFound");
});

test("bearer tokens", async () => {
  const list = await ObjectTypesV2.list(limited, O);
  assert.deepEqual(list.data.map((t) => t.apiName), ["Assignment"]);
  await rejectsWith(OntologyObjectsV2.list(limited, O, "Employee", { select: [] }), 404, "ObjectTypeNotFound");
  await rejectsWith(
    OntologyObjectSets.load(limited, O, { objectSet: { type: "base", objectType: "Employee" }, select: [] }),
    404, "ObjectTypeNotFound");
  const a = await OntologyObjectsV2.count(limited, O, "Assignment");
  assert.equal(a.count, data.assignments.length);
  const wrong = createSharedClientContext(baseUrl, async () => "not-a-token-at-all", "ontoindex-e2e/1.0");
  await rejectsWith(OntologiesV2.list(wrong), 401, "InvalidCredentials");
  const res = await fetch(`${baseUrl}/api/v2/ontologies`);
  assert.equal(res.status, 401);
  assert.equal((await res.json()).errorName, "MissingCredentials");
});
