// End-to-end test of derived properties with @osdk/client: withProperties
// with pivotTo(...).aggregate(...) (the client sends a withProperties
// object set whose definitions are selections over a searchAround from
// methodInput), selectProperty across a ONE link, where and $orderBy on
// derived properties, and fetchPage through every page, checked against
// the rows the seed wrote.
//
// Run by run.sh, which sets ONTOINDEX_URL, APP_TOKEN, LIMITED_TOKEN and
// DATA_JSON.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Customer, Order, data, newClient, ordersOf } from "./osdk.mjs";

// stats are each customer's order count and the sum of their amounts (no
// sum without orders: the server omits the null).
const stats = () => data.customers.map((c) => {
  const os = ordersOf(c.customer_id);
  const amounts = os.map((o) => o.amount).filter((a) => a != null).map(Number); // decimals: strings
  return { id: c.customer_id, n: os.length, total: amounts.length ? amounts.reduce((a, b) => a + b, 0) : undefined };
});

// The server sums decimals as doubles.
const close = (a, b) => (a === undefined || b === undefined ? a === b : Math.abs(a - b) < 1e-6 * Math.max(1, Math.abs(b)));

const withStats = (client) => client(Customer).withProperties({
  n: (b) => b.pivotTo("orders").aggregate("$count"),
  total: (b) => b.pivotTo("orders").aggregate("amount:sum"),
});

test("withProperties: a count and a sum of each customer's orders", async () => {
  const client = newClient();
  const page = await withStats(client).fetchPage({ $pageSize: 1000 });
  const want = stats();
  assert.equal(page.data.length, data.customers.length);
  const byId = new Map(want.map((s) => [s.id, s]));
  for (const o of page.data) {
    const s = byId.get(o.$primaryKey);
    assert.equal(o.n, s.n, `n of ${o.$primaryKey}`);
    assert.ok(close(o.total, s.total), `total of ${o.$primaryKey}: ${o.total}, want ${s.total}`);
    assert.equal(o.name, data.customers.find((c) => c.customer_id === o.$primaryKey).name, "stored properties come too");
  }
});

test("withProperties: where and $orderBy on derived properties, every page", async () => {
  const client = newClient();
  const want = stats().filter((s) => s.n >= 2)
    .sort((a, b) => (b.total - a.total) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  assert.ok(want.length > 2, "some customers have two orders or more");
  const set = withStats(client).where({ n: { $gte: 2 } });
  const got = [];
  let token;
  do {
    const page = await set.fetchPage({ $orderBy: { total: "desc" }, $pageSize: 2, $nextPageToken: token });
    assert.ok(page.data.length <= 2);
    got.push(...page.data);
    token = page.nextPageToken;
  } while (token);
  assert.deepEqual(got.map((o) => o.$primaryKey), want.map((s) => s.id));
  for (const [i, o] of got.entries()) {
    assert.equal(o.n, want[i].n);
    assert.ok(close(o.total, want[i].total));
  }
});

test("withProperties: selectProperty across a ONE link", async () => {
  const client = newClient();
  const page = await client(Order).withProperties({
    customerName: (b) => b.pivotTo("customer").selectProperty("name"),
  }).fetchPage({ $pageSize: 1000 });
  assert.equal(page.data.length, data.orders.length);
  for (const o of page.data) {
    const row = data.orders.find((r) => r.order_id === o.$primaryKey);
    const c = data.customers.find((r) => r.customer_id === row.customer_id);
    assert.equal(o.customerName, c?.name, `customerName of order ${o.$primaryKey}`);
  }
});
