import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DirectMailClient } from "../../../provider/api/client";
import { newOrderRecipient } from "../../../provider/api/recipients";
import { MAX_RECIPIENTS_PER_REQUEST } from "../../../provider/api/schemas/recipient";
import { DEFAULT_IDENTITY_FIELD, decodeIndex, fileSignature } from "../../../provider/recipients/index";
import { indexRecords } from "../../support/index-records";
import { startTestSandbox, type TestSandbox } from "../../support/sandbox";
import {
  configuredProvider,
  countingRequests,
  type Provider,
  printedBy,
  projectFolder,
  recipient,
} from "./support";

let sb: TestSandbox;
let apiKey: string;
let templateId: number;
let client: DirectMailClient;
let recipients: Provider;
const dir = projectFolder("directmail-recipients-it-");

beforeAll(async () => {
  sb = await startTestSandbox();
  ({ apiKey } = await sb.control.createAccount({ balance: 1000 }));
  ({ id: templateId } = await sb.control.createTemplate({ apiKey, name: "Postcard" }));
  client = new DirectMailClient({ baseUrl: sb.url, apiKey });
  recipients = await configuredProvider("OrderRecipients", sb, apiKey);
});
afterAll(async () => {
  await client?.close();
  await sb?.close();
});

function csv(name: string, rows: Record<string, string>[]): string {
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const quote = (v: string) => (/[",\n]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v);
  const text = [columns.join(","), ...rows.map((r) => columns.map((c) => quote(r[c] ?? "")).join(","))].join(
    "\n",
  );
  const file = path.join(dir, name);
  fs.writeFileSync(file, `${text}\n`);
  return file;
}

async function newOrder(): Promise<number> {
  return (await client.createOrder({ templateId })).orderId;
}

async function checked(inputs: Record<string, unknown>) {
  const result = await recipients.check({}, inputs);
  expect(result.failures ?? []).toEqual([]);
  return result.inputs;
}

async function liveRecipients(orderId: number) {
  const all = [];
  for await (const r of client.iterateRecipients(orderId, { pageSize: 1000 })) all.push(r);
  return all;
}

describe("OrderRecipients", { timeout: 60_000 }, () => {
  it("check reports every problem of a file with its row and field, and changes nothing", async () => {
    const orderId = await newOrder();
    const file = csv("bad.csv", [
      recipient(1),
      { ...recipient(2), zipCode: "" },
      { ...recipient(3), custom6: "mine" },
    ]);
    const result = await recipients.check({}, { orderId, file });
    expect(result.failures).toHaveLength(1);
    expect(result.failures?.[0]?.property).toBe("file");
    expect(result.failures?.[0]?.reason).toContain("row 3, zipCode: zipCode is required");
    expect(result.failures?.[0]?.reason).toContain("row 4, custom6:");
    expect(await liveRecipients(orderId)).toEqual([]);
    const both = await recipients.check({}, { orderId, file, recipients: [recipient(1)] });
    expect(both.failures?.[0]?.reason).toMatch(/exactly one of the two/);
  });

  it("check reports a CSV file whose format is broken by its name and line", async () => {
    const orderId = await newOrder();
    const file = path.join(dir, "ragged.csv");
    fs.writeFileSync(file, "firstName,address1,city,state,zipCode\nAda,1 Way,London,KY,40741,extra\n");
    expect((await recipients.check({}, { orderId, file })).failures).toEqual([
      {
        property: "file",
        reason: `${file}:2:1: this row has 6 values but the header has a different number of columns (a comma inside a value needs "quotes")`,
      },
    ]);
  });

  it("check judges the list even before the order exists (first preview), keeping the unknown id", async () => {
    const unknown = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
    const bad = await recipients.check(
      {},
      { orderId: unknown, recipients: [{ ...recipient(1), zipCode: "" }] },
    );
    expect(bad.failures?.[0]?.reason).toContain("row 1, zipCode: zipCode is required");
    const good = await recipients.check({}, { orderId: unknown, recipients: [recipient(1)] });
    expect(good.failures ?? []).toEqual([]);
    expect(good.inputs).toMatchObject({ orderId: unknown, identityField: "custom6", declaredCount: 1 });
  });

  it("check names the row and field of an inline recipient's problem, with no property whose value the engine would print", async () => {
    const orderId = await newOrder();
    const { adress1: _, ...rest } = { ...recipient(1), adress1: "" };
    const typo = await recipients.check(
      {},
      { orderId, recipients: [recipient(1), { ...rest, adress1: "14 Maple Avenue" }] },
    );
    expect(typo.failures).toEqual([
      { property: "", reason: 'recipients row 2, adress1: unknown field "adress1"' },
    ]);
    const notObject = await recipients.check({}, { orderId, recipients: [recipient(1), "Ada"] });
    expect(notObject.failures).toEqual([
      { property: "", reason: "recipients[1]: each recipient must be an object of recipient fields" },
    ]);
    const top = await recipients.check({}, { orderId: "7", recipients: [recipient(1)] });
    expect(top.failures).toEqual([
      { property: "orderId", reason: "orderId must be a whole number: the id of an order" },
    ]);
  });

  it("appends and deletes a list larger than one request in batches the service accepts", async () => {
    const orderId = await newOrder();
    const rows = Array.from({ length: MAX_RECIPIENTS_PER_REQUEST + 1 }, (_, i) => recipient(i));
    const inputs = await checked({ orderId, file: csv("over-one-request.csv", rows) });
    let created: any;
    const said = await printedBy(async () => {
      const { requests } = await countingRequests(async () => {
        created = await recipients.create(inputs);
      });
      const appends = requests.filter((r) => r.operationId === "appendRecipients");
      expect(appends).toHaveLength(2);
    });
    expect(said).toContain(`[directmail] Recipients of order ${orderId}: appended 5000 of 5001 `);
    expect(said).toContain(`[directmail] Recipients of order ${orderId}: appended 5001 of 5001 `);
    expect(created.outs).toMatchObject({ declaredCount: 5001, acceptedCount: 5001 });
    expect((await client.getOrder(orderId))?.recipientCount).toBe(5001);

    const { requests } = await countingRequests(() => recipients.delete(String(orderId), created.outs));
    expect(requests.filter((r) => r.operationId === "deleteRecipients")).toHaveLength(2);
    expect((await client.getOrder(orderId))?.recipientCount).toBe(0);
  });

  it("refuses an identity field that the order's template prints, before sending anything", async () => {
    const { id: printing } = await sb.control.createTemplate({
      apiKey,
      name: "Prints custom6",
      requiredMergeFields: ["custom6"],
    });
    const orderId = (await client.createOrder({ templateId: printing })).orderId;
    const rows = [{ ...recipient(1), custom5: "x" }];
    await expect(recipients.create(await checked({ orderId, recipients: rows }))).rejects.toThrow(
      /prints custom6, which would carry each recipient's identity key onto the mail piece/,
    );
    expect(await liveRecipients(orderId)).toEqual([]);
    const { outs } = await recipients.create(
      await checked({
        orderId,
        recipients: [{ ...recipient(1), custom6: "printed text" }],
        identityField: "custom5",
      }),
    );
    expect(outs.acceptedCount).toBe(1);
  });

  it("sends every declared field in its place of the wire shape, and the key in the identity field", async () => {
    const orderId = await newOrder();
    const declared = {
      ...recipient(31),
      toOrganization: "Analytical Engines",
      salutation: "Dear Countess",
      custom1: "15% off",
      returnCity: "London",
      qrUrl: "https://example.com/ada",
      text: "Thank you",
    };
    const { outs } = await recipients.create(await checked({ orderId, recipients: [declared] }));
    const [live] = await liveRecipients(orderId);
    expect(live?.personal).toMatchObject({
      firstName: "Ada31",
      toOrganization: "Analytical Engines",
      salutation: "Dear Countess",
    });
    expect(live?.metadata).toMatchObject({
      salutation: "Dear Countess",
      custom1: "15% off",
      returnCity: "London",
      qrUrl: "https://example.com/ada",
      text: "Thank you",
    });
    expect(live?.metadata.custom6).toMatch(/^[0-9a-f]{16}$/);
    expect([...decodeIndex(outs.index, false).keys()]).toEqual([live?.metadata.custom6]);
  });

  it("check takes a program's figures of a file only while the file is as the program read it, and records none of its words", async () => {
    const orderId = await newOrder();
    const file = csv("read-by-program.csv", [recipient(1), recipient(2)]);
    const signature = await fileSignature(file, { identityField: DEFAULT_IDENTITY_FIELD }, undefined);
    // Figures no read of this file gives: taken as they are, so the file was not read again.
    const programRead = { signature, digest: "f".repeat(64), declaredCount: 7, duplicateRows: 1 };
    const taken = await checked({ orderId, file, programRead });
    expect(taken).toMatchObject({ digest: "f".repeat(64), declaredCount: 7, duplicateRows: 1 });
    expect(taken).not.toHaveProperty("programRead");
    // Figures that are wrong send nothing: create reads the file, and its digest is not the plan's.
    await expect(recipients.create(taken)).rejects.toThrow(/changed while this deployment ran/);
    expect(await liveRecipients(orderId)).toHaveLength(0);

    // Written again since: its signature is another, and check reads the file itself.
    csv("read-by-program.csv", [recipient(1), recipient(2), recipient(3)]);
    const read = await checked({ orderId, file, programRead });
    expect(read).toMatchObject({ declaredCount: 3, duplicateRows: 0 });
    expect(read.digest).not.toBe("f".repeat(64));
    expect(read).not.toHaveProperty("programRead");
    const { outs } = await recipients.create(read);
    expect(outs).toMatchObject({ declaredCount: 3, acceptedCount: 3 });
    expect(await liveRecipients(orderId)).toHaveLength(3);
  });

  it("reads a file inside the fileRoot the program chose, beside the project, and refuses one outside it at check", async () => {
    const beside = fs.mkdtempSync(path.join(path.dirname(dir), "directmail-beside-"));
    try {
      const fileRoot = path.relative(dir, beside);
      fs.writeFileSync(
        path.join(beside, "people.csv"),
        fs.readFileSync(csv("people.csv", [recipient(1), recipient(2)])),
      );
      const orderId = await newOrder();
      const inside = await checked({ orderId, file: path.join(fileRoot, "people.csv"), fileRoot });
      expect((await recipients.create(inside)).outs).toMatchObject({ declaredCount: 2, acceptedCount: 2 });
      expect(await liveRecipients(orderId)).toHaveLength(2);

      // In the project, but outside the chosen root: refused, even with a program's figures of it.
      const outside = csv("outside.csv", [recipient(3)]);
      const options = { identityField: DEFAULT_IDENTITY_FIELD };
      const programRead = {
        signature: await fileSignature(outside, options, undefined),
        digest: "f".repeat(64),
        declaredCount: 1,
        duplicateRows: 0,
      };
      const other = await newOrder();
      for (const declared of [{}, { programRead }]) {
        const refused = await recipients.check(
          {},
          { orderId: other, file: "outside.csv", fileRoot, ...declared },
        );
        expect(refused.failures).toEqual([
          {
            property: "file",
            reason: `"outside.csv" is outside the campaign folder ${fileRoot}/ (after following links); name a file inside it`,
          },
        ]);
      }
      // A create given such inputs all the same refuses in one line, naming the file.
      await expect(
        recipients.create({ orderId: other, file: "outside.csv", fileRoot, identityField: "custom6" }),
      ).rejects.toThrow(
        `file: "outside.csv" is outside the campaign folder ${fileRoot}/ (after following links); name a file inside it`,
      );
      expect(await liveRecipients(other)).toHaveLength(0);
    } finally {
      fs.rmSync(beside, { recursive: true, force: true });
    }
  });

  it("create appends a file's recipients and keeps only a digest and a compact index in its outputs", async () => {
    const orderId = await newOrder();
    const file = csv("three.csv", [recipient(1), recipient(2), recipient(3), recipient(3)]);
    const inputs = await checked({ orderId, file });
    const { id, outs } = await recipients.create(inputs);
    expect(id).toBe(String(orderId));
    expect(outs).toMatchObject({ declaredCount: 3, duplicateRows: 1, acceptedCount: 3, droppedCount: 0 });
    const live = await liveRecipients(orderId);
    expect(live).toHaveLength(3);
    expect([...decodeIndex(outs.index, false).values()].map((e) => e.id).sort()).toEqual(
      live.map((r) => r.id).sort(),
    );
    expect(JSON.stringify(outs)).not.toContain("Main St");
  });

  it("stores the service's drop reasons without the values they quote, and redacts a state that holds them", async () => {
    const orderId = await newOrder();
    const rows = [
      recipient(1),
      recipient(2, { zipCode: "5974O" }),
      // A name typed into the state column, and a bad ZIP code: two quoted values in one reason.
      recipient(3, { state: "Lovelace", zipCode: "5974O" }),
    ];
    const inputs = await checked({ orderId, recipients: rows });
    const { outs } = await recipients.create(inputs);
    const zip = "ADDRESS_NOT_VALID: address.zipCode: not a ZIP or ZIP+4 code";
    // Both values checked against the recipient the service echoed: the reason reads in full.
    const both =
      "ADDRESS_NOT_VALID: address.state: not a US state or territory; address.zipCode: not a ZIP or ZIP+4 code";
    expect(outs).toMatchObject({
      acceptedCount: 1,
      droppedCount: 2,
      dropReasons: { [zip]: 1, [both]: 1 },
      droppedSample: [
        { row: 2, reason: zip },
        { row: 3, reason: both },
      ],
    });
    // The inline recipients are inputs, and hold the values; nothing the service said does.
    const { recipients: _declared, ...reported } = outs;
    expect(JSON.stringify(reported)).not.toContain("5974O");
    expect(JSON.stringify(reported)).not.toContain("'Lovelace'");

    // A state written by an earlier version: the service's words, with the values it quoted.
    const quoted = `ADDRESS_NOT_VALID: address.zipCode: '5974O' is not a ZIP or ZIP+4 code`;
    const earlier = {
      ...outs,
      dropReasons: { [quoted]: 1, [zip]: 1 },
      droppedSample: [{ row: 2, reason: quoted }],
    };
    const expected = { dropReasons: { [zip]: 2 }, droppedSample: [{ row: 2, reason: zip }] };
    const read = await recipients.read(String(orderId), earlier);
    expect(read.props).toMatchObject(expected);
    const updated = await recipients.update(String(orderId), earlier, { ...inputs, maxDroppedPercent: 90 });
    expect(updated.outs).toMatchObject(expected);
  });

  it("an update sends only the change: one recipient of many replaced in a handful of requests", async () => {
    const orderId = await newOrder();
    const rows = Array.from({ length: 2500 }, (_, i) => recipient(i));
    const before = await checked({ orderId, file: csv("many.csv", rows) });
    const { outs } = await recipients.create(before);
    const changedRows = [...rows.slice(1), recipient(99_999)];
    const after = await checked({ orderId, file: csv("many.csv", changedRows) });
    expect(await recipients.diff(String(orderId), outs, after)).toEqual({
      changes: true,
      deleteBeforeReplace: true,
    });
    const { result, requests } = await countingRequests(() =>
      recipients.update(String(orderId), outs, after),
    );
    expect(result.outs).toMatchObject({ declaredCount: 2500, acceptedCount: 2500 });
    const ops = requests.map((r) => r.operationId);
    expect(ops.filter((op) => op === "appendRecipients")).toHaveLength(1);
    expect(ops.filter((op) => op === "deleteRecipients")).toHaveLength(1);
    expect(requests.length).toBeLessThanOrEqual(6);
    const live = await liveRecipients(orderId);
    expect(live).toHaveLength(2500);
    expect(live.some((r) => r.personal.firstName === "Ada0")).toBe(false);
    expect(live.some((r) => r.personal.firstName === "Ada99999")).toBe(true);
  });

  it("reports dropped recipients with reasons and rows, and the guard fails when too many are dropped", async () => {
    await sb.control.addDoNotMail({
      apiKey,
      address1: "102 Main St",
      city: "Springfield",
      state: "IL",
      zip: "62701",
    });
    const rows = [recipient(1), recipient(2), { ...recipient(3), zipCode: "00000" }, recipient(4)];
    const { outs } = await recipients.create(await checked({ orderId: await newOrder(), recipients: rows }));
    expect(outs).toMatchObject({ acceptedCount: 2, droppedCount: 2 });
    expect(outs.droppedSample.map((d: { row: number }) => d.row).sort()).toEqual([2, 3]);
    expect(Object.keys(outs.dropReasons).join(" ")).toMatch(/DO_NOT_MAIL/);

    const guarded = await newOrder();
    const attempt = recipients.create(
      await checked({ orderId: guarded, recipients: rows, maxDroppedPercent: 10 }),
    );
    await expect(attempt).rejects.toThrow(
      // Every row named, not `rows 2, ...`.
      /2 of 4 recipients \(50.0%\) were dropped by the service, more than maxDroppedPercent 10 \(.*; rows 2, 3\)\. /,
    );
    // Run again with the guard relaxed: it converges on the same order, with no duplicate (the
    // do-not-mail recipient stays on the order, marked, as the service keeps it).
    await recipients.create(await checked({ orderId: guarded, recipients: rows, maxDroppedPercent: 60 }));
    const names = (await liveRecipients(guarded)).map((r) => r.personal.firstName).sort();
    expect(names).toEqual(["Ada1", "Ada2", "Ada4"]);
  });

  it("an interrupted create converges on rerun: no duplicate and no lost recipient", async () => {
    const orderId = await newOrder();
    // The first run got two recipients in before it stopped, and its result never reached the state.
    await recipients.create(await checked({ orderId, recipients: [recipient(1), recipient(2)] }));
    const { outs } = await recipients.create(
      await checked({ orderId, recipients: [recipient(1), recipient(2), recipient(3), recipient(4)] }),
    );
    expect(outs.acceptedCount).toBe(4);
    const names = (await liveRecipients(orderId)).map((r) => r.personal.firstName).sort();
    expect(names).toEqual(["Ada1", "Ada2", "Ada3", "Ada4"]);
  });

  it("an append whose answer is lost (reset after it took effect, or a 5xx) is not repeated; the rerun converges", async () => {
    const orderId = await newOrder();
    const rows = [recipient(21), recipient(22), recipient(23)];
    await sb.control.addFault({
      method: "PUT",
      path: `/v1/order/${orderId}/recipients`,
      kind: "reset",
      after: true,
      times: 1,
    });
    await expect(recipients.create(await checked({ orderId, recipients: rows }))).rejects.toThrow();
    expect(await liveRecipients(orderId)).toHaveLength(3); // it took effect once, and was not sent again
    await sb.control.addFault({
      method: "PUT",
      path: `/v1/order/${orderId}/recipients`,
      kind: "status",
      status: 503,
      times: 1,
    });
    const more = [...rows, recipient(24)];
    await expect(recipients.create(await checked({ orderId, recipients: more }))).rejects.toThrow();
    const { outs } = await recipients.create(await checked({ orderId, recipients: more }));
    expect(outs.acceptedCount).toBe(4);
    const names = (await liveRecipients(orderId)).map((r) => r.personal.firstName).sort();
    expect(names).toEqual(["Ada21", "Ada22", "Ada23", "Ada24"]);
  });

  it("an interrupted update converges too: the order is read back when it differs from the record", async () => {
    const orderId = await newOrder();
    const first = await recipients.create(await checked({ orderId, recipients: [recipient(1)] }));
    const wanted = await checked({ orderId, recipients: [recipient(1), recipient(2), recipient(3)] });
    // Part of the update happened (recipient 2 appended) but the state kept the old record.
    await recipients.create(await checked({ orderId, recipients: [recipient(1), recipient(2)] }));
    const { outs } = await recipients.update(String(orderId), first.outs, wanted);
    expect(outs.acceptedCount).toBe(3);
    expect((await liveRecipients(orderId)).map((r) => r.personal.firstName).sort()).toEqual([
      "Ada1",
      "Ada2",
      "Ada3",
    ]);
  });

  it("refresh reports recipients removed or added elsewhere, and the next update puts the declared set back", async () => {
    const orderId = await newOrder();
    const declared = await checked({ orderId, recipients: [recipient(11), recipient(12), recipient(13)] });
    const { outs } = await recipients.create(declared);
    const live = await liveRecipients(orderId);
    await client.deleteRecipients(orderId, [live[0]?.id as number]);
    await client.appendRecipients(orderId, [
      newOrderRecipient({
        address: { address1: "9 Elm St", city: "Springfield", state: "IL", zipCode: "62701" },
        personal: { firstName: "Outsider" },
      }),
    ]);
    const read = await recipients.read(String(orderId), outs);
    expect(read.props).toMatchObject({ acceptedCount: 2, unmanagedCount: 1 });
    expect(read.props?.digest).not.toBe(declared.digest);
    const diff = await recipients.diff(String(orderId), read.props, declared);
    expect(diff.changes).toBe(true);
    const { outs: healed } = await recipients.update(String(orderId), read.props, declared);
    expect(healed).toMatchObject({ acceptedCount: 3, unmanagedCount: 1 });
    expect(await liveRecipients(orderId)).toHaveLength(4);
  });

  /** A customer of a keyed list: `C-<n>` at 20<n> Main St (addresses no other test uses). */
  const customer = (n: number, extra: Record<string, string> = {}): Record<string, string> => ({
    customerId: `C-${n}`,
    ...recipient(n, { address1: `${200 + n} Main St` }),
    ...extra,
  });
  /** The live recipients by key column value, as comparable text: name, address, custom1. */
  async function liveByCustomer(orderId: number, keyed: Map<string, string>) {
    const out: Record<string, string> = {};
    for (const r of await liveRecipients(orderId)) {
      const id = keyed.get((r.metadata.custom6 ?? "").slice(0, 16)) ?? "unmanaged";
      out[id] =
        `${r.personal.firstName} ${r.personal.lastName}, ${r.address.address1}, ${r.metadata.custom1 ?? ""}`;
    }
    return out;
  }
  const keyOfCustomer = (n: number) =>
    createHash("sha256").update(`column:C-${n}`).digest("hex").slice(0, 16);
  const customers = new Map([1, 2, 3, 4, 5, 6].map((n) => [keyOfCustomer(n), `C-${n}`]));

  it("under a key column, a changed address, name or merge field changes the plan and replaces that recipient, alone or with other rows changing", async () => {
    const orderId = await newOrder();
    const rows = [1, 2, 3, 4].map((n) => customer(n, { custom1: "10% off" }));
    const first = await checked({ orderId, file: csv("keyed.csv", rows), keyColumn: "customerId" });
    const { outs } = await recipients.create(first);
    const idsBefore = (await liveRecipients(orderId)).map((r) => r.id);

    // Only C-2's address changes.
    const moved = rows.map((r) => (r.customerId === "C-2" ? { ...r, address1: "9 Elm St" } : r));
    const second = await checked({ orderId, file: csv("keyed.csv", moved), keyColumn: "customerId" });
    expect(second.digest).not.toBe(first.digest);
    expect(await recipients.diff(String(orderId), outs, second)).toEqual({
      changes: true,
      deleteBeforeReplace: true,
    });
    const { result, requests } = await countingRequests(() =>
      recipients.update(String(orderId), outs, second),
    );
    const ops = requests.map((r) => r.operationId);
    expect(ops.filter((op) => op === "deleteRecipients")).toHaveLength(1);
    expect(ops.filter((op) => op === "appendRecipients")).toHaveLength(1);
    expect(await liveByCustomer(orderId, customers)).toEqual({
      "C-1": "Ada1 Lovelace, 201 MAIN ST, 10% off",
      "C-2": "Ada2 Lovelace, 9 ELM ST, 10% off",
      "C-3": "Ada3 Lovelace, 203 MAIN ST, 10% off",
      "C-4": "Ada4 Lovelace, 204 MAIN ST, 10% off",
    });
    const idsAfter = (await liveRecipients(orderId)).map((r) => r.id);
    expect(idsAfter.filter((id) => idsBefore.includes(id))).toHaveLength(3);
    expect(await recipients.diff(String(orderId), result.outs, second)).toEqual({ changes: false });

    // In one edit: C-1's name and C-3's merge field change, C-4 leaves, C-5 arrives.
    const edited = [
      { ...moved[0], firstName: "Augusta" },
      moved[1],
      { ...moved[2], custom1: "20% off" },
      customer(5, { custom1: "10% off" }),
    ];
    const third = await checked({
      orderId,
      file: csv("keyed.csv", edited as never),
      keyColumn: "customerId",
    });
    expect(await recipients.diff(String(orderId), result.outs, third)).toEqual({
      changes: true,
      deleteBeforeReplace: true,
    });
    const { outs: last } = await recipients.update(String(orderId), result.outs, third);
    expect(last).toMatchObject({ declaredCount: 4, acceptedCount: 4, droppedCount: 0 });
    expect(await liveByCustomer(orderId, customers)).toEqual({
      "C-1": "Augusta Lovelace, 201 MAIN ST, 10% off",
      "C-2": "Ada2 Lovelace, 9 ELM ST, 10% off",
      "C-3": "Ada3 Lovelace, 203 MAIN ST, 20% off",
      "C-5": "Ada5 Lovelace, 205 MAIN ST, 10% off",
    });
  });

  it("the plan names the recipients it adds and changes by their key, counts those it removes, and shows no name or address", async () => {
    const orderId = await newOrder();
    const rows = [1, 2, 3, 4, 5, 6, 7, 8].map((n) => customer(n));
    const first = await checked({ orderId, file: csv("named.csv", rows), keyColumn: "customerId" });
    const { outs } = await recipients.create(first);
    // C-2 and C-4 move, C-8 leaves, seven arrive; one of them has a key that needs quotes.
    const arriving = [9, 10, 11, 12, 13, 14, 15].map((n) =>
      customer(n, n === 10 ? { customerId: 'C 10, "west"' } : {}),
    );
    const edited = [
      ...rows
        .filter((r) => r.customerId !== "C-8")
        .map((r) => (["C-2", "C-4"].includes(r.customerId as string) ? { ...r, address1: "9 Elm St" } : r)),
      ...arriving,
    ];
    const next = await checked({ orderId, file: csv("named.csv", edited), keyColumn: "customerId" });
    const said = (line: string) => `[directmail] Recipients of order ${orderId}: ${line}\n`;
    const { result, requests } = await countingRequests(() =>
      printedBy(() => recipients.diff(String(orderId), outs, next)),
    );
    expect(result).toBe(
      said("planned: 7 added, 1 removed, 2 changed") +
        said('added (customerId): C-9, "C 10, \\"west\\"", C-11, C-12, C-13 and 2 more') +
        said("changed (customerId): C-2, C-4") +
        said("removed: 1, not named: the stack records a hash of each customerId, not its value"),
    );
    expect(requests.map((r) => r.operationId)).toEqual(["listOrders"]);
    for (const row of [...rows, ...edited]) {
      for (const field of ["firstName", "lastName", "address1", "city"])
        expect(result).not.toContain(row[field]);
    }

    // Without a key column, the rows of the file; a changed row is one removed and one added.
    const plain = [1, 2, 3, 4, 5, 6, 7, 8].map((n) => recipient(n));
    const unkeyed = await recipients.create(await checked({ orderId: await newOrder(), recipients: plain }));
    const changedList = await checked({
      orderId: unkeyed.outs.orderId,
      recipients: [
        ...plain.slice(0, 7),
        recipient(20),
        { ...(plain[7] as Record<string, string>), city: "Chicago" },
      ],
    });
    const printed = await printedBy(() =>
      recipients.diff(String(unkeyed.outs.orderId), unkeyed.outs, changedList),
    );
    expect(printed).toBe(
      [
        "planned: 2 added, 1 removed, 0 changed",
        "added: rows 8, 9 of the inline list",
        "removed: 1, not named: the stack records a hash of each recipient, never their details",
      ]
        .map((line) => `[directmail] Recipients of order ${unkeyed.outs.orderId}: ${line}\n`)
        .join(""),
    );
  });

  it("an update interrupted after a replacement took effect converges on rerun, with no duplicate", async () => {
    const orderId = await newOrder();
    const before = await checked({
      orderId,
      recipients: [customer(1), customer(2)],
      keyColumn: "customerId",
    });
    const { outs } = await recipients.create(before);
    const after = await checked({
      orderId,
      recipients: [customer(1, { address1: "7 Oak Ave" }), customer(2)],
      keyColumn: "customerId",
    });
    // The replacement happened, but its result never reached the state.
    await recipients.update(String(orderId), outs, after);
    const { outs: rerun } = await recipients.update(String(orderId), outs, after);
    expect(rerun).toMatchObject({ acceptedCount: 2, unmanagedCount: 0 });
    expect(await liveRecipients(orderId)).toHaveLength(2);
    expect(await liveByCustomer(orderId, customers)).toEqual({
      "C-1": "Ada1 Lovelace, 7 OAK AVE, ",
      "C-2": "Ada2 Lovelace, 202 MAIN ST, ",
    });
  });

  /** Elsewhere: the recipient of this first name deleted and added again with its identity value, at another address. */
  async function moveElsewhere(orderId: number, firstName: string) {
    const target = (await liveRecipients(orderId)).find((r) => r.personal.firstName === firstName);
    if (!target) throw new Error(`${firstName} is not on order ${orderId}`);
    await client.deleteRecipients(orderId, [target.id]);
    await client.appendRecipients(orderId, [
      newOrderRecipient({
        address: { ...target.address, address1: "66 Elsewhere Rd" },
        personal: target.personal,
        metadata: { custom6: target.metadata.custom6 },
      }),
    ]);
  }

  it("refresh notices a recipient changed elsewhere, and the next update puts the declared one back", async () => {
    for (const keyColumn of ["customerId", undefined]) {
      const orderId = await newOrder();
      const declared = await checked({
        orderId,
        recipients: keyColumn
          ? [customer(1), customer(2)]
          : [1, 2].map((n) => recipient(n, { address1: `${200 + n} Main St` })),
        ...(keyColumn ? { keyColumn } : {}),
      });
      const { outs } = await recipients.create(declared);
      await moveElsewhere(orderId, "Ada2");
      const read = await recipients.read(String(orderId), outs);
      expect(read.props?.digest).not.toBe(declared.digest);
      expect(await recipients.diff(String(orderId), read.props, declared)).toEqual({
        changes: true,
        deleteBeforeReplace: true,
      });
      const { outs: healed } = await recipients.update(String(orderId), read.props, declared);
      expect(healed).toMatchObject({ acceptedCount: 2, unmanagedCount: 0 });
      const addresses = (await liveRecipients(orderId)).map((r) => r.address.address1).sort();
      expect(addresses, String(keyColumn)).toEqual(["201 MAIN ST", "202 MAIN ST"]);
    }
  });

  it("a version 2 record (listed hashes of an earlier function): refresh changes nothing, then notices a change elsewhere", async () => {
    const orderId = await newOrder();
    const declared = await checked({
      orderId,
      recipients: [customer(1), customer(2)],
      keyColumn: "customerId",
    });
    const { outs } = await recipients.create(declared);
    // The same entries with other listed hashes, as version 2 wrote them: 24-byte records.
    const olds = { ...outs, index: indexRecords(decodeIndex(outs.index, true), "v2", 12_345) };

    const { result: read, requests } = await countingRequests(() => recipients.read(String(orderId), olds));
    expect(requests.map((r) => r.operationId)).toEqual(["listOrders", "listRecipients"]);
    expect(read.props?.digest).toBe(declared.digest);
    expect(read.props?.index.startsWith("v4.")).toBe(true);
    expect(await recipients.diff(String(orderId), read.props, declared)).toEqual({ changes: false });
    expect(await liveByCustomer(orderId, customers)).toEqual({
      "C-1": "Ada1 Lovelace, 201 MAIN ST, ",
      "C-2": "Ada2 Lovelace, 202 MAIN ST, ",
    });

    // The hashes recorded by that refresh notice an edit made at the service afterwards.
    await moveElsewhere(orderId, "Ada2");
    const again = await recipients.read(String(orderId), read.props);
    expect(again.props?.digest).not.toBe(declared.digest);
  });

  it("a record of an earlier version under a key column: the first update replaces only the rows that differ from the order", async () => {
    const orderId = await newOrder();
    const spelled = (n: number) => customer(n, { address1: `${200 + n} Main Street`, state: "Illinois" });
    // Appended by the earlier version: the key alone in the identity field, a version 1 index.
    await client.appendRecipients(
      orderId,
      [1, 2, 3].map((n) => {
        const { customerId: _, firstName, lastName, ...address } = spelled(n);
        return newOrderRecipient({
          address,
          personal: { firstName, lastName },
          metadata: { custom6: keyOfCustomer(n) },
        });
      }),
    );
    const live = await liveRecipients(orderId);
    const ids = new Map(live.map((r) => [r.metadata.custom6 as string, r.id]));
    const keys = [...ids.keys()].sort();
    const entries = Buffer.alloc(keys.length * 12);
    keys.forEach((key, i) => {
      entries.write(key, i * 12, 8, "hex");
      entries.writeUInt32BE(ids.get(key) as number, i * 12 + 8);
    });
    const digest = createHash("sha256").update("identity:custom6\n");
    for (const key of keys) digest.update(`${key}\n`);
    // C-2 moved in the file, a change the earlier version never sent.
    const rows = [spelled(1), spelled(2), spelled(3)].map((r) =>
      r.customerId === "C-2" ? { ...r, address1: "12 Birch Lane" } : r,
    );
    const news = await checked({ orderId, file: csv("legacy.csv", rows), keyColumn: "customerId" });
    const olds = {
      ...news,
      digest: digest.digest("hex"),
      index: `v1.${gzipSync(entries).toString("base64")}`,
      acceptedCount: 3,
      droppedCount: 0,
      unmanagedCount: 0,
      dropReasons: {},
      droppedSample: [],
      imageIssueSample: [],
      orderStatus: "Draft",
    };
    expect(await recipients.diff(String(orderId), olds, news)).toEqual({
      changes: true,
      deleteBeforeReplace: true,
    });
    const { result, requests } = await countingRequests(() => recipients.update(String(orderId), olds, news));
    const deletes = requests.filter((r) => r.operationId === "deleteRecipients");
    expect(deletes).toHaveLength(1);
    expect(requests.filter((r) => r.operationId === "appendRecipients")).toHaveLength(1);
    expect(await liveByCustomer(orderId, customers)).toEqual({
      "C-1": "Ada1 Lovelace, 201 MAIN ST, ",
      "C-2": "Ada2 Lovelace, 12 BIRCH LN, ",
      "C-3": "Ada3 Lovelace, 203 MAIN ST, ",
    });
    // C-1 and C-3 kept their recipients: only C-2 was replaced.
    const after = await liveRecipients(orderId);
    expect(after.filter((r) => [...ids.values()].includes(r.id))).toHaveLength(2);
    expect(result.outs.index.startsWith("v4.")).toBe(true);
    expect(await recipients.diff(String(orderId), result.outs, news)).toEqual({ changes: false });

    // On an order past Draft the record cannot be checked, and nothing can change: no change, no error.
    await sb.control.setOrderState(orderId, { apiKey, status: "Paid" });
    expect(await recipients.diff(String(orderId), olds, news)).toEqual({ changes: false });
  });

  it("a change on an order past Draft fails the plan with a clear message; delete removes the recipients of a draft and leaves those of a paid order", async () => {
    const orderId = await newOrder();
    const { outs } = await recipients.create(
      await checked({ orderId, recipients: [recipient(1), recipient(2)] }),
    );
    await recipients.delete(String(orderId), outs);
    expect(await liveRecipients(orderId)).toEqual([]);

    const paid = await newOrder();
    const created = await recipients.create(await checked({ orderId: paid, recipients: [recipient(1)] }));
    await sb.control.setOrderState(paid, { apiKey, status: "Paid" });
    const changed = await checked({ orderId: paid, recipients: [recipient(1), recipient(2)] });
    await expect(recipients.diff(String(paid), created.outs, changed)).rejects.toThrow(
      `Order ${paid} is "Paid": its recipients cannot change`,
    );
    expect(await printedBy(() => recipients.delete(String(paid), created.outs))).toBe(
      `[directmail] Order ${paid} is "Paid": its recipients stay at the service and leave this stack\n`,
    );
    expect(await liveRecipients(paid)).toHaveLength(1);
  });
});
