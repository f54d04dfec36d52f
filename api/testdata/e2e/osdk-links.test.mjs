// End-to-end test of links with @osdk/client: pivotTo and $link across
// Order.customer (a foreign key: ONE from Order, MANY back from Customer)
// and Order.tags (the join table order_tags: MANY both ways), checked
// against the rows the seed wrote. The client resolves every link with a
// searchAround object set on loadObjects (or aggregate); it never calls
// the /links/ endpoints.
//
// Run by run.sh, which sets ONTOINDEX_URL, APP_TOKEN, LIMITED_TOKEN and
// DATA_JSON.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  Customer, Order, Tag, assertObjects, byKey, data, newClient, ordersOf, ordersTagged, rejectsWith, tagsOf,
} from "./osdk.mjs";

// union of the rows that f maps each of rs to, in primary-key order.
const unionOf = (type, rs, f) => {
  const seen = new Map();
  for (const r of rs) for (const t of f(r)) seen.set(JSON.stringify(t), t);
  return [...seen.values()].sort(byKey(type));
};
const orderRows = (rs) => [...rs].sort(byKey("Order"));

test("pivotTo across a one-to-many link, both ways", async () => {
  const client = newClient();
  const rome = data.customers.filter((r) => r.city === "Rome");
  const want = unionOf("Order", rome, (r) => ordersOf(r.customer_id));
  assert.ok(want.length > 1, "Rome's customers have orders");
  const page = await client(Customer).where({ city: "Rome" }).pivotTo("orders").fetchPage();
  assertObjects(page.data, "Order", want, "Customer(Rome).pivotTo(orders)");

  // From the ONE side: the customers of the open and shipped orders;
  // orders without a customer lead nowhere.
  const some = data.orders.filter((r) => ["open", "shipped"].includes(r.status));
  assert.ok(some.some((r) => r.customer_id == null), "one of the orders has no customer");
  const customers = unionOf("Customer", some, (r) => data.customers.filter((c) => c.customer_id === r.customer_id));
  assert.ok(customers.length < data.customers.length, "the orders have some of the customers");
  const back = await client(Order).where({ status: { $in: ["open", "shipped"] } }).pivotTo("customer").fetchPage();
  assertObjects(back.data, "Customer", customers, "Order(open, shipped).pivotTo(customer)");
});

test("pivotTo across a many-to-many link, both ways", async () => {
  const client = newClient();
  const shipped = data.orders.filter((r) => r.status === "shipped");
  const tags = unionOf("Tag", shipped, (r) => tagsOf(r.order_id));
  assert.ok(tags.length > 1 && tags.length < data.tags.length, "shipped orders have some of the tags");
  const page = await client(Order).where({ status: "shipped" }).pivotTo("tags").fetchPage();
  assertObjects(page.data, "Tag", tags, "Order(shipped).pivotTo(tags)");

  const gift = await client(Tag).where({ label: { $in: ["gift", "eco"] } }).pivotTo("orders").fetchPage({ $orderBy: { placedAt: "desc" } });
  const giftIds = data.tags.filter((t) => ["gift", "eco"].includes(t.label)).map((t) => t.tag_id);
  const want = unionOf("Order", giftIds, ordersTagged).sort((a, b) => (a.placed_at < b.placed_at ? 1 : -1));
  assertObjects(gift.data, "Order", want, "Tag(gift, eco).pivotTo(orders) by placedAt desc");
});

test("pivotTo then where, aggregate and asyncIter over the linked set", async () => {
  const client = newClient();
  const vip = data.customers.filter((r) => r.vip);
  const orders = unionOf("Order", vip, (r) => ordersOf(r.customer_id));
  const set = client(Customer).where({ vip: true }).pivotTo("orders");
  const delivered = orders.filter((r) => r.status === "delivered");
  assertObjects((await set.where({ status: "delivered" }).fetchPage()).data, "Order", delivered, "pivotTo().where()");
  const agg = await set.aggregate({ $select: { $count: "unordered" }, $groupBy: { status: "exact" } });
  const counts = {};
  for (const r of orders) counts[r.status] = (counts[r.status] ?? 0) + 1;
  assert.deepEqual(Object.fromEntries(agg.map((g) => [g.$group.status, g.$count])), counts);
  const iter = [];
  for await (const o of set.asyncIter()) iter.push(o);
  assertObjects(iter, "Order", orders, "pivotTo().asyncIter()");
  // Two hops: the tags of the orders of the VIP customers.
  const tags = unionOf("Tag", orders, (r) => tagsOf(r.order_id));
  assertObjects((await set.pivotTo("tags").fetchPage()).data, "Tag", tags, "pivotTo(orders).pivotTo(tags)");
});

test("$link from the ONE side: customer.$link.orders", async () => {
  const client = newClient();
  for (const id of ["c02", "c08", "c11"]) {
    const customer = await client(Customer).fetchOne(id);
    const page = await customer.$link.orders.fetchPage();
    assertObjects(page.data, "Order", orderRows(ordersOf(id)), `${id}.$link.orders`);
  }
  assert.equal(ordersOf("c11").length, 0, "customer c11 has no orders");
  const c = await client(Customer).fetchOne("c05");
  const cancelled = await c.$link.orders.where({ status: "cancelled" }).fetchPage();
  assertObjects(cancelled.data, "Order", orderRows(ordersOf("c05").filter((r) => r.status === "cancelled")), "$link.orders.where()");
});

test("$link to the ONE side: order.$link.customer.fetchOne()", async () => {
  const client = newClient();
  for (const o of data.orders.filter((r) => r.order_id % 5 === 1 && r.customer_id != null)) {
    const order = await client(Order).fetchOne(o.order_id);
    const customer = await order.$link.customer.fetchOne();
    assertObjects([customer], "Customer", data.customers.filter((c) => c.customer_id === o.customer_id), `order ${o.order_id}.$link.customer`);
  }
  // An order without a customer links to none, which fetchOne reports as
  // it does any missing object.
  const orphan = data.orders.find((r) => r.customer_id == null);
  const order = await client(Order).fetchOne(orphan.order_id);
  await assert.rejects(order.$link.customer.fetchOne(), /Expected a single result but got 0 instead/);
});

test("$link across the join table, both ways", async () => {
  const client = newClient();
  for (const id of [3, 10, 17]) {
    const order = await client(Order).fetchOne(id);
    assertObjects((await order.$link.tags.fetchPage()).data, "Tag", tagsOf(id), `order ${id}.$link.tags`);
  }
  assert.equal(tagsOf(10).length, 0, "order 10 has no tags");
  for (const t of data.tags) {
    const tag = await client(Tag).fetchOne(t.tag_id);
    assertObjects((await tag.$link.orders.fetchPage()).data, "Order", orderRows(ordersTagged(t.tag_id)), `tag ${t.tag_id}.$link.orders`);
  }
});

test("links that do not exist, or lead to a type the token may not see", async () => {
  const client = newClient();
  // Foundry's error for a link type an object type does not have.
  await rejectsWith(client(Customer).pivotTo("nope").fetchPage(), 404, "LinkTypeNotFound");
  // The limited token sees Assignment only: Customer does not exist for it.
  await rejectsWith(newClient(process.env.LIMITED_TOKEN)(Customer).pivotTo("orders").fetchPage(), 404, "ObjectTypeNotFound");
});
