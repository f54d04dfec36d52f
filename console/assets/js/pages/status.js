// The index status: where each object type stands, its last build and a
// chart of its recent builds, errors (a merge-on-read refusal with its
// fix), invalid rows and the write-mode report. It polls the status every
// POLL_MS and the write-mode report, which reads table metadata, every
// CHECK_MS. Admin tokens get rebuild and reload, each behind a
// confirmation.
import { add, badge, bytes, h, ms, notice, num, replace, when } from "../dom.js";
import { buildChart } from "../chart.js";
import { confirm } from "../dialog.js";
import { exploreHref } from "../router.js";
import { lagText } from "./types.js";

const POLL_MS = 2000;
const CHECK_MS = 15000;

export async function renderStatus(ctx) {
  const { api, el, who } = ctx;
  document.title = "Status · ontoindex";
  const ready = h("span", { id: "ready" });
  const updated = h("span", { class: "muted small", id: "updated" });
  const actions = h("div", { id: "action-result" });
  const cards = h("div", { id: "type-status", class: "cards" });
  const checks = h("div", { id: "write-modes" });
  const reload = who.admin ? h("button", { type: "button", id: "reload", class: "secondary", text: "Reload config…" }) : null;
  add(el, h("div", { class: "title-row" }, h("h1", { text: "Status" }), ready, h("span", { class: "spacer" }), reload),
    h("p", {}, updated), actions, cards,
    h("div", { class: "title-row" }, h("h2", { text: "Write modes" }), h("span", { class: "spacer" }),
      h("button", { type: "button", class: "secondary small", id: "refresh-checks", text: "Check again", onclick: () => loadChecks() })),
    checks);

  const act = async (title, text, ok, fn, done) => {
    if (!(await confirm(title, text, ok))) return;
    replace(actions, notice("info", title + "…"));
    try {
      const res = await fn();
      if (ctx.alive()) replace(actions, notice("info", ...done(res)));
      poll();
    } catch (e) {
      if (ctx.alive()) replace(actions, notice("error", title + " failed: " + e.message));
    }
  };
  if (reload) {
    reload.addEventListener("click", () => act("Reload the config", "The server reads its config file again: added object types start, changed ones are rebuilt as needed, removed ones stop serving. A bad config is refused and the running one stays.", "Reload",
      () => api.reload(), (r) => ["Config reloaded. ",
        h("span", { id: "reload-result", text: ["added", "changed", "removed", "unchanged"].map((k) => k + ": " + ((r[k] || []).join(", ") || "none")).join("; ") +
          (r.restartNeeded && r.restartNeeded.length ? "; takes effect at a restart: " + r.restartNeeded.join(", ") : "") })]));
  }
  const rebuild = (type, gen) => act("Rebuild " + type, "A full build of " + type + " into a new generation. Generation " + gen + " keeps serving until the new one is swapped in.", "Rebuild",
    () => api.rebuild(type), () => [h("span", { id: "rebuild-result", text: "Rebuild of " + type + " requested: generation " + gen + " serves until the new one is ready." })]);

  const poll = async () => {
    let rep;
    try {
      rep = await api.status();
    } catch (e) {
      if (ctx.alive()) updated.textContent = "Status not reachable (" + e.message + "); retrying.";
      return;
    }
    if (!ctx.alive()) return;
    replace(ready, rep.ready ? h("span", { class: "badge state-idle", text: "ready" }) : h("span", { class: "badge state-building", text: "not ready" }));
    updated.textContent = "Updated " + new Date().toISOString().slice(11, 19) + "Z · every " + POLL_MS / 1000 + " s";
    // Types that need an operator first, then the others in config order.
    const rank = (s) => (s.state === "blocked" || s.state === "failing" ? 0 : 1);
    const sorted = rep.objectTypes.map((s, i) => [s, i]).sort((a, b) => rank(a[0]) - rank(b[0]) || a[1] - b[1]).map((x) => x[0]);
    replace(cards, sorted.length ? sorted.map((s) => card(s, who.admin ? rebuild : null)) : notice("info", "This token sees no object type."));
  };
  const loadChecks = async () => {
    try {
      const rep = await api.checks();
      if (ctx.alive()) replace(checks, writeModes(rep));
    } catch (e) {
      if (ctx.alive()) replace(checks, notice("error", "Write-mode check failed: " + e.message));
    }
  };
  await Promise.all([poll(), loadChecks()]);
  const t1 = setInterval(poll, POLL_MS);
  const t2 = setInterval(loadChecks, CHECK_MS);
  ctx.onCleanup(() => { clearInterval(t1); clearInterval(t2); });
}

