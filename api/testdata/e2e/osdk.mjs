// Shared setup of the @osdk/client tests (osdk-client.test.mjs,
// osdk-links.test.mjs): the client, the object types as generated code
// defines them, and the objects an application should get, computed from
// the rows the seed wrote to the Iceberg tables (data.json).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createClient } from "@osdk/client";

const env = (name) => {
  const v = process.env[name];
  assert.ok(v, `${name} is not set (run run.sh)`);
  return v;
};
export const baseUrl = env("ONTOINDEX_URL");
export const token = env("APP_TOKEN");
export const data = JSON.parse(readFileSync(env("DATA_JSON"), "utf8"));

// The client names the ontology by rid only, and createClient refuses one
// that does not start with "ri.". The seed configures none: this is the
// default rid, as the server lists it.
async function ontologyRid() {
  const res = await fetch(`${baseUrl}/api/v2/ontologies`, { headers: { Authorization: `Bearer ${token}` } });
  assert.equal(res.status, 200);
  const { data: ontologies } = await res.json();
  const demo = ontologies.find((o) => o.apiName === "demo");
  assert.ok(demo, "the demo ontology is listed");
  return demo.rid;
}
export const rid = await ontologyRid();

// A new client per test: the client caches object type metadata for its
// lifetime, so each test loads what it uses itself.
export const newClient = (tok = token) => createClient(baseUrl, rid, async () => tok);

// Object types exactly as `osdk generate` writes them (without the
// generated TypeScript types, which change nothing at run time).
export const Employee = { type: "object", apiName: "Employee" };
export const Customer = { type: "object", apiName: "Customer" };
export const Order = { type: "object", apiName: "Order" };
export const Tag = { type: "object", apiName: "Tag" };

// omitNull drops null values: the server omits null properties, so the
// application reads them as undefined.
const omitNull = (o) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined));

// The properties an application reads from an object of each type, from
// its row: longs are strings (@osdk/client types them so: a JavaScript
// number cannot hold them beyond 2^53), decimals strings with their
// scale, dates YYYY-MM-DD, timestamps RFC 3339 in UTC, integers and
// doubles numbers, arrays arrays.
export const expected = {
  Employee: (r) => omitNull({
    id: String(r.id), name: r.name, title: r.title, dept: r.dept, age: r.age, salary: r.salary, rating: r.rating,
    hired: r.hired, updated: r.updated, active: r.active, tags: r.tags, bio: r.bio, big: r.big, secret: r.secret,
  }),
  Customer: (r) => omitNull({
    customerId: r.customer_id, name: r.name, city: r.city, vip: r.vip, balance: r.balance, visits: String(r.visits), since: r.since,
  }),
  Order: (r) => omitNull({ orderId: r.order_id, customerId: r.customer_id, amount: r.amount, placedAt: r.placed_at, status: r.status }),
  Tag: (r) => omitNull({ tagId: r.tag_id, label: r.label }),
};

// The $ fields of an object of each type: $primaryKey has the type of its
// property's values, $title is the title property's text (the primary
// key's when the type names none).
export const meta = {
  Employee: (r) => ({ $apiName: "Employee", $primaryKey: String(r.id), $title: r.name }),
  Customer: (r) => ({ $apiName: "Customer", $primaryKey: r.customer_id, $title: r.name }),
  Order: (r) => ({ $apiName: "Order", $primaryKey: r.order_id, $title: String(r.order_id) }),
  Tag: (r) => ({ $apiName: "Tag", $primaryKey: r.tag_id, $title: r.label }),
};

// Rows of each type, and the row of a primary key.
export const rows = { Employee: data.employees, Customer: data.customers, Order: data.orders, Tag: data.tags };
const pkOf = { Employee: (r) => r.id, Customer: (r) => r.customer_id, Order: (r) => r.order_id, Tag: (r) => r.tag_id };
export const row = (type, pk) => rows[type].find((r) => pkOf[type](r) === pk);

// byKey orders rows as the server lists objects without an order: by
// primary key (numbers by value, strings by bytes).
export const byKey = (type) => (a, b) => {
  const x = pkOf[type](a), y = pkOf[type](b);
  return x < y ? -1 : x > y ? 1 : 0;
};

// props is what an application reads of an object's properties: its own
// keys but the $ ones.
export const props = (o) => Object.fromEntries(Object.entries(o).filter(([k, v]) => !k.startsWith("$") && v !== undefined));

// assertObjects checks objects the client returned against rows of type,
// in that order: every property value and the $ fields.
export function assertObjects(objs, type, want, what) {
  assert.deepEqual(objs.map((o) => o.$primaryKey), want.map((r) => meta[type](r).$primaryKey), `${what}: primary keys`);
  for (const [i, o] of objs.entries()) {
    assert.deepEqual(props(o), expected[type](want[i]), `${what}: properties of ${o.$objectSpecifier}`);
    const m = meta[type](want[i]);
    assert.deepEqual({ $apiName: o.$apiName, $primaryKey: o.$primaryKey, $title: o.$title }, m, `${what}: $ fields of ${o.$objectSpecifier}`);
    assert.equal(o.$objectType, type);
  }
}

// The links of the shop, from its rows: Order.customer (a foreign key)
// and its reverse Customer.orders; Order.tags (the join table) and its
// reverse Tag.orders.
export const ordersOf = (customerId) => data.orders.filter((o) => o.customer_id === customerId);
export const tagsOf = (orderId) => {
  const ids = new Set(data.orderTags.filter((t) => t.order_id === orderId).map((t) => t.tag_id));
  return data.tags.filter((t) => ids.has(t.tag_id));
};
export const ordersTagged = (tagId) => {
  const ids = new Set(data.orderTags.filter((t) => t.tag_id === tagId).map((t) => t.order_id));
  return data.orders.filter((o) => ids.has(o.order_id));
};

// rejectsWith checks a PalantirApiError: the client reads errorName,
// parameters and message only from a body whose Content-Type is exactly
// application/json.
export async function rejectsWith(promise, status, errorName) {
  await assert.rejects(promise, (err) => {
    assert.equal(err.constructor.name, "PalantirApiError", String(err));
    assert.equal(err.errorName, errorName, `errorName of ${err}`);
    assert.equal(err.statusCode, status);
    assert.ok(err.errorInstanceId, "errorInstanceId");
    assert.ok(err.message.startsWith(errorName), `message ${err.message} names the error`);
    return true;
  });
}
