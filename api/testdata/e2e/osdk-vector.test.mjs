// End-to-end test of vector search with @osdk/client: Article.embedding is
// a vector property (cosine, dimension 8) over an Iceberg list<float>
// column. objectSet.nearestNeighbors(query, k, property) sends a
// nearestNeighbors object set; with $orderBy: "relevance" each object
// carries its score as $score. Checked against a brute-force cosine over
// the rows the seed wrote (as the index holds them: float32).
//
// Run by run.sh, which sets ONTOINDEX_URL, APP_TOKEN and DATA_JSON.
import { test } from "node:test";
import assert from "node:assert/strict";
import { data, newClient, rejectsWith } from "./osdk.mjs";

const Article = { type: "object", apiName: "Article" };
const query = [0.9, 0.1, -0.2, 0.8, 0.3, 0, 0.1, 0.2];

const cosine = (a, b) => {
  let dot = 0, na = 0, nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = Math.fround(a[i]);
    dot += x * b[i]; na += x * x; nb += b[i] * b[i];
  }
  return dot / Math.sqrt(na) / Math.sqrt(nb);
};

// The k articles nearest q among rows, nearest first (ties by id).
const nearest = (rows, q, k) => rows.filter((r) => r.emb != null)
  .map((r) => ({ id: r.article_id, cos: cosine(r.emb, q) }))
  .sort((a, b) => b.cos - a.cos || (a.id < b.id ? -1 : 1))
  .slice(0, k);

test("nearestNeighbors by relevance: the nearest, with scores", async () => {
  const client = newClient();
  const page = await client(Article).nearestNeighbors(query, 6, "embedding").fetchPage({ $orderBy: "relevance", $pageSize: 100 });
  const want = nearest(data.articles, query, 6);
  assert.deepEqual(page.data.map((o) => o.articleId), want.map((w) => w.id));
  page.data.forEach((o, i) => {
    assert.equal(typeof o.$score, "number", `$score of ${o.articleId}`);
    assert.ok(Math.abs(o.$score - (1 + want[i].cos) / 2) < 1e-5, `$score of ${o.articleId}: ${o.$score}, cos ${want[i].cos}`);
  });
});

test("nearestNeighbors over a where: filtered first, then the nearest", async () => {
  const client = newClient();
  const page = await client(Article).where({ topic: "maps" }).nearestNeighbors(query, 5, "embedding")
    .fetchPage({ $orderBy: "relevance", $pageSize: 100 });
  const want = nearest(data.articles.filter((r) => r.topic === "maps"), query, 5);
  assert.deepEqual(page.data.map((o) => o.articleId), want.map((w) => w.id));
  assert.ok(page.data.every((o) => o.topic === "maps"));
});

test("a where over nearestNeighbors narrows the nearest", async () => {
  const client = newClient();
  const page = await client(Article).nearestNeighbors(query, 12, "embedding").where({ topic: "search" })
    .fetchPage({ $pageSize: 100 });
  const want = nearest(data.articles, query, 12).filter((w) => data.articles.find((r) => r.article_id === w.id).topic === "search");
  assert.deepEqual(page.data.map((o) => o.articleId).sort(), want.map((w) => w.id).sort());
});

test("vector values read back as arrays of numbers", async () => {
  const client = newClient();
  const one = await client(Article).fetchOne("a01");
  const row = data.articles.find((r) => r.article_id === "a01");
  // Each number is the float32 the index holds, in its shortest form.
  assert.deepEqual(one.embedding.map(Math.fround), row.emb.map(Math.fround));
  const none = await client(Article).fetchOne("a07");
  assert.equal(none.embedding, undefined, "a07 has no embedding");
});

test("a text query needs an embedding model; a vector of another dimension is refused", async () => {
  const client = newClient();
  await assert.rejects(client(Article).nearestNeighbors("maps of Lisbon", 5, "embedding").fetchPage(), (err) => {
    assert.equal(err.errorName, "PropertyTypeDoesNotSupportNearestNeighbors");
    assert.equal(err.statusCode, 400);
    assert.match(err.message, /no embedding model is configured/);
    return true;
  });
  await rejectsWith(client(Article).nearestNeighbors([1, 2, 3], 5, "embedding").fetchPage(), 400, "InvalidVectorDimension");
});
