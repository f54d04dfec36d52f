// Helpers of the subscription test (osdk-subscribe.test.mjs): the writer
// that commits to a live server's warehouse, a listener that records what
// .subscribe() delivers, a logger that records the websocket frames the
// client sends and receives, and waiting (generously: up to 60 s) for
// either.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { setTimeout as sleep } from "node:timers/promises";

export const env = (name) => {
  const v = process.env[name];
  assert.ok(v, `${name} is not set (run run.sh)`);
  return v;
};

// The longest wait for something the server should do after a commit or a
// request: far beyond the poll interval, so that only a server that never
// does it fails.
const waitMs = 60_000;

// waitUntil calls fn until it returns something truthy, and returns it;
// what (a string or a function giving one) says what was awaited when it
// never came.
export async function waitUntil(what, fn) {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) {
      throw new Error(`waited ${waitMs / 1000} s for ${typeof what === "function" ? what() : what}`);
    }
    await sleep(25);
  }
}

const execFileAsync = promisify(execFile);

// commit runs the writer (commit/) on a warehouse: op is insert (rows),
// update (rows with their key and the columns to change) or delete (keys)
// on demo.customers. Each is one copy-on-write snapshot.
export async function commit(warehouse, op, arg) {
  const { stdout } = await execFileAsync(env("COMMIT"), ["-warehouse", warehouse, op, JSON.stringify(arg)]);
  return JSON.parse(stdout);
}

// Recorder is a subscription's listener: it records every callback in
// order, for the test to wait for and check.
export class Recorder {
  events = [];
  onChange = (update) => this.events.push({ type: "change", state: update.state, object: update.object });
  onSuccessfulSubscription = () => this.events.push({ type: "subscribed" });
  onOutOfDate = () => this.events.push({ type: "outOfDate" });
  onError = (err) => this.events.push({ type: "error", error: err });

  // mark is where the events after now begin.
  mark() {
    return this.events.length;
  }

  // next waits for the first event since mark that pred accepts.
  next(mark, what, pred) {
    return waitUntil(() => `${what}; got ${show(this.events.slice(mark))}`, () => this.events.slice(mark).find(pred));
  }

  // change waits for onChange with state for the object of primary key pk.
  change(mark, state, pk) {
    return this.next(mark, `onChange ${state} ${pk}`, (e) => e.type === "change" && e.state === state && e.object.$primaryKey === pk);
  }

  // changes are the onChange calls so far, as "STATE primaryKey".
  changes() {
    return this.events.filter((e) => e.type === "change").map((e) => `${e.state} ${e.object.$primaryKey}`);
  }
}

const show = (events) =>
  JSON.stringify(events.map((e) => (e.type === "change" ? `${e.state} ${e.object.$primaryKey}` : e.type === "error" ? e.error : e.type)));

// frameLog returns a logger for createClient that records, in order, the
// websocket frames the client sends (out) and receives (in) and each
// websocket it opens, from the client's own debug log of them; and any
// error it logs.
export function frameLog() {
  const log = { frames: [], errors: [] };
  const record = (level) => (obj, msg) => {
    if (level === "error" || level === "fatal") log.errors.push(`${msg ?? ""} ${obj instanceof Error ? obj.stack : JSON.stringify(obj)}`);
    // A copy: the client converts the objects of a frame in place.
    if (msg === "received message from ws") log.frames.push({ in: structuredClone(obj.payload) });
    else if (msg === "sending subscribe message") log.frames.push({ out: structuredClone(obj.payload) });
    else if (obj === "Creating websocket") log.frames.push({ open: true });
  };
  const logger = {
    trace: record("trace"), debug: record("debug"), info: record("info"), warn: record("warn"), error: record("error"), fatal: record("fatal"),
    isLevelEnabled: () => true,
    child: () => logger,
  };
  log.logger = logger;
  // opens counts the websockets the client opened.
  log.opens = () => log.frames.filter((f) => f.open).length;
  // received are the frames received since mark (an index into frames).
  log.received = (mark = 0) => log.frames.slice(mark).filter((f) => f.in).map((f) => f.in);
  // subscriptions pairs each request the client sent with the server's
  // response to it: [{request, response}] in order.
  log.subscriptions = () => {
    const sent = new Map(log.frames.filter((f) => f.out).map((f) => [f.out.id, f.out.requests]));
    return log.received()
      .filter((m) => m.type === "subscribeResponses")
      .flatMap((m) => m.responses.map((response, i) => ({ request: sent.get(m.id)?.[i], response })));
  };
  // answered waits until the server answered the last subscribe message
  // the client sent, and returns the index of the frame after the answer.
  log.answered = async () => {
    const out = log.frames.findLast((f) => f.out).out;
    return waitUntil(`the answer to subscribe message ${out.id}`, () => {
      const i = log.frames.findIndex((f) => f.in?.type === "subscribeResponses" && f.in.id === out.id);
      return i >= 0 && i + 1;
    });
  };
  return log;
}

// waitReady waits until every object type of the server at url has a
// generation to serve: the daemon built them.
export function waitReady(url) {
  return waitUntil(`${url}/readyz to answer 200`, async () => {
    const res = await fetch(`${url}/readyz`).catch(() => undefined);
    return res?.status === 200;
  });
}

// metric sums the samples of a Prometheus metric on the server's /metrics.
export async function metric(url, token, name) {
  const res = await fetch(`${url}/metrics`, { headers: { Authorization: `Bearer ${token}` } });
  assert.equal(res.status, 200, "GET /metrics");
  const text = await res.text();
  const lines = text.split("\n").filter((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
  assert.ok(lines.length > 0, `/metrics has ${name}`);
  return lines.reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(" ") + 1)), 0);
}
