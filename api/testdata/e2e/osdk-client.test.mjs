// End-to-end test of ontoindex with Palantir's application client,
// @osdk/client (createClient, client(Type).where(...).fetchPage(), ...),
// against a real `indexer serve` on the demo warehouse: every result is
// checked against the rows the seed wrote to the Iceberg tables. The links
// (pivotTo, $link) are in osdk-links.test.mjs.
//
// Run by run.sh, which sets ONTOINDEX_URL, APP_TOKEN, LIMITED_TOKEN and
// DATA_JSON.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  Customer, Employee, Order, Tag, assertObjects, byKey, data, expected, newClient, props, rejectsWith, rid, row, rows,
} from "./osdk.mjs";

const employees = data.employees;

// byThenKey orders rows by one column, nulls last, then by primary key, as
// the server orders a fetchPage with $orderBy.
const byThenKey = (type, col, desc) => (a, b) => {
  const x = a[col], y = b[col];
  if (x == null || y == null) return (x == null) - (y == null) || byKey(type)(a, b);
  const c = x < y ? -1 : x > y ? 1 : 0;
  return (desc ? -c : c) || byKey(type)(a, b);
};

test("createClient takes the ontology's default rid, and the metadata converts", async () => {
  assert.match(rid, /^ri\./);
  const client = newClient();
  const c = await client.fetchMetadata(Customer);
  assert.equal(c.primaryKeyApiName, "customerId");
  assert.equal(c.primaryKeyType, "string");
  assert.equal(c.titleProperty, "name");
  assert.deepEqual(Object.keys(c.properties).sort(), Object.keys(expected.Customer(data.customers[0])).sort());
  assert.equal(c.properties.visits.type, "long");
  assert.equal(c.properties.since.type, "datetime", "dates are the client's datetime");
  assert.equal(c.properties.balance.type, "double");
  assert.equal(c.properties.vip.type, "boolean");
  assert.deepEqual(c.links, { orders: { multiplicity: true, targetType: "Order" } });
  const o = await client.fetchMetadata(Order);
  assert.equal(o.primaryKeyType, "integer");
  assert.deepEqual(o.links, { customer: { multiplicity: false, targetType: "Customer" }, tags: { multiplicity: true, targetType: "Tag" } });
  const e = await client.fetchMetadata(Employee);
  assert.equal(e.primaryKeyType, "long");
  assert.equal(e.properties.salary.type, "decimal");
  assert.equal(e.properties.updated.type, "timestamp");
  assert.equal(e.properties.tags.multiplicity, true, "arrays are properties of multiplicity");
  assert.deepEqual(e.links, {});
});

test("fetchPage returns every object with its values converted as the client types them", async () => {
  const client = newClient();
  for (const [type, def] of [["Employee", Employee], ["Customer", Customer], ["Order", Order], ["Tag", Tag]]) {
    const page = await client(def).fetchPage();
    assert.equal(page.nextPageToken, undefined, `${type}: one page`);
    assert.equal(page.totalCount, String(rows[type].length));
    assertObjects(page.data, type, [...rows[type]].sort(byKey(type)), `${type}.fetchPage()`);
  }
});

test("fetchPage with where, $orderBy, $select and $pageSize, paged with $nextPageToken", async () => {
  const client = newClient();
  const want = employees
    .filter((r) => ["Sales", "Research"].includes(r.dept) && r.age != null && r.age >= 30 && r.name !== "Ada Lovelace")
    .sort(byThenKey("Employee", "age", true));
  assert.ok(want.length > 7, "the query selects a few pages");
  const set = client(Employee).where({ dept: { $in: ["Sales", "Research"] }, age: { $gte: 30 }, name: { $ne: "Ada Lovelace" } });
  const got = [];
  let token;
  for (let i = 0; i < 100; i++) {
    const page = await set.fetchPage({ $orderBy: { age: "desc" }, $select: ["name", "age", "big"], $pageSize: 3, $nextPageToken: token });
    assert.ok(page.data.length <= 3);
    assert.equal(page.totalCount, String(want.length));
    got.push(...page.data);
    token = page.nextPageToken;
    if (!token) break;
  }
  assert.deepEqual(got.map((o) => o.$primaryKey), want.map((r) => String(r.id)));
  for (const [i, o] of got.entries()) {
    const r = want[i];
    // The primary key property comes with any selection.
    assert.deepEqual(props(o), { id: String(r.id), name: r.name, age: r.age, big: r.big });
    assert.equal(o.$title, r.name);
  }
  // A second where narrows the set again (a filter of a filter).
  const page = await set.where({ active: true }).fetchPage({ $orderBy: { hired: "asc" } });
  assertObjects(page.data, "Employee", want.filter((r) => r.active).sort(byThenKey("Employee", "hired", false)), "where().where()");
});

