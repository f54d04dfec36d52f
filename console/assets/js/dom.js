// DOM helpers. Every value goes into the page as text: h() sets text
// children with textContent (text nodes), never as HTML, so a value such
// as "<script>" is shown, not run. No script of the console parses HTML.

// h creates an element. attrs: class, text, dataset keys (data-*), on*
// handlers (functions), and plain attributes; children: nodes, strings
// (as text), arrays of those, or null/undefined/false (skipped).
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

const SVG = "http://www.w3.org/2000/svg";

// s creates an SVG element, as h does.
export function s(tag, attrs, ...children) {
  const el = document.createElementNS(SVG, tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

function setAttrs(el, attrs) {
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "text") el.textContent = String(v);
    else if (k === "class") el.setAttribute("class", v);
    else if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v);
    else if (k === "dataset") Object.assign(el.dataset, v);
    else if (v === true) el.setAttribute(k, "");
    else el.setAttribute(k, String(v));
  }
}

// add appends children to el as h does: text as text, null skipped.
export function add(el, ...children) {
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

// replace swaps the children of el for children.
export function replace(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

// Formatting of numbers, bytes, durations and times, for display.
const nf = new Intl.NumberFormat("en-US");

export function num(n) {
  if (n === undefined || n === null || n === "") return "—";
  if (typeof n === "string") return /^-?\d+$/.test(n) ? n.replace(/\B(?=(\d{3})+(?!\d))/g, ",") : n;
  return nf.format(n);
}

export function bytes(n) {
  if (!n) return "0 B";
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) { n /= 1024; i++; }
  return (i === 0 ? n : n.toFixed(1)) + " " + units[i];
}

export function ms(n) {
  if (n === undefined || n === null) return "—";
  if (n < 1000) return n + " ms";
  return (n / 1000).toFixed(n < 10000 ? 2 : 1) + " s";
}

export function seconds(s) {
  if (s === undefined || s === null) return "—";
  if (s < 1) return Math.round(s * 1000) + " ms";
  if (s < 120) return s.toFixed(s < 10 ? 1 : 0) + " s";
  if (s < 7200) return (s / 60).toFixed(0) + " min";
  return (s / 3600).toFixed(1) + " h";
}

export function when(iso) {
  if (!iso || iso.startsWith("0001-")) return "—";
  const d = new Date(iso);
  if (isNaN(d)) return iso;
  const ago = (Date.now() - d.getTime()) / 1000;
  const full = d.toISOString().replace("T", " ").replace(/\.\d+Z$/, "Z");
  if (ago >= -60 && ago < 86400) return full.slice(11) + " (" + seconds(Math.max(ago, 0)) + " ago)";
  return full;
}

// badge is the state of an object type as a coloured label.
export function badge(state) {
  return h("span", { class: "badge state-" + (state || "unknown"), text: state || "unknown" });
}

// message shows a notice (info, error) in a box.
export function notice(kind, ...children) {
  return h("div", { class: "notice " + kind, role: kind === "error" ? "alert" : "status" }, ...children);
}
