// End-to-end test of loadLinks (@osdk/client's experimental_asyncIterLinks)
// and of temporary object sets (createTemporary, get and the reference
// object set, through @osdk/foundry.ontologies), checked against the rows
// the seed wrote.
//
// Run by run.sh, which sets ONTOINDEX_URL, APP_TOKEN, LIMITED_TOKEN and
// DATA_JSON.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as ObjectSets from "@osdk/foundry.ontologies/OntologyObjectSet";
import { Customer, Order, Tag, byKey, data, meta, newClient, ordersOf, ordersTagged, rejectsWith, rid, tagsOf } from "./osdk.mjs";

// The links the server lists, as the client yields them: by source key,
// then link as named, then target key.
const wantLinks = (type, sources, links, targetsOf) => {
  const out = [];
  for (const s of [...sources].sort(byKey(type))) {
    for (const link of links) {
      for (const t of targetsOf[link](s)) out.push(`${meta[type](s).$primaryKey} ${link} ${t}`);
    }
  }
  return out;
};

// linkOf is a link as wantLinks writes it.
const linkOf = (l) => `${l.source.$primaryKey} ${l.linkType} ${l.target.$primaryKey}`;

const iterLinks = async (set, links) => {
  const out = [];
  for await (const l of set.experimental_asyncIterLinks(links)) {
    out.push(l);
  }
  return out;
};

test("experimental_asyncIterLinks across ONE, MANY and many-to-many links", async () => {
  const client = newClient();
  const customerIds = new Set(data.customers.map((c) => c.customer_id));
  const orderTargets = {
    customer: (o) => (customerIds.has(o.customer_id) ? [o.customer_id] : []),
    tags: (o) => tagsOf(o.order_id).map((t) => t.tag_id).sort(),
  };
  const open = data.orders.filter((o) => ["open", "shipped"].includes(o.status));
  const got = await iterLinks(client(Order).where({ status: { $in: ["open", "shipped"] } }), ["customer", "tags"]);
  assert.ok(got.some((l) => l.linkType === "customer") && got.some((l) => l.linkType === "tags"), "links of both types");
  for (const l of got) {
    assert.equal(l.source.$apiName, "Order");
    assert.equal(l.target.$apiName, l.linkType === "customer" ? "Customer" : "Tag");
  }
  assert.deepEqual(got.map(linkOf), wantLinks("Order", open, ["customer", "tags"], orderTargets), "Order(open, shipped) links");
  const bySource = got.map((l) => l.source.$primaryKey);
  assert.deepEqual(bySource, [...bySource].sort((a, b) => a - b), "sources in key order");

  const customers = await iterLinks(client(Customer), ["orders"]);
  const ordersBack = { orders: (c) => ordersOf(c.customer_id).map((o) => o.order_id).sort((a, b) => a - b) };
  assert.deepEqual(customers.map(linkOf), wantLinks("Customer", data.customers, ["orders"], ordersBack), "Customer.orders");

  const tags = await iterLinks(client(Tag), ["orders"]);
  const tagged = { orders: (t) => ordersTagged(t.tag_id).map((o) => o.order_id).sort((a, b) => a - b) };
  assert.deepEqual(tags.map(linkOf), wantLinks("Tag", data.tags, ["orders"], tagged), "Tag.orders");
});

test("a temporary object set: created, read back, and used by reference", async () => {
  const client = newClient();
  const rome = { type: "filter", objectSet: { type: "base", objectType: "Customer" }, where: { type: "eq", field: "city", value: "Rome" } };
  const { objectSetRid } = await ObjectSets.createTemporary(client, rid, { objectSet: rome });
  assert.match(objectSetRid, /^ri\.ontoindex\.main\.object-set\./);
  assert.deepEqual(await ObjectSets.get(client, rid, objectSetRid), rome);

  const reference = { type: "reference", reference: objectSetRid };
  const want = data.customers.filter((c) => c.city === "Rome").sort(byKey("Customer")).map((c) => c.customer_id);
  assert.ok(want.length > 1, "Rome has customers");
  const page = await ObjectSets.load(client, rid, { objectSet: reference, select: [] });
  assert.deepEqual(page.data.map((o) => o.__primaryKey), want);

  const orders = await ObjectSets.load(client, rid, { objectSet: { type: "searchAround", objectSet: reference, link: "orders" }, select: [] });
  const wantOrders = want.flatMap((c) => ordersOf(c)).sort(byKey("Order")).map((o) => o.order_id);
  assert.deepEqual(orders.data.map((o) => o.__primaryKey), wantOrders);

  const links = await ObjectSets.loadLinks(client, rid, { objectSet: reference, links: ["orders"] });
  assert.deepEqual(links.data.map((d) => d.sourceObject.__primaryKey), want.filter((c) => ordersOf(c).length > 0));

  await rejectsWith(ObjectSets.load(client, rid, { objectSet: { type: "reference", reference: "ri.ontoindex.main.object-set.none" }, select: [] }), 404, "ObjectSetNotFound");
  // The limited token sees Assignment only: the set reads a type it may
  // not see, whoever created it.
  const limited = newClient(process.env.LIMITED_TOKEN);
  await rejectsWith(ObjectSets.load(limited, rid, { objectSet: reference, select: [] }), 404, "ObjectTypeNotFound");
  await rejectsWith(ObjectSets.get(limited, rid, objectSetRid), 404, "ObjectSetNotFound");
});