test("where clauses the client writes", async () => {
  const client = newClient();
  const cases = [
    [Customer, { city: "Rome" }, (r) => r.city === "Rome"],
    [Customer, { vip: true, balance: { $gt: 50 } }, (r) => r.vip && r.balance > 50],
    [Customer, { visits: { $lt: "300" } }, (r) => r.visits < 300], // a long, as the string the client types it
    [Customer, { since: { $lte: "2020-01-01" } }, (r) => r.since <= "2020-01-01"],
    [Customer, { $or: [{ city: "Berlin" }, { name: { $startsWith: "Gina" } }] }, (r) => r.city === "Berlin" || r.name.startsWith("Gina")],
    [Order, { $not: { customerId: { $isNull: true } }, status: { $in: ["open", "shipped"] } },
      (r) => r.customer_id != null && ["open", "shipped"].includes(r.status)],
    [Order, { placedAt: { $gte: "2024-05-20T00:00:00Z" }, amount: { $lt: "200" } }, (r) => r.placed_at >= "2024-05-20T00:00:00Z" && Number(r.amount) < 200],
    [Employee, { tags: { $contains: "mentor" } }, (r) => (r.tags ?? []).includes("mentor")],
    [Employee, { bio: { $containsAnyTerm: "hangar turbofan" } }, (r) => /\b(hangar|turbofan)\b/i.test(r.bio ?? "")],
  ];
  for (const [def, where, keep] of cases) {
    const type = def.apiName;
    const want = rows[type].filter(keep).sort(byKey(type));
    assert.ok(want.length > 0 && want.length < rows[type].length, `${JSON.stringify(where)} selects some ${type}`);
    const page = await client(def).where(where).fetchPage();
    assertObjects(page.data, type, want, JSON.stringify(where));
  }
});

test("fetchOne finds an object by primary key, with and without $select", async () => {
  const client = newClient();
  for (const [type, def, pk] of [["Employee", Employee, 130], ["Customer", Customer, "c07"], ["Order", Order, 21], ["Tag", Tag, "t3"]]) {
    const o = await client(def).fetchOne(pk);
    assertObjects([o], type, [row(type, pk)], `${type}.fetchOne(${pk})`);
    // The $primaryKey an application got back finds the object again.
    assert.equal((await client(def).fetchOne(o.$primaryKey)).$primaryKey, o.$primaryKey);
  }
  const c = await client(Customer).fetchOne("c04", { $select: ["city", "visits"] });
  const r = row("Customer", "c04");
  assert.deepEqual(props(c), { customerId: r.customer_id, city: r.city, visits: String(r.visits) });
  assert.equal(c.$primaryKey, "c04");
});

test("fetchOne of a primary key that no object has throws, as against Foundry", async () => {
  const client = newClient();
  for (const [def, pk] of [[Customer, "c99"], [Order, 4000], [Employee, 11]]) {
    await assert.rejects(client(def).fetchOne(pk), /Expected a single result but got 0 instead/, `${def.apiName} ${pk}`);
  }
});

test("asyncIter visits every object once", async () => {
  const client = newClient();
  for (const [type, def] of [["Employee", Employee], ["Customer", Customer], ["Order", Order]]) {
    const got = [];
    for await (const o of client(def).asyncIter()) got.push(o);
    assertObjects(got, type, [...rows[type]].sort(byKey(type)), `${type}.asyncIter()`);
  }
  const got = [];
  for await (const o of client(Order).where({ status: "delivered" }).asyncIter()) got.push(o);
  assertObjects(got, "Order", data.orders.filter((r) => r.status === "delivered"), "where().asyncIter()");
});

test("union, subtract and intersect", async () => {
  const client = newClient();
  const rome = client(Customer).where({ city: "Rome" });
  const vip = client(Customer).where({ vip: true });
  const sorted = (keep) => data.customers.filter(keep).sort(byKey("Customer"));
  const cases = [
    [rome.union(vip), (r) => r.city === "Rome" || r.vip],
    [client(Customer).subtract(vip), (r) => !r.vip],
    [rome.subtract(vip), (r) => r.city === "Rome" && !r.vip],
    [rome.intersect(vip), (r) => r.city === "Rome" && r.vip],
    [client(Customer).where({ city: "Berlin" }).union(rome, vip), (r) => r.city === "Berlin" || r.city === "Rome" || r.vip],
  ];
  for (const [i, [set, keep]] of cases.entries()) {
    const want = sorted(keep);
    assert.ok(want.length > 0, `case ${i} selects some customers`);
    assertObjects((await set.fetchPage()).data, "Customer", want, `set ${i}`);
  }
  const page = await rome.union(vip).fetchPage({ $orderBy: { balance: "desc" }, $pageSize: 2 });
  assertObjects(page.data, "Customer", sorted((r) => r.city === "Rome" || r.vip).sort(byThenKey("Customer", "balance", true)).slice(0, 2), "ordered union");
});

