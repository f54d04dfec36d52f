// Live updates of object sets: the websocket feed @osdk/client's
// subscribe() reads (GET /api/v2/ontologySubscriptions/ontologies/{rid}/
// streamSubscriptions). The token goes in the Bearer-<token> sub-protocol,
// since a browser cannot set headers on a websocket; without a token (a
// server without tokens) no sub-protocol is offered.
//
// One connection per session (Api) carries every subscription of the
// pages shown. As in @osdk/client, each message sent lists every
// subscription (it replaces the previous list), the list is sent again
// every 45 s, a connection that closes is opened again with exponential
// backoff, and a connection nobody uses closes after 15 s. A server
// without the endpoint (an older one) costs a few failed attempts, after
// which the pages say "not live" and work as before.

const HEARTBEAT_MS = 45000;      // @osdk/client resends its list this often
const IDLE_MS = 15000;           // a connection without subscriptions closes after this
const BACKOFF_FIRST_MS = 1000;   // the first reconnect waits about this long,
const BACKOFF_MAX_MS = 60000;    // doubling up to this,
const BACKOFF_JITTER = 0.3;      // give or take this fraction
const ATTEMPTS_BEFORE_OFF = 3;   // failed first connections before the feed gives up

export const State = Object.freeze({ CONNECTING: "connecting", LIVE: "live", RECONNECTING: "reconnecting", OFF: "off" });

// liveFeed returns the feed of a session, made on first use.
export function liveFeed(api) {
  if (!api.live) api.live = new LiveFeed(api);
  return api.live;
}

// Subscription is one object set followed for a page. listener:
// onState(state, detail) on every change of its state; onSubscribed()
// when the server has taken it (first, and again after each reconnect:
// changes in between are not replayed, so the page reloads what it
// shows); onChange(updates) with the object updates of a committed build;
// onOutOfDate() on refreshObjectSet.
class Subscription {
  constructor(feed, objectSet, propertySet, listener) {
    this.feed = feed;
    this.request = { objectSet, propertySet, referenceSet: [], objectLoadingResponseOptions: { shouldLoadObjectRids: true } };
    this.listener = listener;
    this.id = "";       // the server's id, once subscribed
    this.live = false;  // subscribed on the current connection
    this.state = "";
  }

  setState(state, detail) {
    if (this.state === state && !detail) return;
    this.state = state;
    this.listener.onState(state, detail || "");
  }

  // close ends the subscription; the connection closes once unused.
  close() { this.feed.remove(this); }
}

export class LiveFeed {
  constructor(api) {
    this.api = api;
    this.ws = null;
    this.subs = new Set();
    this.byId = new Map();     // server subscription id -> Subscription
    this.pending = new Map();  // request id -> the subscriptions it listed, in order
    this.requests = 0;
    this.everOpened = false;
    this.failures = 0;         // attempts in a row that never opened
    this.attempt = 0;          // reconnects since the last subscription taken, for the backoff
    this.gaveUp = "";          // why the feed stopped trying, once it has
    this.heartbeat = 0;
    this.retry = 0;
    this.idle = 0;
  }

