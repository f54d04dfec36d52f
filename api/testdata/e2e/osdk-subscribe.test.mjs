// End-to-end test of live object set subscriptions with Palantir's
// application client, @osdk/client's .subscribe(), against real `indexer
// serve` processes whose daemon polls the tables at a short interval,
// while the writer (commit/) commits copy-on-write changes to their
// Iceberg tables: one server over cleartext (ws://) and one over TLS
// (wss://, with a certificate of the test's own CA, which Node trusts
// through NODE_EXTRA_CA_CERTS). The same flow runs against each.
//
// Each subscription's onChange calls are checked against a model of the
// customers table (the seed's rows and the test's changes), with the
// values as the client types them (as fetchPage gives them,
// osdk-client.test.mjs); the frames on the websocket are read from the
// client's own debug log.
//
// Run by run.sh, which sets SUBSCRIBE_URL, SUBSCRIBE_WAREHOUSE,
// SUBSCRIBE_TLS_URL, SUBSCRIBE_TLS_WAREHOUSE, COMMIT, APP_TOKEN,
// LIMITED_TOKEN, ADMIN_TOKEN and what osdk.mjs reads.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { isDeepStrictEqual } from "node:util";
import { createClient } from "@osdk/client";
import { Customer, data, expected, meta, props } from "./osdk.mjs";
import { Recorder, commit, env, frameLog, metric, waitReady, waitUntil } from "./subscribe.mjs";

const token = env("APP_TOKEN");
const Assignment = { type: "object", apiName: "Assignment" };

// The where-filtered set and the properties its subscription asks for.
const inBerlin = { city: "Berlin" };
const berlinProperties = ["name", "city", "visits"];

// A customer beyond the seed's twelve, in Berlin; visits is a long beyond
// 2^53, which the client types as a string.
const newCustomer = (id, name) =>
  ({ customer_id: id, name, city: "Berlin", vip: true, balance: 12.5, visits: "9007199254740993", since: "2024-02-29" });

const servers = [
  { name: "over ws://", url: env("SUBSCRIBE_URL"), warehouse: env("SUBSCRIBE_WAREHOUSE") },
  { name: "over wss:// (TLS, the test's own CA)", url: env("SUBSCRIBE_TLS_URL"), warehouse: env("SUBSCRIBE_TLS_WAREHOUSE"), tls: true },
];

for (const server of servers) {
  describe(`subscriptions ${server.name}`, () => subscriptionFlow(server));
}

