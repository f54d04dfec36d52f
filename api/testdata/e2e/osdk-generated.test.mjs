// End-to-end test of the typed definitions `indexer osdk-types` writes for
// the served config: run.sh compiles them with tsc (strict) to
// $OSDK_TYPES, and an application that imports them instead of a
// generated SDK runs unchanged with @osdk/client. The object types are
// read here; the interfaces (Named, Billable, Party, Member: the seed's
// apidemo.InterfaceSpecs, listed in data.json) are defined but not read:
// their routes are another test's.
//
// Run by run.sh, which sets ONTOINDEX_URL, APP_TOKEN, DATA_JSON and
// OSDK_TYPES.
import { test } from "node:test";
import assert from "node:assert/strict";
import { pathToFileURL } from "node:url";
import { assertObjects, byKey, data, newClient, ordersOf, rid } from "./osdk.mjs";

assert.ok(process.env.OSDK_TYPES, "OSDK_TYPES is not set (run run.sh)");
const defs = await import(pathToFileURL(process.env.OSDK_TYPES).href);
const { Customer, Order } = defs;

test("the definitions are every object type and interface of the config, as the values the client reads", () => {
  assert.equal(defs.$ontologyRid, rid, "$ontologyRid is the rid the server lists");
  assert.match(defs.$osdkMetadata.extraUserAgent, /^ontoindex-osdk-types\//);
  assert.deepEqual(Object.keys(defs.$Objects).sort(), [...data.objectTypes].sort());
  for (const name of data.objectTypes) {
    assert.deepEqual(defs[name], { type: "object", apiName: name, osdkMetadata: defs.$osdkMetadata }, name);
  }
  const interfaces = data.interfaces.map((i) => i.apiName);
  assert.deepEqual(Object.keys(defs.$Interfaces).sort(), [...interfaces].sort());
  for (const name of interfaces) {
    assert.deepEqual(defs[name], { type: "interface", apiName: name, osdkMetadata: defs.$osdkMetadata }, name);
  }
});

test("where and fetchPage with a generated object type", async () => {
  const client = newClient();
  const rome = data.customers.filter((r) => r.city === "Rome").sort(byKey("Customer"));
  assert.ok(rome.length > 1, "customers live in Rome");
  const page = await client(Customer).where({ city: "Rome" }).fetchPage();
  assertObjects(page.data, "Customer", rome, "Customer(Rome)");
  const one = await client(Order).fetchOne(data.orders[0].order_id);
  assertObjects([one], "Order", [data.orders[0]], "fetchOne");
});

test("$link and pivotTo with generated object types", async () => {
  const client = newClient();
  const c = data.customers.find((r) => ordersOf(r.customer_id).length > 1);
  const customer = await client(Customer).fetchOne(c.customer_id);
  const linked = await customer.$link.orders.fetchPage();
  assertObjects(linked.data, "Order", ordersOf(c.customer_id).sort(byKey("Order")), "$link.orders");
  const o = linked.data[0];
  const payer = await o.$link.customer.fetchOne();
  assertObjects([payer], "Customer", [c], "$link.customer");
  const pivoted = await client(Customer).where({ customerId: c.customer_id }).pivotTo("orders").fetchPage();
  assertObjects(pivoted.data, "Order", ordersOf(c.customer_id).sort(byKey("Order")), "pivotTo(orders)");
});

test("aggregate with a generated object type", async () => {
  const client = newClient();
  const res = await client(Customer).aggregate({ $select: { $count: "unordered" }, $groupBy: { city: "exact" } });
  const counts = new Map();
  for (const r of data.customers) counts.set(r.city, (counts.get(r.city) ?? 0) + 1);
  assert.deepEqual(new Map(res.map((g) => [g.$group.city, g.$count])), counts);
});
