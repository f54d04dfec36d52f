// Property values as text nodes, by type. Values arrive as the Ontology
// API encodes them (longs and decimals as strings, dates and timestamps as
// ISO strings, arrays as arrays); nothing here parses them as HTML.
import { h } from "./dom.js";

export function value(v) {
  if (v === undefined || v === null) return h("span", { class: "null", text: "null" });
  if (Array.isArray(v)) {
    if (v.length === 0) return h("span", { class: "null", text: "[]" });
    return h("span", { class: "list" }, v.map((x) => h("span", { class: "chip" }, value(x))));
  }
  if (typeof v === "boolean") return h("span", { class: "bool", text: String(v) });
  if (typeof v === "object") return h("code", { text: JSON.stringify(v) });
  return document.createTextNode(String(v));
}
