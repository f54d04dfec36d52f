// End-to-end test of geo properties with @osdk/client: Place.location is
// an Iceberg struct<lat, lon>, pin a "lat,lon" or GeoJSON string, area a
// WKT or GeoJSON string and outline WKB. The client reads them back as
// GeoJSON, and sends $within (a distance, a bounding box, a polygon) and
// $intersects (a bounding box, a polygon) as the wire's geo queries.
// Expected places follow from the seed's coordinates (apidemo.Places).
//
// Run by run.sh, which sets ONTOINDEX_URL, APP_TOKEN and DATA_JSON.
import { test } from "node:test";
import assert from "node:assert/strict";
import { data, newClient } from "./osdk.mjs";

const Place = { type: "object", apiName: "Place" };
const idsOf = (objs) => objs.map((o) => o.placeId).sort();

async function ids(where) {
  const page = await newClient()(Place).where(where).fetchPage({ $pageSize: 100 });
  return idsOf(page.data);
}

test("geo values read back as GeoJSON", async () => {
  const client = newClient();
  const page = await client(Place).fetchPage({ $pageSize: 100 });
  assert.equal(page.data.length, data.places.length);
  for (const o of page.data) {
    const p = data.places.find((r) => r.ID === o.placeId);
    if (p.Area === "") {
      assert.equal(o.location, undefined, `${o.placeId} has no location`);
      continue;
    }
    const point = { type: "Point", coordinates: [p.Lon, p.Lat] };
    assert.deepEqual(o.location, point, `location of ${o.placeId}`);
    assert.deepEqual(o.pin, point, `pin of ${o.placeId}`);
    assert.deepEqual(o.area, o.outline, `area and outline of ${o.placeId}`);
  }
  const paris = await client(Place).fetchOne("p1");
  assert.deepEqual(paris.area, { type: "Polygon", coordinates: [[[2.2, 48.8], [2.5, 48.8], [2.5, 48.9], [2.2, 48.9], [2.2, 48.8]]] });
});

test("$within a distance, on the sphere, across the antimeridian and from the pole", async () => {
  assert.deepEqual(await ids({ location: { $within: { $distance: [500, "km"], $of: [2.3522, 48.8566] } } }), ["p1", "p2", "p4"]);
  assert.deepEqual(await ids({ pin: { $within: { $distance: [300, "miles"], $of: [2.3522, 48.8566] } } }), ["p1", "p2", "p4"]);
  assert.deepEqual(await ids({ location: { $within: { $distance: [1000, "km"], $of: [180, -16] } } }), ["p5", "p6"]);
  assert.deepEqual(await ids({ location: { $within: { $distance: [1500, "km"], $of: { type: "Point", coordinates: [0, 90] } } } }), ["p7"]);
});

test("$within a bounding box and a polygon", async () => {
  assert.deepEqual(await ids({ location: { $within: [-1, 45, 5, 53] } }), ["p1", "p2", "p4"]);
  assert.deepEqual(await ids({ location: { $within: { $bbox: [170, -20, -170, -10] } } }), ["p5", "p6"], "west > east crosses the antimeridian");
  assert.deepEqual(await ids({ location: { $within: { $polygon: [[[-1, 51], [3, 48], [3, 52], [-1, 51]]] } } }), ["p1"],
    "London is in the polygon's bounding box, not in the polygon");
  assert.deepEqual(await ids({ location: { $within: { type: "Polygon", coordinates: [[[-1, 51], [3, 48], [3, 52], [-1, 51]]] } } }), ["p1"]);
});

test("$intersects a bounding box and a polygon, and its negation", async () => {
  assert.deepEqual(await ids({ area: { $intersects: [13.4, 52.4, 13.45, 52.6] } }), ["p3"], "a line through the box");
  assert.deepEqual(await ids({ outline: { $intersects: { $bbox: [179.5, -20, -171.5, -10] } } }), ["p5", "p6"]);
  const lyon = [[[4.8, 45.75], [5, 45.75], [5, 46], [4.8, 46], [4.8, 45.75]]];
  assert.deepEqual(await ids({ area: { $intersects: { $polygon: lyon } } }), ["p2"]);
  assert.deepEqual(await ids({ $not: { area: { $intersects: [-10, 40, 20, 60] } } }), ["p5", "p6", "p7", "p8"]);
});

test("geo filters combine with others, sort and count", async () => {
  const client = newClient();
  const where = { $and: [{ location: { $within: [-10, 40, 20, 60] } }, { name: { $ne: "Paris" } }] };
  const page = await client(Place).where(where).fetchPage({ $pageSize: 100, $orderBy: { name: "desc" } });
  assert.deepEqual(page.data.map((o) => o.name), ["Lyon", "London", "Berlin"]);
  const agg = await client(Place).where({ area: { $intersects: [-180, -90, 180, 90] } }).aggregate({ $select: { $count: "unordered" } });
  assert.equal(agg.$count, data.places.filter((p) => p.Area !== "").length);
});
