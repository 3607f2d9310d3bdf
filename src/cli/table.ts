// Rows as aligned columns, two spaces apart, for a person's eye (--json is for scripts).

export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join("  ");
  return `${[header, ...rows].map(line).join("\n")}\n`;
}
