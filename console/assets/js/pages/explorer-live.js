// The explorer's live updates: it follows the object set the explorer
// shows (the type, or its where clause) over the live feed and patches
// the page in place. A row whose object changed is updated where it is
// and flashes, with the changed cells marked; a row whose object left the
// set is struck through and stays until the next load; an object that
// entered the set is added at the top, marked new, when the page shows
// the whole set (on a page of a longer set it may belong to another page,
// so the toolbar counts it and offers a reload). The total follows.
// refreshObjectSet (a full rebuild, a gap) reloads the page, and so does
// each (re)subscription, since changes before it are not replayed.
import { h, num, replace } from "../dom.js";
import { liveFeed, State } from "../live.js";

const LABELS = {
  [State.CONNECTING]: "Connecting…",
  [State.LIVE]: "Live",
  [State.RECONNECTING]: "Reconnecting…",
  [State.OFF]: "Not live",
};
const TITLES = {
  [State.CONNECTING]: "Connecting to the server's live updates.",
  [State.LIVE]: "Changes to these objects appear here as soon as they are indexed.",
  [State.RECONNECTING]: "The connection for live updates was lost; trying again.",
  [State.OFF]: "This page does not update by itself; reload it to see changes.",
};

// followLive subscribes to objectSet with propertySet for the explorer
// of ctx. reload(): loads the shown page again, without marking rows.
// It returns the live indicator (for the page's heading) and the hooks
// the explorer calls around each load.
export function followLive(ctx, { objectSet, propertySet, reload }) {
  const label = h("span", { class: "label", text: LABELS[State.CONNECTING] });
  const indicator = h("span", { id: "live", class: "live", role: "status", dataset: { state: State.CONNECTING, updates: "0", refreshes: "0" } },
    h("span", { class: "dot", "aria-hidden": "true" }), label);

  let page = null;      // the page shown: see shown()
  let loading = false;  // a load is under way: updates wait for its page
  let stale = false;    // reload once the load under way is shown
  let syncing = false;  // subscribed, and the reload that follows is not shown yet
  let queue = [];       // updates that arrived during a load
  let state = State.CONNECTING, detail = "";

  // show draws the indicator: "live" once the page shown is as new as
  // the subscription, so that what it shows from then on is complete.
  const show = () => {
    const s = state === State.LIVE && syncing ? State.CONNECTING : state;
    indicator.dataset.state = s;
    label.textContent = LABELS[s];
    indicator.title = detail ? detail + " " + TITLES[s] : TITLES[s];
  };
  const count = (key) => { indicator.dataset[key] = String(Number(indicator.dataset[key]) + 1); };
  const refresh = () => {
    if (!ctx.alive()) return;
    if (loading) { stale = true; return; }
    reload();
  };

  const sub = liveFeed(ctx.api).subscribe(objectSet, propertySet, {
    onState(s, d) {
      if (!ctx.alive()) return;
      state = s;
      detail = d;
      show();
    },
    onSubscribed() { syncing = true; refresh(); },
    onOutOfDate() { count("refreshes"); refresh(); },
    onChange(updates) {
      if (!ctx.alive()) return;
      if (loading) queue.push(...updates);
      else if (page) apply(updates);
    },
  });
  ctx.onCleanup(() => sub.close());

  // apply patches the shown page with the updates of one build.
  const apply = (updates) => {
    for (const u of updates) {
      const o = u.object;
      const pk = String(o.__primaryKey);
      const tr = page.rows.get(pk);
      if (u.state === "REMOVED") {
        if (tr && tr.dataset.live === "removed") continue;
        if (tr) mark(tr, "removed");
        else if (page.complete) continue; // never counted: it came and went between loads
        else page.elsewhere++;
        page.total--;
      } else if (tr) {
        if (tr.dataset.live === "removed") page.total++;
        page.update(tr, o);
        mark(tr, tr.dataset.live === "added" ? "added" : "updated");
      } else if (page.complete) {
        const row = page.row(o);
        page.tbody.prepend(row);
        page.rows.set(pk, row);
        mark(row, "added");
        page.total++;
      } else {
        page.elsewhere++;
      }
      count("updates");
    }
    page.showTotal(page.total);
    if (page.elsewhere > 0) {
      replace(page.notice, h("button", { type: "button", class: "link", id: "live-elsewhere",
        text: num(page.elsewhere) + (page.elsewhere === 1 ? " change" : " changes") + " outside this page · reload",
        onclick: reload }));
    }
  };

  return {
    indicator,
    // loading: a load begins.
    loading() { loading = true; },
    // shown: the load ended, with the page shown (null: it failed). The
    // page: tbody, rows (primary key -> tr), complete (it holds the
    // whole set), total, notice (an element for the count of changes
    // elsewhere), row(o) and update(tr, o) to draw an object, and
    // showTotal(n).
    shown(p) {
      loading = false;
      page = p ? { ...p, elsewhere: 0 } : null;
      const waiting = queue;
      queue = [];
      if (stale) { stale = false; reload(); return; }
      if (page && waiting.length) apply(waiting);
      if (syncing) { syncing = false; show(); }
    },
  };
}

// mark sets a row's live state (updated, added, removed) and restarts
// its flash.
function mark(tr, state) {
  tr.dataset.live = state;
  tr.classList.remove("live-updated", "live-added", "live-removed");
  void tr.offsetWidth; // a new animation, not the rest of the last one
  tr.classList.add("live-" + state);
}
