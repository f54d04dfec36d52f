// End-to-end test of interfaces and sets of several object types with the
// application client @osdk/client and the definitions `indexer osdk-types`
// wrote and tsc compiled ($OSDK_TYPES): client(Interface).fetchPage(),
// where on interface properties, $as, narrowToType, pivotTo through
// interface links, aggregate over an interface, paging across types to the
// end, and a union of two object types through the platform client. The
// seed declares apidemo's interfaces:
//
//   Named {label}: Employee (name), Customer (name), Order (status, through Billable), Tag (label)
//   Billable extends Named {amount} with link payer -> Customer: Order
//   Party {label, city} with link bills -> Billable: Customer
import { test } from "node:test";
import assert from "node:assert/strict";
import { pathToFileURL } from "node:url";
import { createSharedClientContext } from "@osdk/shared.client.impl";
import { OntologyObjectSets } from "@osdk/foundry.ontologies";
import { baseUrl, token, data, newClient, ordersOf } from "./osdk.mjs";

assert.ok(process.env.OSDK_TYPES, "OSDK_TYPES is not set (run run.sh)");
const { Named, Billable, Party, Customer, Tag } = await import(pathToFileURL(process.env.OSDK_TYPES).href);

// The objects of Named, as (object type, primary key, label), in the order
// a set of several types lists them without orderBy: by type in config
// order (Employee, Customer, Order, Tag), then by primary key.
const cmp = (x, y) => (x < y ? -1 : x > y ? 1 : 0);
const named = [
  ...[...data.employees].sort((a, b) => a.id - b.id).map((r) => ({ type: "Employee", pk: String(r.id), label: r.name })),
  ...[...data.customers].sort((a, b) => cmp(a.customer_id, b.customer_id)).map((r) => ({ type: "Customer", pk: r.customer_id, label: r.name })),
  ...[...data.orders].sort((a, b) => a.order_id - b.order_id).map((r) => ({ type: "Order", pk: r.order_id, label: r.status })),
  ...[...data.tags].sort((a, b) => cmp(a.tag_id, b.tag_id)).map((r) => ({ type: "Tag", pk: r.tag_id, label: r.label })),
];
const seen = (objs) => objs.map((o) => ({ type: o.$objectType, pk: o.$primaryKey, label: o.label }));

// fetchAll pages an object set to its end.
async function fetchAll(set, pageSize) {
  const out = [];
  let token;
  let total;
  do {
    const page = await set.fetchPage({ $pageSize: pageSize, $nextPageToken: token });
    total ??= page.totalCount;
    assert.equal(page.totalCount, total, "totalCount is the same on every page");
    out.push(...page.data);
    token = page.nextPageToken;
  } while (token);
  return { objects: out, total };
}

test("client(Named).fetchPage(): every implementer's objects, seen through the interface", async () => {
  const client = newClient();
  const page = await client(Named).fetchPage({ $pageSize: 1000 });
  assert.deepEqual(seen(page.data), named);
  assert.equal(page.totalCount, String(named.length));
  for (const o of page.data) {
    assert.equal(o.$apiName, "Named", "an interface object's $apiName is the interface");
    assert.deepEqual(Object.keys(o).filter((k) => !k.startsWith("$")), ["label"], `${o.$objectType} ${o.$primaryKey} carries Named's properties`);
  }
});

test("fetchPage across types, paged to its end", async () => {
  const client = newClient();
  for (const size of [1, 4, 13]) {
    const { objects, total } = await fetchAll(client(Named), size);
    assert.deepEqual(seen(objects), named, `page size ${size}`);
    assert.equal(total, String(named.length));
  }
});

test("where and orderBy on an interface property", async () => {
  const client = newClient();
  // Labels of each implementer, some shared: eq matches the whole value
  // whatever the property's search role (startsWith would be a phrase
  // prefix on the text ones and a value prefix on the keyword ones).
  const picked = [data.employees[3].name, data.customers[1].name, data.tags[2].label, data.employees[7].name];
  const want = named.filter((n) => picked.includes(n.label));
  const { objects } = await fetchAll(client(Named).where({ label: { $in: picked } }), 2);
  assert.deepEqual(seen(objects), want);
  const ordered = await client(Named).where({ label: { $in: picked } }).fetchPage({ $orderBy: { label: "desc" }, $pageSize: 1000 });
  const byLabel = [...want].sort((a, b) => cmp(b.label, a.label));
  assert.deepEqual(ordered.data.map((o) => o.label), byLabel.map((n) => n.label), "labels descend");
});

