// End-to-end test of the time and percentile aggregations with
// @osdk/client: $duration group-bys on a date (Employee.hired) and a
// timestamp (Employee.updated, Order.placedAt), checked against the rows
// the seed wrote. The client sends a $duration as
// {type: "duration", field, value, unit} and types the group value as the
// property's own (the bucket start). approximatePercentile and
// relativeDateRange have no spelling in the client's aggregate and where
// clauses, so those go over the REST API as an application's fetch would.
//
// Run by run.sh, which sets ONTOINDEX_URL, APP_TOKEN and DATA_JSON.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Employee, Order, baseUrl, data, newClient, token } from "./osdk.mjs";

const employees = data.employees;

// countBy counts rows by the key f gives.
const countBy = (rows, f) => {
  const m = new Map();
  for (const r of rows) m.set(f(r), (m.get(f(r)) ?? 0) + 1);
  return m;
};

// groupsOf is the result of a one-grouping aggregation as key -> $count.
const groupsOf = (res, prop) => new Map(res.map((g) => [g.$group[prop], g.$count]));

const iso = (ms) => new Date(ms).toISOString().replace(".000Z", "Z");

test("$duration by month on a date groups by calendar month, keyed by its first day", async () => {
  const client = newClient();
  const res = await client(Employee).aggregate({ $select: { $count: "unordered" }, $groupBy: { hired: { $duration: [1, "months"] } } });
  const want = countBy(employees, (r) => `${r.hired.slice(0, 7)}-01`);
  assert.ok(want.size > 10, "the employees were hired over many months");
  assert.deepEqual(groupsOf(res, "hired"), want);
});

test("$duration by week starts on Monday; by quarter and year on their first day", async () => {
  const client = newClient();
  const monday = (d) => {
    const t = Date.parse(`${d}T00:00:00Z`);
    const back = (new Date(t).getUTCDay() + 6) % 7;
    return iso(t - back * 86400000).slice(0, 10);
  };
  const weeks = await client(Employee).aggregate({ $select: { $count: "unordered" }, $groupBy: { hired: { $duration: [1, "weeks"] } } });
  assert.deepEqual(groupsOf(weeks, "hired"), countBy(employees, (r) => monday(r.hired)));
  for (const g of weeks) assert.equal(new Date(`${g.$group.hired}T00:00:00Z`).getUTCDay(), 1, `${g.$group.hired} is a Monday`);

  const quarters = await client(Employee).aggregate({ $select: { $count: "unordered" }, $groupBy: { hired: { $duration: [1, "quarter"] } } });
  const q = (d) => `${d.slice(0, 4)}-${String(Math.floor((Number(d.slice(5, 7)) - 1) / 3) * 3 + 1).padStart(2, "0")}-01`;
  assert.deepEqual(groupsOf(quarters, "hired"), countBy(employees, (r) => q(r.hired)));

  const years = await client(Employee).aggregate({ $select: { $count: "unordered" }, $groupBy: { hired: { $duration: [1, "years"] } } });
  assert.deepEqual(groupsOf(years, "hired"), countBy(employees, (r) => `${r.hired.slice(0, 4)}-01-01`));
});

test("$duration on timestamps: fixed hours from the epoch, months in UTC, with other groups and metrics", async () => {
  const client = newClient();
  const hours = await client(Employee).aggregate({ $select: { $count: "unordered" }, $groupBy: { updated: { $duration: [6, "hours"] } } });
  const sixHours = 6 * 3600 * 1000;
  assert.deepEqual(groupsOf(hours, "updated"), countBy(employees, (r) => iso(Math.floor(Date.parse(r.updated) / sixHours) * sixHours)));

  const byMonth = await client(Order).aggregate({
    $select: { $count: "unordered", "amount:sum": "unordered", "amount:max": "unordered" },
    $groupBy: { placedAt: { $duration: [1, "month"] }, status: "exact" },
  });
  const rows = new Map();
  for (const r of data.orders) {
    const k = `${r.placed_at.slice(0, 7)}-01T00:00:00Z/${r.status}`;
    const g = rows.get(k) ?? { n: 0, sum: 0, max: -Infinity };
    g.n++;
    if (r.amount != null) { // a decimal: a string with its scale
      g.sum += Number(r.amount);
      g.max = Math.max(g.max, Number(r.amount));
    }
    rows.set(k, g);
  }
  assert.equal(byMonth.length, rows.size);
  for (const g of byMonth) {
    const w = rows.get(`${g.$group.placedAt}/${g.$group.status}`);
    assert.ok(w, `group ${JSON.stringify(g.$group)} is expected`);
    assert.equal(g.$count, w.n);
    assert.ok(Math.abs(g.amount.sum - w.sum) < 1e-6, `sum of ${JSON.stringify(g.$group)}`);
    assert.equal(Number(g.amount.max), w.max);
  }
});

// post sends a request to the REST API with the application's token.
const post = async (path, body) => {
  const res = await fetch(`${baseUrl}/api/v2/ontologies/demo${path}`, {
    method: "POST", headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" }, body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
};

test("approximatePercentile is the nearest rank, exact and said to be ACCURATE", async () => {
  const ages = employees.map((r) => r.age).filter((a) => a != null).sort((a, b) => a - b);
  for (const p of [0, 0.5, 0.9, 1]) {
    const { status, body } = await post("/objects/Employee/aggregate", {
      aggregation: [{ type: "approximatePercentile", field: "age", approximatePercentile: p, name: "p" }], groupBy: [],
    });
    assert.equal(status, 200, JSON.stringify(body));
    assert.equal(body.accuracy, "ACCURATE");
    assert.equal(body.data[0].metrics[0].value, ages[Math.max(Math.ceil(p * ages.length), 1) - 1], `percentile ${p}`);
  }
});

test("relativeDateRange filters a date relative to now", async () => {
  const point = (value, timeUnit) => ({ type: "relativePoint", value, timeUnit });
  const count = async (where) => {
    const { status, body } = await post("/objects/Employee/aggregate", { aggregation: [{ type: "count" }], groupBy: [], where });
    assert.equal(status, 200, JSON.stringify(body));
    return body.data[0].metrics[0].value;
  };
  // The seed's hire dates are all in the past and within the last century.
  const hired = employees.filter((r) => r.hired != null).length;
  assert.equal(await count({ type: "relativeDateRange", field: "hired", relativeStartTime: point(-100, "YEAR"), relativeEndTime: point(1, "DAY"), timeZoneId: "UTC" }), hired);
  assert.equal(await count({ type: "relativeDateRange", field: "hired", relativeStartTime: point(0, "DAY"), timeZoneId: "Europe/Paris" }), 0);
  const { status, body } = await post("/objects/Employee/aggregate", {
    aggregation: [{ type: "count" }], groupBy: [], where: { type: "relativeDateRange", field: "hired", relativeStartTime: point(-1, "DAY") },
  });
  assert.equal(status, 400);
  assert.match(body.message, /relativeDateRange on hired needs timeZoneId/);
});
