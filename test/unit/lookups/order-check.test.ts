/** The online checks of an order's declaration, against a fake account. */
import { describe, expect, it } from "vitest";
import type { DirectMailClient } from "../../../provider/api/client";
import type { OrderSummary } from "../../../provider/api/schemas/order";
import type { Font, Template } from "../../../provider/api/schemas/templates";
import { clearServiceFacts, type ServiceFacts, serviceFacts } from "../../../provider/lookups/facts";
import { checkOrderOnline, type DeclaredRow } from "../../../provider/lookups/order-check";

const templates: Template[] = [
  { id: 10, name: "Postcard", hasQr: true, requiredMergeFields: ["custom1"] },
  { id: 11, name: "Letter", hasQr: false, requiredMergeFields: [] },
];
const fonts: Font[] = [
  { name: "Casual Cursive", type: "Global" },
  { name: "Neat Print", type: "Global" },
  { name: "My Hand", type: "Uploaded" },
];
const anOrder = { orderId: 20, templateId: 10 } as OrderSummary;

function facts(): ServiceFacts {
  return {
    templates: async () => templates,
    fonts: async () => fonts,
    order: async (id) => (id === 20 ? anOrder : undefined),
  };
}
const rows = (...values: (string | undefined)[]): DeclaredRow[] =>
  values.map((custom1, i) => ({ row: i + 2, fields: { firstName: "Ada", custom1 } }));

describe("checkOrderOnline", () => {
  it("finds nothing wrong with a template, a style of the service and filled merge fields", async () => {
    const order = { templateId: 10, useQr: true, qrUrl: "https://x.test", handwritingFont: "neat print" };
    expect(await checkOrderOnline(order, rows("a", "b"), facts())).toEqual([]);
  });

  it("names the account's templates when the id is no template, and says when it is an order", async () => {
    expect(await checkOrderOnline({ templateId: 99 }, [], facts())).toEqual([
      {
        field: "templateId",
        message:
          'templateId: 99 is not a template of this account; use one of the account\'s templates: 10 "Postcard", 11 "Letter"',
      },
    ]);
    expect((await checkOrderOnline({ templateId: 20 }, [], facts()))[0]?.message).toBe(
      'templateId: 20 is an order made from template 10, not a template; use one of the account\'s templates: 10 "Postcard", 11 "Letter"',
    );
  });

  it("refuses an uploaded font and an unknown one, naming the styles to choose from", async () => {
    const found = await checkOrderOnline({ templateId: 11, handwritingFont: "My Hand" }, [], facts());
    expect(found.map((f) => f.message)).toEqual([
      'handwritingFont: "My Hand" is a font uploaded to the account, which orders cannot use; choose one of the service\'s handwriting styles: Casual Cursive, Neat Print',
    ]);
    const unknown = await checkOrderOnline({ templateId: 11, handwritingFont: "Comic" }, [], facts());
    expect(unknown[0]?.message).toBe(
      'handwritingFont: "Comic" is not a handwriting style of the service; choose one of the service\'s handwriting styles: Casual Cursive, Neat Print',
    );
  });

  it("refuses QR settings the template cannot take", async () => {
    const noQr = await checkOrderOnline(
      { templateId: 11, useQr: false, qrUrl: "https://x.test" },
      [],
      facts(),
    );
    expect(noQr.map((f) => f.field)).toEqual(["useQr", "qrUrl"]);
    expect(noQr[0]?.message).toBe(
      'useQr: template 11 ("Letter") has no QR code, and the service refuses useQr for it; remove useQr, or choose a template with a QR code',
    );
    const removed = await checkOrderOnline(
      { templateId: 10, useQr: false, qrUrl: "https://x.test" },
      rows("a"),
      facts(),
    );
    expect(removed).toEqual([
      {
        field: "qrUrl",
        message:
          "qrUrl: useQr is false, which removes the QR code, so the URL would be printed nowhere; remove qrUrl, or set useQr to true",
      },
    ]);
  });

  it("counts the recipients that lack a printed merge field and names the first rows", async () => {
    const found = await checkOrderOnline(
      { templateId: 10 },
      rows("a", "", undefined, " ", "b", "", "", ""),
      facts(),
    );
    expect(found).toEqual([
      {
        field: "recipients",
        rows: [3, 4, 5, 7, 8],
        message:
          '6 of 8 recipients have no custom1 (rows 3, 4, 5, 7, 8 and 1 more), which template 10 ("Postcard") prints; fill in custom1 for every recipient, or choose a template that does not print it',
      },
    ]);
    const none = await checkOrderOnline({ templateId: 10 }, rows(undefined), facts());
    expect(none[0]?.message).toMatch(/^none of the 1 recipients has custom1 \(row 2\), which/);
  });

  it("reads 100,000 recipients in one pass", async () => {
    const many = Array.from({ length: 100_000 }, (_, i) => ({
      row: i + 1,
      fields: { custom1: i % 2 ? "x" : "" },
    }));
    // CPU time, which a busy machine does not stretch as it stretches the wall clock.
    const started = process.cpuUsage();
    const found = await checkOrderOnline({ templateId: 10 }, many, facts());
    expect(found[0]?.message).toMatch(
      /^50000 of 100000 recipients have no custom1 \(rows 1, 3, 5, 7, 9 and 49995 more\)/,
    );
    const { user, system } = process.cpuUsage(started);
    expect((user + system) / 1000).toBeLessThan(2000);
  });
});

describe("serviceFacts", () => {
  it("asks each account for its templates and fonts once per process, and again after a failure", async () => {
    clearServiceFacts();
    const calls: string[] = [];
    let fail = true;
    const client = {
      baseUrl: "http://service.test",
      listTemplates: async () => {
        calls.push("templates");
        if (fail) {
          fail = false;
          throw new Error("down");
        }
        return templates;
      },
      listFonts: async () => {
        calls.push("fonts");
        return fonts;
      },
    } as unknown as DirectMailClient;
    await expect(serviceFacts(client, "key-1").templates()).rejects.toThrow("down");
    const a = serviceFacts(client, "key-1");
    const b = serviceFacts(client, "key-1");
    await Promise.all([a.templates(), b.templates(), a.fonts(), b.fonts()]);
    await serviceFacts(client, "key-2").templates();
    expect(calls).toEqual(["templates", "templates", "fonts", "templates"]);
  });
});
