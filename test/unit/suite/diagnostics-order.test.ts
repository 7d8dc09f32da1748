import { describe, expect, it } from "vitest";
import { withDiagnosticsSorted } from "../../e2e/support/output";

/** A pulumi command's output whose Diagnostics section lists `groups` in that order. */
function printed(title: string, groups: string[][]): string {
  const section = groups.map(([heading, ...lines]) => [`  ${heading}`, ...lines.map((l) => `    ${l}`), ""]);
  return [
    title,
    "",
    " +  a row (1s) ",
    "Diagnostics:",
    ...section.flat(),
    "Resources:",
    "    + 2 created",
    "",
  ].join("\n");
}

const order = ["directmail:index:Order (welcome):", "[directmail] Order 7: created"];
const list = [
  "directmail:index:OrderRecipients (welcome-recipients):",
  "[directmail] 3 accepted",
  "[directmail] done",
];

describe("a Diagnostics section compared in heading order", () => {
  it("gives the same text whichever order Pulumi printed the resources in", () => {
    const sorted = printed("Updating (prod):", [order, list]);
    expect(withDiagnosticsSorted(printed("Updating (prod):", [list, order]))).toBe(sorted);
    expect(withDiagnosticsSorted(sorted)).toBe(sorted);
  });

  it("sorts every section of an output (a preview's and an update's), and leaves the rest as printed", () => {
    const twice = (a: string[], b: string[]) =>
      printed("Previewing update (prod):", [a, b]) + printed("Updating (prod):", [b, a]);
    expect(withDiagnosticsSorted(twice(list, order))).toBe(
      printed("Previewing update (prod):", [order, list]) + printed("Updating (prod):", [order, list]),
    );
  });

  it("keeps each resource's lines in the order they were printed", () => {
    const swapped = [list[0] as string, list[2] as string, list[1] as string];
    expect(withDiagnosticsSorted(printed("Updating (prod):", [swapped, order]))).toBe(
      printed("Updating (prod):", [order, swapped]),
    );
  });

  it("leaves an output without diagnostics unchanged", () => {
    const output = "Updating (prod):\n\nResources:\n    2 unchanged\n";
    expect(withDiagnosticsSorted(output)).toBe(output);
  });
});