test("$as turns an interface object into its object type, and back", async () => {
  const client = newClient();
  const page = await client(Party).fetchPage({ $pageSize: 1000 });
  assert.equal(page.data.length, data.customers.length);
  for (const o of page.data) {
    const c = o.$as(Customer);
    const row = data.customers.find((r) => r.customer_id === c.$primaryKey);
    assert.equal(c.$apiName, "Customer");
    assert.equal(c.city ?? null, row.city ?? null);
    assert.equal(o.label ?? null, row.name ?? null);
    assert.equal(c.$as(Named).label, o.label, "the customer seen as Named has the same label");
  }
});

test("narrowToType keeps one implementer", async () => {
  const client = newClient();
  const page = await client(Named).narrowToType(Tag).fetchPage({ $pageSize: 1000 });
  assert.deepEqual(page.data.map((o) => o.$primaryKey).sort(), data.tags.map((r) => r.tag_id).sort());
  for (const o of page.data) {
    assert.equal(o.$objectType, "Tag");
  }
});

test("pivotTo through interface links: to an object type and to an interface", async () => {
  const client = newClient();
  const paid = data.orders.filter((r) => r.status === "shipped");
  const buyers = new Set(paid.map((r) => r.customer_id).filter((id) => data.customers.some((c) => c.customer_id === id)));
  const page = await client(Billable).where({ label: "shipped" }).pivotTo("payer").fetchPage({ $pageSize: 1000 });
  assert.deepEqual(new Set(page.data.map((o) => o.$primaryKey)), buyers);

  const someone = data.customers[0].customer_id;
  const theirs = await client(Party).where({ label: data.customers[0].name }).pivotTo("bills").fetchPage({ $pageSize: 1000 });
  const sameName = data.customers.filter((c) => c.name === data.customers[0].name).map((c) => c.customer_id);
  const want = sameName.flatMap((id) => ordersOf(id)).map((r) => r.order_id);
  assert.ok(sameName.includes(someone));
  assert.deepEqual(theirs.data.map((o) => o.$primaryKey).sort((a, b) => a - b), want.sort((a, b) => a - b));
  for (const o of theirs.data) {
    assert.equal(o.$apiName, "Billable", "an order is seen through Billable");
    assert.equal(o.$objectType, "Order");
  }
});

test("aggregate over an interface", async () => {
  const client = newClient();
  const res = await client(Named).aggregate({ $select: { $count: "unordered" }, $groupBy: { label: "exact" } });
  const want = new Map();
  for (const n of named) {
    if (n.label != null) want.set(n.label, (want.get(n.label) ?? 0) + 1);
  }
  assert.equal(res.length, want.size);
  for (const g of res) {
    assert.equal(g.$count, want.get(g.$group.label), `count of ${g.$group.label}`);
  }
});

test("a union of two object types, loaded with loadObjectsMultipleObjectTypes", async () => {
  const ctx = createSharedClientContext(baseUrl, async () => token, "ontoindex-e2e/1.0");
  const objectSet = { type: "union", objectSets: [{ type: "base", objectType: "Tag" }, { type: "base", objectType: "Order" }] };
  const got = [];
  let pageToken;
  do {
    const res = await OntologyObjectSets.loadMultipleObjectTypes(ctx, "demo", { objectSet, select: [], pageSize: 5, pageToken }, { preview: true });
    assert.equal(res.totalCount, String(data.tags.length + data.orders.length));
    got.push(...res.data.map((o) => `${o.__apiName}:${o.__primaryKey}`));
    pageToken = res.nextPageToken;
  } while (pageToken);
  const want = [
    ...data.tags.map((r) => `Tag:${r.tag_id}`).sort(),
    ...[...data.orders].sort((a, b) => a.order_id - b.order_id).map((r) => `Order:${r.order_id}`),
  ];
  // Tag comes after Order in the config: a union lists types in the order
  // it names them, so Tag first.
  assert.deepEqual(got, want);
});
