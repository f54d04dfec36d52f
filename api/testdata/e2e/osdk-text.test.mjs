// End-to-end test of text search with @osdk/client: $interval where
// clauses (sent as IntervalQuery rules) and $orderBy: "relevance" (sent as
// orderType relevance; each object carries its BM25 score, which the
// client returns as $score), checked against the employees' bios the seed
// wrote.
//
// Run by run.sh, which sets ONTOINDEX_URL, APP_TOKEN and DATA_JSON.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Employee, assertObjects, byKey, data, newClient, rejectsWith } from "./osdk.mjs";

const employees = (keep) => data.employees.filter((r) => r.bio != null && keep(r.bio)).sort(byKey("Employee"));

test("$interval rules: match, prefixOnLastTerm, fuzzy, $and and $or", async () => {
  const client = newClient();
  const cases = [
    [{ $match: "north atlantic", $ordered: true, $maxGaps: 0 }, (b) => b.includes("North Atlantic")],
    [{ $match: "atlantic north", $ordered: true }, () => false],
    [{ $match: "atlantic north", $ordered: false }, (b) => b.includes("North Atlantic")],
    [{ $match: "maintenance man", $prefixOnLastTerm: true }, (b) => b.includes("maintenance manuals")],
    [{ $fuzzy: "turbofun" }, (b) => b.includes("turbofan")],
    [{ $fuzzy: "turbofun", $fuzziness: 0 }, () => false],
    [{ $and: [{ $match: "pilot" }, { $fuzzy: "pilots" }], $ordered: true, $maxGaps: 3 }, (b) => b.includes("pilot, now training new pilots")],
    [{ $or: [{ $match: "hangar" }, { $match: "frequent fly", $prefixOnLastTerm: true }] }, (b) => /hangar|frequent flyers/.test(b)],
  ];
  for (const [rule, keep] of cases) {
    const page = await client(Employee).where({ bio: { $interval: rule } }).fetchPage({ $pageSize: 200 });
    assertObjects(page.data, "Employee", employees(keep), `$interval ${JSON.stringify(rule)}`);
  }
});

test("$interval on a keyword property is refused with a 400", async () => {
  const client = newClient();
  await rejectsWith(client(Employee).where({ dept: { $interval: { $match: "sales" } } }).fetchPage(), 400, "PropertyFiltersNotSupported");
});

test('$orderBy: "relevance" ranks by score, with $score, and pages', async () => {
  const client = newClient();
  const where = { $or: [{ bio: { $containsAnyTerm: "pilot training maintenance" } }, { dept: "Sales" }] };
  const all = await client(Employee).where(where).fetchPage({ $orderBy: "relevance", $pageSize: 200 });
  assert.ok(all.data.length > 10, "the where matches employees");
  // Bio 4 holds two of the terms, the maintenance bio one, the rest none.
  const rank = (o) => (o.bio?.includes("training new pilots") ? 0 : o.bio?.includes("maintenance") ? 1 : 2);
  for (const [i, o] of all.data.entries()) {
    assert.equal(typeof o.$score, rank(o) === 2 ? "undefined" : "number", `$score of ${o.$primaryKey}`);
    if (i === 0) continue;
    const p = all.data[i - 1];
    assert.ok(rank(p) <= rank(o), `rank order at ${i}`);
    const ps = p.$score ?? 0, s = o.$score ?? 0;
    assert.ok(ps > s || (ps === s && Number(p.$primaryKey) < Number(o.$primaryKey)), `score then key order at ${i}: ${ps} ${s}`);
  }
  // Page by page, the same objects in the same order.
  const paged = [];
  let token;
  do {
    const page = await client(Employee).where(where).fetchPage({ $orderBy: "relevance", $pageSize: 4, $nextPageToken: token });
    paged.push(...page.data);
    token = page.nextPageToken;
  } while (token);
  assert.deepEqual(paged.map((o) => [o.$primaryKey, o.$score]), all.data.map((o) => [o.$primaryKey, o.$score]));
});
