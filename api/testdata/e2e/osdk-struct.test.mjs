// End-to-end test of struct properties with @osdk/client: Store.address is
// an Iceberg struct column (street, city, zip, opened, area). The client
// reads it back as an object of its non-null fields, and sends a where on
// a field ({ address: { city: { $eq: "Paris" } } }) as a filter whose
// propertyIdentifier is a structField selector. Checked against the rows
// the seed wrote.
//
// Run by run.sh, which sets ONTOINDEX_URL, APP_TOKEN and DATA_JSON.
import { test } from "node:test";
import assert from "node:assert/strict";
import { data, newClient, rejectsWith } from "./osdk.mjs";

const Store = { type: "object", apiName: "Store" };

// The address an application reads from a row: null fields absent, a
// null struct no address at all.
const addressOf = (r) => (r.address == null ? undefined
  : Object.fromEntries(Object.entries(r.address).filter(([, v]) => v != null)));
const storeIds = (rows) => rows.map((r) => r.store_id).sort();
const idsOf = (objs) => objs.map((o) => o.storeId).sort();

test("struct values read back as objects of their non-null fields", async () => {
  const client = newClient();
  const page = await client(Store).fetchPage({ $pageSize: 100 });
  assert.equal(page.data.length, data.stores.length);
  for (const o of page.data) {
    const r = data.stores.find((s) => s.store_id === o.storeId);
    assert.deepEqual(o.address, addressOf(r), `address of ${o.storeId}`);
  }
  const one = await client(Store).fetchOne("s5");
  assert.deepEqual(one.address, addressOf(data.stores.find((s) => s.store_id === "s5")));
  assert.equal(one.address.city, undefined, "s5 has an address without a city");
  const none = await client(Store).fetchOne("s3");
  assert.equal(none.address, undefined, "s3 has no address");
});

test("where on struct fields, every operator the field's type takes", async () => {
  const client = newClient();
  const rows = data.stores.filter((r) => r.address != null);
  const cases = [
    [{ address: { city: { $eq: "Paris" } } }, rows.filter((r) => r.address.city === "Paris")],
    [{ address: { city: "Lyon" } }, rows.filter((r) => r.address.city === "Lyon")],
    [{ address: { city: { $ne: "Lyon" } } }, data.stores.filter((r) => r.address?.city !== "Lyon")],
    [{ address: { zip: { $gt: 10555 } } }, rows.filter((r) => r.address.zip > 10555)],
    [{ address: { area: { $lte: 25 } } }, rows.filter((r) => r.address.area <= 25)],
    [{ address: { opened: { $gte: "2020-09-01" } } }, rows.filter((r) => r.address.opened >= "2020-09-01")],
    [{ address: { zip: { $in: [10111, 10444] } } }, rows.filter((r) => [10111, 10444].includes(r.address.zip))],
    [{ address: { city: { $isNull: true } } }, data.stores.filter((r) => r.address?.city == null)],
    [{ address: { street: { $startsWith: "4 Ma" } } }, rows.filter((r) => r.address.street.startsWith("4 Ma"))],
    [{ address: { street: { $containsAllTerms: "main 2" } } }, rows.filter((r) => r.address.street === "2 Main Street")],
    [{ $and: [{ address: { city: "Lyon" } }, { name: "Store 4" }] }, rows.filter((r) => r.address.city === "Lyon" && r.name === "Store 4")],
    [{ address: { $isNull: true } }, data.stores.filter((r) => r.address == null)],
  ];
  for (const [where, want] of cases) {
    assert.ok(want.length > 0, `${JSON.stringify(where)} matches some store`);
    const page = await client(Store).where(where).fetchPage({ $pageSize: 100 });
    assert.deepEqual(idsOf(page.data), storeIds(want), JSON.stringify(where));
  }
});

test("aggregate over a where on a struct field", async () => {
  const client = newClient();
  const lyon = data.stores.filter((r) => r.address?.city === "Lyon");
  const agg = await client(Store).where({ address: { city: "Lyon" } }).aggregate({ $select: { $count: "unordered" } });
  assert.equal(agg.$count, lyon.length);
});

test("a field the struct does not have is refused", async () => {
  const client = newClient();
  await rejectsWith(client(Store).where({ address: { country: "France" } }).fetchPage(), 404, "PropertiesNotFound");
});
