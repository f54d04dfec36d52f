// The chart of a type's recent builds, drawn as inline SVG: one bar per
// build for its duration (left scale; failed builds in red) and a line of
// the lag when each build ended (right scale). Every label is text.
import { ms, s, seconds } from "./dom.js";

const W = 560, H = 150, L = 52, R = 52, T = 14, B = 26;

export function buildChart(builds) {
  const svg = s("svg", { class: "chart", viewBox: "0 0 " + W + " " + H, width: W, height: H, role: "img",
    "aria-label": builds.length + " recent builds: durations and lag", dataset: { builds: String(builds.length) } });
  if (builds.length === 0) {
    svg.append(s("text", { x: W / 2, y: H / 2, "text-anchor": "middle", class: "axis", text: "no builds since the server started" }));
    return svg;
  }
  const iw = W - L - R, ih = H - T - B;
  const maxD = nice(Math.max(...builds.map((b) => b.durationMs), 1));
  const maxL = nice(Math.max(...builds.map((b) => b.lagSeconds), 0.001));
  const step = iw / builds.length;
  const bw = Math.max(2, Math.min(24, step * 0.7));
  const x = (i) => L + step * i + step / 2;
  const yD = (v) => T + ih - (v / maxD) * ih;
  const yL = (v) => T + ih - (v / maxL) * ih;

  svg.append(
    s("line", { x1: L, y1: T + ih, x2: W - R, y2: T + ih, class: "axis-line" }),
    s("line", { x1: L, y1: T, x2: L, y2: T + ih, class: "axis-line" }),
    s("line", { x1: W - R, y1: T, x2: W - R, y2: T + ih, class: "axis-line" }),
    s("text", { x: L - 4, y: T + 4, "text-anchor": "end", class: "axis dur", text: ms(maxD) }),
    s("text", { x: L - 4, y: T + ih, "text-anchor": "end", class: "axis", text: "0" }),
    s("text", { x: W - R + 4, y: T + 4, class: "axis lag", text: seconds(maxL) }),
    s("text", { x: W - R + 4, y: T + ih, class: "axis", text: "0" }),
    s("text", { x: L, y: H - 6, class: "axis", text: clock(builds[0].finishedAt) }),
    s("text", { x: W - R, y: H - 6, "text-anchor": "end", class: "axis", text: clock(builds[builds.length - 1].finishedAt) }),
    s("text", { x: W / 2, y: H - 6, "text-anchor": "middle", class: "axis legend" },
      s("tspan", { class: "dur", text: "■ build duration" }), s("tspan", { dx: 12, class: "lag", text: "● lag at build end" })));

  builds.forEach((b, i) => {
    const y = yD(b.durationMs);
    svg.append(s("rect", { x: x(i) - bw / 2, y, width: bw, height: Math.max(1, T + ih - y), class: "bar" + (b.error ? " failed" : ""), dataset: { kind: b.kind } },
      s("title", { text: tip(b) })));
  });
  const pts = builds.map((b, i) => x(i).toFixed(1) + "," + yL(b.lagSeconds).toFixed(1)).join(" ");
  svg.append(s("polyline", { points: pts, class: "lag-line" }));
  builds.forEach((b, i) => svg.append(s("circle", { cx: x(i), cy: yL(b.lagSeconds), r: 2.5, class: "lag-dot" }, s("title", { text: tip(b) }))));
  return svg;
}

function tip(b) {
  return (b.error ? "failed (" + b.error + ")" : b.kind + " build") + " to snapshot " + b.to + ": " + ms(b.durationMs) +
    ", " + b.upserts + " upserts, " + b.deletes + " deletes, " + b.filesRead + " files read; lag " + seconds(b.lagSeconds) + "; finished " + b.finishedAt;
}

function clock(iso) {
  const d = new Date(iso);
  return isNaN(d) ? "" : d.toISOString().slice(11, 19) + "Z";
}

// nice rounds a maximum up to 1, 2 or 5 times a power of ten.
function nice(v) {
  const p = Math.pow(10, Math.floor(Math.log10(v)));
  for (const m of [1, 2, 5, 10]) if (v <= m * p) return m * p;
  return 10 * p;
}