test("aggregate with $groupBy", async () => {
  const client = newClient();
  const res = await client(Customer).aggregate({
    $select: { $count: "unordered", "balance:sum": "unordered", "balance:avg": "unordered", "visits:max": "unordered", "since:min": "unordered", "name:exactDistinct": "unordered" },
    $groupBy: { city: "exact" },
  });
  const cities = [...new Set(data.customers.map((r) => r.city))];
  assert.equal(res.length, cities.length);
  for (const g of res) {
    const rs = data.customers.filter((r) => r.city === g.$group.city);
    const sum = rs.reduce((a, r) => a + r.balance, 0);
    assert.ok(rs.length > 0, `group ${g.$group.city} is a city of the rows`);
    assert.equal(g.$count, rs.length);
    assert.equal(g.balance.sum, sum);
    assert.ok(Math.abs(g.balance.avg - sum / rs.length) < 1e-9);
    assert.equal(g.visits.max, Math.max(...rs.map((r) => r.visits)));
    assert.equal(g.since.min, rs.map((r) => r.since).sort()[0]);
    assert.equal(g.name.exactDistinct, new Set(rs.map((r) => r.name)).size);
  }
  // A direction orders the groups by that metric.
  const ordered = await client(Order).where({ customerId: { $isNull: false } }).aggregate({
    $select: { $count: "desc" }, $groupBy: { customerId: "exact", status: "exact" },
  });
  const counts = new Map();
  for (const r of data.orders.filter((r) => r.customer_id != null)) {
    const k = `${r.customer_id}/${r.status}`;
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  assert.deepEqual(new Map(ordered.map((g) => [`${g.$group.customerId}/${g.$group.status}`, g.$count])), counts);
  assert.deepEqual(ordered.map((g) => g.$count), [...counts.values()].sort((a, b) => b - a));
});

test("aggregate without $groupBy is one result, also over no objects", async () => {
  const client = newClient();
  const vip = data.customers.filter((r) => r.vip);
  const res = await client(Customer).where({ vip: true }).aggregate({ $select: { $count: "unordered", "balance:sum": "unordered", "visits:min": "unordered" } });
  assert.deepEqual(res, { $count: vip.length, balance: { sum: vip.reduce((a, r) => a + r.balance, 0) }, visits: { min: Math.min(...vip.map((r) => r.visits)) } });
  const none = await client(Customer).where({ city: "Atlantis" }).aggregate({ $select: { $count: "unordered", "balance:sum": "unordered" } });
  assert.equal(none.$count, 0);
  assert.equal(none.balance.sum, undefined, "the sum of no values is absent");
  assert.equal(await client(Employee).aggregate({ $select: { $count: "unordered" } }).then((r) => r.$count), employees.length);
});

test("errors reach the application as PalantirApiError with Foundry's names", async () => {
  const client = newClient();
  await rejectsWith(client(Customer).where({ nope: "x" }).fetchPage(), 404, "PropertiesNotFound");
  await rejectsWith(client(Customer).fetchPage({ $pageSize: 100000 }), 400, "InvalidPageSize");
  await rejectsWith(client({ type: "object", apiName: "Nope" }).fetchPage(), 404, "ObjectTypeNotFound");
  await rejectsWith(client(Customer).aggregate({ $select: { "name:sum": "unordered" } }), 400, "InvalidPropertyType");
  // A token that may not see a type: it does not exist for it.
  await rejectsWith(newClient(process.env.LIMITED_TOKEN)(Customer).fetchPage(), 404, "ObjectTypeNotFound");
  await rejectsWith(newClient("not-a-token-at-all")(Customer).aggregate({ $select: { $count: "unordered" } }), 401, "InvalidCredentials");
});

test("a never built type has metadata but no objects", async () => {
  const Ghost = { type: "object", apiName: "Ghost" };
  const client = newClient();
  assert.equal((await client.fetchMetadata(Ghost)).primaryKeyApiName, "id");
  await rejectsWith(client(Ghost).fetchPage(), 409, "ObjectTypeNotSynced");
});