function subscriptionFlow({ url, warehouse, tls }) {
  // The customers table as the test has written it, by primary key.
  const table = new Map(data.customers.map((r) => [r.customer_id, { ...r }]));
  const log = frameLog();
  let client, rid;
  const all = new Recorder(); // client(Customer).subscribe(): every property
  const berlin = new Recorder(); // client(Customer).where(inBerlin).subscribe(): berlinProperties
  const subs = [];

  // write commits a change to the table and to the model of it.
  const write = async (op, arg) => {
    if (op === "delete") for (const k of arg) table.delete(k);
    else for (const r of arg) table.set(r.customer_id, { ...table.get(r.customer_id), ...r });
    await commit(warehouse, op, arg);
  };
  // The objects each subscription should deliver for a customer.
  const wantAll = (pk) => ({ props: expected.Customer(table.get(pk)), meta: meta.Customer(table.get(pk)) });
  const wantBerlin = (pk) => {
    const every = expected.Customer(table.get(pk));
    return Object.fromEntries(berlinProperties.filter((p) => every[p] !== undefined).map((p) => [p, every[p]]));
  };
  const assertAll = (event, pk, what) => {
    const want = wantAll(pk);
    assert.deepEqual(props(event.object), want.props, `${what}: the properties`);
    assert.deepEqual({ $apiName: event.object.$apiName, $primaryKey: event.object.$primaryKey, $title: event.object.$title }, want.meta, `${what}: the $ fields`);
    assert.equal(event.object.$objectType, "Customer");
  };
  // The primary key property may come with any selection, as with
  // fetchPage's $select; every requested property comes with its value.
  const assertBerlin = (event, pk, what) => {
    const got = props(event.object);
    delete got.customerId;
    assert.deepEqual(got, wantBerlin(pk), `${what}: the requested properties`);
    assert.equal(event.object.$primaryKey, pk);
    assert.equal(event.object.$apiName, "Customer");
  };
  const assertRemoved = (event, pk, what) => {
    assert.equal(event.object.$apiName, "Customer", `${what}: $apiName`);
    assert.equal(event.object.$primaryKey, pk, `${what}: $primaryKey`);
  };
  // started fails a test at once when the subscriptions of the first one
  // never started: the tests after it build on them.
  const started = () => {
    const ok = (r) => r.events.some((e) => e.type === "subscribed");
    assert.ok(ok(all) && ok(berlin), "the subscriptions of the first test started");
  };
  // The server's id of a subscription: the response to the last request
  // the client sent for that object set.
  const subscriptionId = (pred) => log.subscriptions().findLast(({ request }) => request && pred(request.objectSet))?.response.id;

  before(async () => {
    assert.match(url, tls ? /^https:\/\// : /^http:\/\//);
    await waitReady(url);
    const res = await fetch(`${url}/api/v2/ontologies`, { headers: { Authorization: `Bearer ${token}` } });
    assert.equal(res.status, 200);
    ({ rid } = (await res.json()).data.find((o) => o.apiName === "demo"));
    client = createClient(url, rid, async () => token, { logger: log.logger });
  });

  after(async () => {
    // Whatever failed, the client must not hold the process open.
    for (const s of subs) await s.unsubscribe().catch(() => {});
  });

  test("onSuccessfulSubscription for the base set and a where-filtered set", async () => {
    subs.push(client(Customer).subscribe(all));
    subs.push(client(Customer).where(inBerlin).subscribe(berlin, { properties: berlinProperties }));
    await all.next(0, "onSuccessfulSubscription of the base set", (e) => e.type === "subscribed");
    await berlin.next(0, "onSuccessfulSubscription of the where-filtered set", (e) => e.type === "subscribed");
    assert.equal(log.opens(), 1, "one websocket for both");
    const ids = [subscriptionId((s) => s.type === "base"), subscriptionId((s) => s.type === "filter")];
    assert.ok(ids[0] && ids[1] && ids[0] !== ids[1], `two subscriptions: ${ids}`);
    // Each subscribe message the client sends holds its whole list, and
    // each success in an answer is an onSuccessfulSubscription: the base
    // set, subscribed first, may hear it twice. An identical request keeps
    // its id, so that no change in flight is lost to the client.
    for (const r of [all, berlin]) assert.ok(r.events.every((e) => e.type === "subscribed"), JSON.stringify(r.events));
    const baseIDs = log.subscriptions().filter(({ request }) => request?.objectSet.type === "base").map(({ response }) => response.id);
    assert.deepEqual(new Set(baseIDs), new Set([ids[0]]), "the ids the base set was given");
  });

  test("an insert: ADDED_OR_UPDATED with the requested properties, as the client types them", async () => {
    started();
    const [a, b] = [all.mark(), berlin.mark()];
    await write("insert", [newCustomer("c13", "Mia Moss")]);
    assertAll(await all.change(a, "ADDED_OR_UPDATED", "c13"), "c13", "the base set");
    assertBerlin(await berlin.change(b, "ADDED_OR_UPDATED", "c13"), "c13", "the where-filtered set");
  });

  test("an update inside both sets", async () => {
    started();
    const [a, b] = [all.mark(), berlin.mark()];
    await write("update", [{ customer_id: "c04", name: "Dave Dyer-Day", visits: 113 }]);
    assertAll(await all.change(a, "ADDED_OR_UPDATED", "c04"), "c04", "the base set");
    assertBerlin(await berlin.change(b, "ADDED_OR_UPDATED", "c04"), "c04", "the where-filtered set");
  });

  test("an update outside the where-filtered set reaches the base set only", async () => {
    started();
    const a = all.mark();
    await write("update", [{ customer_id: "c01", balance: 1.25 }]); // Paris
    assertAll(await all.change(a, "ADDED_OR_UPDATED", "c01"), "c01", "the base set");
  });

  test("an object that leaves the where-filtered set: REMOVED there, ADDED_OR_UPDATED in the base set", async () => {
    started();
    const [a, b] = [all.mark(), berlin.mark()];
    await write("update", [{ customer_id: "c08", city: "Paris" }]);
    assertAll(await all.change(a, "ADDED_OR_UPDATED", "c08"), "c08", "the base set");
    assertRemoved(await berlin.change(b, "REMOVED", "c08"), "c08", "the where-filtered set");
  });

  test("a delete: REMOVED with $primaryKey; one commit is one message per subscription", async () => {
    started();
    const [a, b, f] = [all.mark(), berlin.mark(), log.frames.length];
    await write("delete", ["c12", "c02"]); // Berlin and Rome
    assertRemoved(await all.change(a, "REMOVED", "c12"), "c12", "the base set");
    assertRemoved(await all.change(a, "REMOVED", "c02"), "c02", "the base set");
    assertRemoved(await berlin.change(b, "REMOVED", "c12"), "c12", "the where-filtered set");
    const allID = subscriptionId((s) => s.type === "base");
    const changed = log.received(f).filter((m) => m.type === "objectSetChanged" && m.id === allID);
    assert.equal(changed.length, 1, `one objectSetChanged for the commit: ${JSON.stringify(changed)}`);
    assert.deepEqual(changed[0].updates.map((u) => `${u.state} ${u.object.__primaryKey}`).sort(), ["REMOVED c02", "REMOVED c12"]);
  });

  test("nothing is delivered for objects never in the where-filtered set", async () => {
    started();
    // Messages on one websocket arrive in order: once this change of a
    // Berlin customer arrives, anything about c01 or c02 would have.
    const b = berlin.mark();
    await write("update", [{ customer_id: "c13", vip: false }]);
    assertBerlin(await berlin.change(b, "ADDED_OR_UPDATED", "c13"), "c13", "the where-filtered set");
    assert.deepEqual(berlin.changes(),
      ["ADDED_OR_UPDATED c13", "ADDED_OR_UPDATED c04", "REMOVED c08", "REMOVED c12", "ADDED_OR_UPDATED c13"]);
    const berlinID = subscriptionId((s) => s.type === "filter");
    const keys = log.received().filter((m) => m.type === "objectSetChanged" && m.id === berlinID)
      .flatMap((m) => m.updates.map((u) => u.object.__primaryKey));
    assert.deepEqual([...new Set(keys)].sort(), ["c04", "c08", "c12", "c13"], "the objects of the frames of the where-filtered set");
    assert.ok(all.changes().includes("ADDED_OR_UPDATED c01") && all.changes().includes("REMOVED c02"));
  });

  test("a full rebuild sends onOutOfDate, and changes go on arriving after it", async () => {
    started();
    const [a, b] = [all.mark(), berlin.mark()];
    const res = await fetch(`${url}/api/indexer/v1/objectTypes/Customer/rebuild`, {
      method: "POST", headers: { Authorization: `Bearer ${env("ADMIN_TOKEN")}` },
    });
    assert.equal(res.status, 202, await res.text());
    await all.next(a, "onOutOfDate of the base set", (e) => e.type === "outOfDate");
    await berlin.next(b, "onOutOfDate of the where-filtered set", (e) => e.type === "outOfDate");
    const [a2, b2] = [all.mark(), berlin.mark()];
    await write("insert", [newCustomer("c14", "Noa North")]);
    assertAll(await all.change(a2, "ADDED_OR_UPDATED", "c14"), "c14", "the base set");
    assertBerlin(await berlin.change(b2, "ADDED_OR_UPDATED", "c14"), "c14", "the where-filtered set");
  });

  test("no messages after unsubscribe", async () => {
    started();
    const berlinID = subscriptionId((s) => s.type === "filter");
    const berlinEvents = berlin.events.length;
    await subs[1].unsubscribe();
    // Once the server answered the list without it, nothing may come for it.
    const f = await log.answered();
    const a = all.mark();
    await write("update", [{ customer_id: "c14", name: "Noa North-West" }]); // Berlin
    assertAll(await all.change(a, "ADDED_OR_UPDATED", "c14"), "c14", "the base set");
    const late = log.received(f).filter((m) => m.id === berlinID);
    assert.deepEqual(late, [], "frames for the ended subscription");
    assert.equal(berlin.events.length, berlinEvents);

    await subs[0].unsubscribe();
    await log.answered();
    await waitUntil("the server to hold no subscription", async () => (await metric(url, token, "ontoindex_subscriptions")) === 0);
    assert.deepEqual(log.errors, [], "errors the client logged");
  });

  test("the served objects are the table as written", async () => {
    const want = [...table.values()].sort((x, y) => (x.customer_id < y.customer_id ? -1 : 1));
    const served = () => client(Customer).fetchPage({ $pageSize: 100 }).then((p) => p.data);
    await waitUntil("fetchPage to serve every commit", async () =>
      isDeepStrictEqual((await served()).map((o) => [o.$primaryKey, props(o)]), want.map((r) => [r.customer_id, expected.Customer(r)])));
  });

  test("a token without the type's scope gets onError, not a socket that retries", async () => {
    // The metadata loads with the app token; the websocket then opens with
    // the limited one, which may read Assignment only.
    let current = token;
    const limitedLog = frameLog();
    const limitedClient = createClient(url, rid, async () => current, { logger: limitedLog.logger });
    await limitedClient.fetchMetadata(Customer);
    current = env("LIMITED_TOKEN");
    const refused = new Recorder();
    subs.push(limitedClient(Customer).subscribe(refused));
    const e = await refused.next(0, "onError", (e) => e.type === "error");
    assert.equal(e.error.subscriptionClosed, true);
    assert.ok(Array.isArray(e.error.error), `the errors of a subscribe response: ${JSON.stringify(e.error.error)}`);
    // The same error name the REST API gives that token for the type.
    const rest = await fetch(`${url}/api/v2/ontologies/demo/objectTypes/Customer`, { headers: { Authorization: `Bearer ${current}` } });
    const { errorName } = await rest.json();
    assert.ok(errorName, `GET the type with the limited token answers ${rest.status} with an error`);
    assert.deepEqual(e.error.error.map((x) => x.error), [errorName]);
    assert.ok(!refused.events.some((x) => x.type === "subscribed"));

    // The connection goes on: a type in the token's scope subscribes on it.
    const allowed = new Recorder();
    subs.push(limitedClient(Assignment).subscribe(allowed));
    await allowed.next(0, "onSuccessfulSubscription of Assignment", (x) => x.type === "subscribed");
    assert.equal(limitedLog.opens(), 1, "websockets opened");
    assert.deepEqual(refused.events.map((x) => x.type), ["error"]);
    await subs.at(-1).unsubscribe();
  });
}