  // subscribe follows objectSet (an Ontology API ObjectSet) with the
  // properties propertySet; it returns the Subscription (close() ends it).
  subscribe(objectSet, propertySet, listener) {
    const sub = new Subscription(this, objectSet, propertySet, listener);
    this.subs.add(sub);
    clearTimeout(this.idle);
    if (this.gaveUp) {
      sub.setState(State.OFF, this.gaveUp);
    } else if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      sub.setState(State.CONNECTING);
      this.send();
    } else {
      sub.setState(this.everOpened ? State.RECONNECTING : State.CONNECTING);
      if (!this.ws && !this.retry) this.connect();
    }
    return sub;
  }

  remove(sub) {
    if (!this.subs.delete(sub)) return;
    if (sub.id) this.byId.delete(sub.id);
    this.send(); // the list without it ends it on the server
    if (this.subs.size === 0) {
      clearTimeout(this.idle);
      this.idle = setTimeout(() => { if (this.subs.size === 0) this.stop(); }, IDLE_MS);
    }
  }

  // stop closes the connection and cancels any reconnect.
  stop() {
    clearTimeout(this.retry);
    this.retry = 0;
    const ws = this.ws;
    this.ws = null;
    this.dropConnection();
    if (ws) {
      ws.onopen = ws.onmessage = ws.onclose = ws.onerror = null;
      ws.close(1000);
    }
  }

  async connect() {
    let url;
    try {
      const ontology = await this.api.ontology();
      const scheme = location.protocol === "https:" ? "wss:" : "ws:";
      url = scheme + "//" + location.host + "/api/v2/ontologySubscriptions/ontologies/" + encodeURIComponent(ontology.rid || ontology.apiName) + "/streamSubscriptions";
    } catch {
      this.closed(false); // the API is unreachable: try again later
      return;
    }
    if (this.ws || this.subs.size === 0) return;
    const token = this.api.token;
    let ws;
    try {
      ws = token ? new WebSocket(url, ["Bearer-" + token]) : new WebSocket(url);
    } catch {
      // A token that is not a valid sub-protocol (RFC 6455 token
      // characters): this browser cannot send it, so the feed is off.
      this.giveUp("This token cannot be sent over a websocket.");
      return;
    }
    this.ws = ws;
    let opened = false;
    ws.onopen = () => {
      opened = true;
      this.everOpened = true;
      this.failures = 0;
      this.send();
      clearInterval(this.heartbeat);
      this.heartbeat = setInterval(() => this.send(), HEARTBEAT_MS);
    };
    ws.onmessage = (ev) => this.receive(ev.data);
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.closed(opened);
    };
  }

  // closed handles the end of a connection (or of an attempt at one).
  closed(opened) {
    this.dropConnection();
    if (this.subs.size === 0) return;
    if (!opened) this.failures++;
    if (!this.everOpened && this.failures >= ATTEMPTS_BEFORE_OFF) {
      this.giveUp("This server sends no live updates.");
      return;
    }
    for (const sub of this.subs) {
      // Never connected yet: most likely an older server without the
      // endpoint; say "not live" at once rather than "connecting" for
      // the seconds the remaining attempts take.
      sub.setState(this.everOpened ? State.RECONNECTING : State.OFF, this.everOpened ? "" : "Live updates are not available.");
    }
    const delay = Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** this.attempt) * (1 + BACKOFF_JITTER * (2 * Math.random() - 1));
    this.attempt++;
    clearTimeout(this.retry);
    this.retry = setTimeout(() => {
      this.retry = 0;
      if (!this.ws && this.subs.size > 0) this.connect();
    }, delay);
  }

  dropConnection() {
    clearInterval(this.heartbeat);
    this.heartbeat = 0;
    this.pending.clear();
    this.byId.clear();
    for (const sub of this.subs) { sub.live = false; sub.id = ""; }
  }

  giveUp(reason) {
    this.gaveUp = reason;
    this.stop();
    for (const sub of this.subs) sub.setState(State.OFF, reason);
  }

  // send sends the whole list of subscriptions: each message replaces
  // the previous list, and the same request keeps its subscription id.
  send() {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return;
    const subs = [...this.subs];
    const id = "console-" + ++this.requests;
    this.pending.set(id, subs);
    this.ws.send(JSON.stringify({ id, requests: subs.map((s) => s.request) }));
  }

  receive(data) {
    let msg;
    try { msg = JSON.parse(data); } catch { return; }
    switch (msg && msg.type) {
      case "subscribeResponses": this.responses(msg); break;
      case "objectSetChanged": {
        const sub = this.byId.get(msg.id);
        if (sub) sub.listener.onChange((msg.updates || []).filter((u) => u.type === "object" && u.object));
        break;
      }
      case "refreshObjectSet": {
        const sub = this.byId.get(msg.id);
        if (sub) sub.listener.onOutOfDate();
        break;
      }
      case "subscriptionClosed": {
        const sub = this.byId.get(msg.id);
        if (sub) this.failed(sub, describe(msg.cause));
        break;
      }
    }
  }

  responses(msg) {
    const subs = this.pending.get(msg.id);
    if (!subs) return;
    this.pending.delete(msg.id);
    (msg.responses || []).forEach((r, i) => {
      const sub = subs[i];
      if (!sub || !this.subs.has(sub)) return;
      if (r.type === "success") {
        // The backoff starts again only now: a server that takes the
        // connection and then closes it is not tried again at once.
        this.attempt = 0;
        const fresh = !sub.live || sub.id !== r.id;
        if (sub.id && sub.id !== r.id) this.byId.delete(sub.id);
        sub.id = r.id;
        sub.live = true;
        this.byId.set(r.id, sub);
        if (fresh) sub.listener.onSubscribed();
        sub.setState(State.LIVE);
      } else if (r.type === "qos") {
        // The server asks for a new connection (load balancing).
        const ws = this.ws;
        if (ws) ws.close(1000);
      } else {
        this.failed(sub, describe(r));
      }
    });
  }

  // failed ends a subscription the server refused or closed: it is left
  // out of the lists sent from now on, and its page says why.
  failed(sub, reason) {
    this.subs.delete(sub);
    if (sub.id) this.byId.delete(sub.id);
    sub.live = false;
    sub.setState(State.OFF, reason);
  }
}

// describe turns a subscribe error or a close cause into a sentence.
function describe(x) {
  const errors = (x && (x.errors || (x.error ? [x] : []))) || [];
  if (errors.length === 0) return "The server ended live updates.";
  return errors.map((e) => {
    const args = (e.args || []).map((a) => a.name + ": " + a.value).join(", ");
    return e.error + (args ? " (" + args + ")" : "");
  }).join("; ");
}
