// The view tree as `uiautomator dump` writes it: a hierarchy of node elements, each with
// Android's attributes in Android's order and bounds as "[left,top][right,bottom]".
import type { View } from "./view.js";

const escape = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/\n/g, "&#10;");

function node(v: View, index: number): string {
  const [l, t, r, b] = v.bounds;
  const attrs: [string, string | boolean | number][] = [
    ["index", index],
    ["text", v.text ?? ""],
    ["resource-id", v.id ?? ""],
    ["class", v.cls],
    ["package", v.pkg],
    ["content-desc", v.desc ?? ""],
    ["checkable", false],
    ["checked", false],
    ["clickable", v.clickable ?? false],
    ["enabled", true],
    ["focusable", v.clickable ?? false],
    ["focused", v.focused ?? false],
    ["scrollable", v.scrollable ?? false],
    ["long-clickable", false],
    ["password", false],
    ["selected", false],
    ["bounds", `[${l},${t}][${r},${b}]`],
  ];
  const open = `<node ${attrs.map(([k, val]) => `${k}="${escape(String(val))}"`).join(" ")}`;
  return v.children.length ? `${open}>${v.children.map(node).join("")}</node>` : `${open} />`;
}

export function uiXml(root: View): string {
  return `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0">${node(root, 0)}</hierarchy>`;
}