function card(s, rebuild) {
  const lb = s.lastBuild;
  return h("section", { class: "card state-" + s.state, dataset: { type: s.objectType, state: s.state } },
    h("div", { class: "title-row" },
      // A link table (<Type>.<link>, the join table of a link) has a
      // status but no objects to explore.
      h("h2", {}, s.objectType.includes(".") ? [s.objectType, " ", h("small", { class: "muted", text: "link table" })] : h("a", { href: exploreHref(s.objectType), text: s.objectType })),
      badge(s.state),
      h("span", { class: "mono muted", text: s.table }), h("span", { class: "spacer" }),
      rebuild ? h("button", { type: "button", class: "secondary small rebuild", dataset: { type: s.objectType }, text: "Rebuild…",
        onclick: () => rebuild(s.objectType, s.generation) }) : null),
    h("div", { class: "columns" },
      h("div", {},
        h("h3", { text: "Index" }),
        dl([
          ["Checkpoint snapshot", s.checkpointSnapshotId === "0" ? "never built" : s.checkpointSnapshotId, "checkpoint"],
          ["Table snapshot", s.tableSnapshotId === "0" ? "not polled yet" : s.tableSnapshotId, "table-snapshot"],
          ["Lag", lagText(s), "lag"],
          ["Generation", String(s.generation), "generation"],
          ["Objects", num(s.objects), "objects"],
          ["Polled", when(s.polledAt), "polled"],
          s.nextRetryAt ? ["Next retry", when(s.nextRetryAt), "next-retry"] : null,
        ])),
      h("div", { class: "last-build" },
        h("h3", { text: "Last build" }),
        lb ? dl([
          ["Kind", lb.kind + (lb.readMode ? " (" + lb.readMode + ")" : "") + (lb.reason ? ": " + lb.reason : ""), "kind"],
          ["Snapshots", (lb.from === "0" ? "start" : lb.from) + " → " + lb.to, "snapshots"],
          ["Files read", num(lb.filesRead) + " (" + bytes(lb.bytesRead) + ", " + num(lb.rowsRead) + " rows)", "files"],
          ["Upserts / deletes", num(lb.upserts) + " / " + num(lb.deletes) + (lb.skippedRows ? ", " + num(lb.skippedRows) + (lb.skippedRows === 1 ? " row" : " rows") + " skipped" : ""), "changes"],
          ["Duration", ms(lb.durationMs), "duration"],
          ["Finished", when(lb.finishedAt), "finished"],
        ]) : h("p", { class: "muted", text: "No build yet." })),
      h("div", { class: "chart-box" }, h("h3", { text: "Recent builds" }), buildChart(s.recentBuilds || []))),
    s.lastError ? errorView(s.lastError) : null,
    invalidRows(s.invalidRows));
}

function dl(items) {
  return h("dl", { class: "facts" }, items.filter(Boolean).map(([k, v, id]) => [h("dt", { text: k }), h("dd", { class: "f-" + id, text: v })]));
}

function errorView(e) {
  const m = e.mergeOnRead;
  if (m) {
    const d = m.liveDeleteFiles || {};
    const modes = m.writeModes || {};
    return h("div", { class: "notice error mor", role: "alert" },
      h("h3", { text: "Blocked: merge-on-read delete files" }),
      h("p", { text: "Searches keep answering from the checkpoint snapshot. The refused snapshot:" }),
      dl([
        ["Table", m.table, "mor-table"],
        ["Snapshot", m.snapshotId + (m.operation ? " (" + m.operation + ")" : ""), "mor-snapshot"],
        ["Position delete files", String(d.position || 0), "mor-position"],
        ["Equality delete files", String(d.equality || 0), "mor-equality"],
        ["Deletion vectors", String(d.deletionVectors || 0), "mor-dv"],
        ["Write modes", "delete " + (modes.delete || "copy-on-write") + ", update " + (modes.update || "copy-on-write") + ", merge " + (modes.merge || "copy-on-write"), "mor-modes"],
      ]),
      h("p", { class: "fix" }, h("strong", { text: "Fix: " }), h("span", { class: "f-mor-fix", text: m.fix })),
      h("p", { class: "muted small", text: "Refused " + when(e.at) }));
  }
  return h("div", { class: "notice error", role: "alert" },
    h("h3", { text: "Last error: " + e.code }), h("p", { class: "f-error", text: e.message }), h("p", { class: "muted small", text: when(e.at) }));
}

function invalidRows(ir) {
  if (!ir || !ir.count) return null;
  return h("div", { class: "invalid-rows" },
    h("h3", { text: "Invalid rows: " + num(ir.count) + " skipped" }),
    ir.samples && ir.samples.length ? h("div", { class: "table-wrap" }, h("table", { class: "samples" },
      h("thead", {}, h("tr", {}, ["File", "Row", "Key", "Reason"].map((t) => h("th", { text: t })))),
      h("tbody", {}, ir.samples.map((x) => h("tr", {}, h("td", { class: "mono small", text: x.file }), h("td", { class: "num", text: String(x.row) }),
        h("td", { text: x.key || "—" }), h("td", { text: x.reason })))))) : null);
}

function writeModes(rep) {
  const rows = rep.objectTypes.map((c) => {
    const d = c.liveDeleteFiles || {};
    const m = c.writeModes || {};
    return h("tr", { dataset: { type: c.objectType, verdict: c.verdict } },
      h("td", { text: c.objectType }), h("td", { class: "mono", text: c.table }), h("td", { class: "num", text: String(c.formatVersion || "—") }),
      h("td", { class: "mono", text: c.snapshotId || "—" }),
      h("td", { text: [m.delete, m.update, m.merge].map((x) => x || "copy-on-write").join(" / ") }),
      h("td", { class: "num", text: [d.position, d.equality, d.deletionVectors, d.dangling].map((x) => x || 0).join(" / ") }),
      h("td", {}, h("span", { class: "badge verdict-" + c.verdict, text: c.verdict })),
      h("td", { class: "small", text: c.error ? c.error.message : c.message }));
  });
  return [h("p", {}, "Verdict: ", h("span", { class: "badge verdict-" + rep.verdict, id: "verdict", text: rep.verdict }),
    h("span", { class: "muted small", text: " · checked " + new Date().toISOString().slice(11, 19) + "Z" })),
  h("div", { class: "table-wrap" }, h("table", { class: "write-modes" },
    h("thead", {}, h("tr", {}, ["Object type", "Table", "Format", "Snapshot", "Modes (delete / update / merge)", "Live deletes (pos / eq / dv / dangling)", "Verdict", "Message"].map((t) => h("th", { text: t })))),
    h("tbody", {}, rows)))];
}
