/**
 * How the sandbox keeps recipients: the order's recipient count, listing pages read from remembered
 * boundaries, the narrow stored row (and files of the earlier layout), and the request body taken
 * as it stands when it is exactly what its schema's parse would return.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { DatabaseSync } from "node:sqlite";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { endpoints } from "../../provider/api/endpoints";
import {
  AppendRecipientsRequest,
  AppendRecipientsResponse,
  type OrderRecipient,
} from "../../provider/api/schemas";
import { exactCheck, exactDepth } from "../../provider/api/schemas/exact-check";
import { MAX_JSON_DEPTH } from "../../sandbox/assumptions";
import { parseWith } from "../../sandbox/http/zod";
import { Sandbox } from "../../sandbox/sandbox";
import { type RecipientRow, recipientSearchText, unpackRecipient } from "../../sandbox/storage/rows";
import { startTestSandbox, type TestSandbox } from "../support/sandbox";
import { type Account, newAccount, newOrder, parsed } from "./fixtures";
import { recipient, recipients } from "./http";

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(() => sb.close());

const ids = (rs: { id: number }[]) => rs.map((r) => r.id);

/** How deep a JSON value nests arrays and objects (a text or number is 0). */
const depthOf = (value: unknown): number =>
  typeof value === "object" && value !== null
    ? 1 + Math.max(0, ...Object.values(value).map((item) => depthOf(item)))
    : 0;

/** Every recipient of the order (one page of 1,000, which starts at offset 0), with a search. */
async function all(a: Account, orderId: number, search = ""): Promise<OrderRecipient[]> {
  const r = await a.c.get(`/v1/order/${orderId}/recipients?pageSize=1000${search && `&search=${search}`}`);
  expect(r.status).toBe(200);
  return r.json.payload.recipients;
}

/** Pages 1..n of the listing are the slices of the whole, byte for byte. */
async function expectPages(a: Account, orderId: number, pageSize: number, search = "") {
  const whole = await all(a, orderId, search);
  const pages = Math.ceil(whole.length / pageSize) + 1;
  for (let page = 1; page <= pages; page++) {
    const r = await a.c.get(
      `/v1/order/${orderId}/recipients?pageSize=${pageSize}&pageNumber=${page}${search && `&search=${search}`}`,
    );
    expect(JSON.stringify(r.json.payload.recipients), `page ${page} of ${pageSize}`).toBe(
      JSON.stringify(whole.slice((page - 1) * pageSize, page * pageSize)),
    );
  }
  return whole;
}

describe("the order's recipient count", () => {
  test("follows appends and deletes: do-not-mail recipients count, duplicates and invalid ones are not kept", async () => {
    const a = await newAccount(sb);
    await sb.control.addDoNotMail({
      apiKey: a.apiKey,
      address1: "77 Quiet Lane",
      city: "Springfield",
      state: "IL",
      zip: "62701",
    });
    const orderId = await newOrder(a);
    const put = async (batch: unknown[]) =>
      parsed(
        AppendRecipientsResponse,
        await a.c.put(`/v1/order/${orderId}/recipients`, { recipients: batch }),
      ).payload;
    const [first] = recipients(1);
    const one = await put([
      ...recipients(5),
      first,
      recipient({ address1: "Nowhere" }),
      recipient({ firstName: "Q", address1: "77 quiet ln" }),
    ]);
    expect(one.totalRecipients).toBe(6);
    const kept = ids(await all(a, orderId));
    expect(kept).toHaveLength(6);
    const deleted = await a.c.del(`/v1/order/${orderId}/recipients`, {
      recipientIds: [kept[0], kept[5], 424242],
    });
    expect(deleted.json.payload.deletedRecipients).toBe(2);
    const two = await put(recipients(3, 100));
    expect(two.totalRecipients).toBe(7);
    expect(await all(a, orderId)).toHaveLength(7);
    const listed = (await a.c.get(`/v1/order?id=${orderId}`)).json.payload.orders[0];
    expect(listed.recipientCount).toBe(7);
  });
});

describe("listing pages", () => {
  test("are the slices of the whole listing after deletes at and around page boundaries, appends and searches", async () => {
    const a = await newAccount(sb);
    const orderId = await newOrder(a, 25);
    await expectPages(a, orderId, 10);
    await expectPages(a, orderId, 7);
    await expectPages(a, orderId, 10, "oak");
    let whole = await all(a, orderId);
    // The first row, the last of page 1, the first of page 2, one inside page 2.
    const gone = [0, 9, 10, 15].map((i) => whole[i]?.id as number);
    await a.c.del(`/v1/order/${orderId}/recipients`, { recipientIds: gone });
    whole = await expectPages(a, orderId, 10);
    expect(whole).toHaveLength(21);
    expect(ids(whole)).not.toContain(gone[1]);
    await expectPages(a, orderId, 10, "oak");
    await a.c.put(`/v1/order/${orderId}/recipients`, { recipients: recipients(6, 200) });
    whole = await expectPages(a, orderId, 10);
    expect(whole).toHaveLength(27);
    // A page read without the pages before it, after a delete of a row before it.
    await a.c.del(`/v1/order/${orderId}/recipients`, { recipientIds: [whole[3]?.id as number] });
    const page3 = await a.c.get(`/v1/order/${orderId}/recipients?pageSize=10&pageNumber=3`);
    expect(ids(page3.json.payload.recipients)).toEqual(ids((await all(a, orderId)).slice(20, 30)));
  });

  test("are right for an order that takes the id of one from before a reset", async () => {
    const own = await startTestSandbox();
    try {
      const before = await newAccount(own);
      const orderId = await newOrder(before, 12);
      await expectPages(before, orderId, 5);
      await own.control.reset();
      const after = await newAccount(own);
      const again = await newOrder(after);
      expect(again).toBe(orderId);
      // Recipient ids start again too: another order takes the first ones, so this order's rows
      // sit at other ids than before the reset.
      await newOrder(after, 3);
      await after.c.put(`/v1/order/${again}/recipients`, { recipients: recipients(7) });
      // Page 2 first: what page 1 would remember of this order is not there to hide an old boundary.
      const whole = await all(after, again);
      const page2 = await after.c.get(`/v1/order/${again}/recipients?pageSize=5&pageNumber=2`);
      expect(ids(page2.json.payload.recipients)).toEqual(ids(whole.slice(5, 10)));
      await expectPages(after, again, 5);
      expect(whole).toHaveLength(7);
    } finally {
      await own.close();
    }
  });
});

describe("stored rows", () => {
  test("a file of the earlier layout (whole JSON, a search column, no counts) opens and answers the same", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sandbox-rows-"));
    const file = path.join(dir, "sandbox.db");
    try {
      let sandbox = new Sandbox({ storage: file, requestLog: false });
      const { account } = sandbox.accounts.create({ email: "rows@sandbox.test" });
      const template = sandbox.templates.create(account.id, { name: "T", product: "Handwritten Postcard" });
      const orderId = sandbox.orders.create(account.id, { templateId: template.id }).orderId;
      const batch = AppendRecipientsRequest.parse({
        recipients: [
          ...recipients(4),
          recipient({
            firstName: "Edsger",
            lastName: "Dijkstra",
            toOrganization: "Eindhoven University",
            address1: "3 main st",
            address2: "suite 2",
            custom1: "Gold",
            qrUrl: "https://qr.example.com/e",
          }),
        ],
      }).recipients;
      sandbox.recipients.append(account.id, orderId, batch);
      const listing = (search?: string) =>
        JSON.stringify(
          sandbox.recipients.list(account.id, orderId, { search, pageNumber: 1, pageSize: 100 }),
        );
      const expected = { all: listing(), search: listing("eindhoven") };
      expect(JSON.parse(expected.search).recipients).toHaveLength(1);
      sandbox.close();

      // Back to the earlier layout: the whole wire object as JSON, the search text in a column.
      const db = new DatabaseSync(file);
      db.exec("ALTER TABLE recipients ADD COLUMN search TEXT NOT NULL DEFAULT ''");
      for (const row of db.prepare("SELECT * FROM recipients").all() as unknown as RecipientRow[]) {
        const { address, personal, metadata } = unpackRecipient(row);
        const set = Object.fromEntries(Object.entries(metadata).filter(([, v]) => v !== null));
        db.prepare("UPDATE recipients SET data = ?, search = ? WHERE id = ?").run(
          JSON.stringify({ address, personal, metadata: set }),
          recipientSearchText(row),
          row.id,
        );
      }
      db.exec("ALTER TABLE orders DROP COLUMN recipient_count");
      db.exec("ALTER TABLE orders DROP COLUMN deleted_recipients");
      expect((db.prepare("SELECT data FROM recipients LIMIT 1").get() as { data: string }).data).toMatch(
        /^\{/,
      );
      db.close();

      sandbox = new Sandbox({ storage: file, requestLog: false });
      expect(listing()).toBe(expected.all);
      expect(listing("eindhoven")).toBe(expected.search);
      const more = sandbox.recipients.append(
        account.id,
        orderId,
        AppendRecipientsRequest.parse({
          recipients: recipients(2, 50),
        }).recipients,
      );
      expect(more.totalRecipients).toBe(7);
      expect(
        sandbox.recipients.deliveryStatusOf(account.id, orderId, { address1: "3 Main Street" }),
      ).toMatchObject({
        firstName: "Edsger",
        address1: "3 MAIN ST",
      });
      sandbox.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("request bodies taken as they stand", () => {
  const valid = () => JSON.parse(JSON.stringify({ recipients: recipients(3) }));

  test("the append body has an exact check, and a valid body is returned without a copy", () => {
    const body = valid();
    expect(exactCheck(AppendRecipientsRequest)).not.toBeNull();
    expect(parseWith(AppendRecipientsRequest, body)).toBe(body);
  });

  test("a body its schema takes as it stands nests as deep as the schema says, far below the limit", () => {
    // The body parser skips its depth walk for such a body (sandbox/http/app.ts): each schema with
    // an exact check has a depth, and one without has none.
    expect(exactDepth(AppendRecipientsRequest)).toBe(4);
    expect(depthOf(valid())).toBe(4);
    for (const def of Object.values(endpoints) as { body?: unknown }[]) {
      if (!def.body) continue;
      const schema = def.body as typeof AppendRecipientsRequest;
      if (exactCheck(schema)) expect(exactDepth(schema)).toBeLessThanOrEqual(MAX_JSON_DEPTH);
      else expect(exactDepth(schema)).toBe(Number.POSITIVE_INFINITY);
    }
  });

  test("a body with its keys in another order, or an unknown key, goes through zod: the output is the schema's", () => {
    const body = valid();
    const [first] = body.recipients;
    const { address1, ...rest } = first.address;
    first.address = { ...rest, address1 };
    first.personal.nickname = "Al";
    const out = parseWith(AppendRecipientsRequest, body);
    expect(out).not.toBe(body);
    expect(Object.keys(out.recipients[0]?.address ?? {})[0]).toBe("address1");
    expect(out.recipients[0]?.personal).not.toHaveProperty("nickname");
  });

  test("whatever the check accepts, zod accepts with the same value, key order included", () => {
    // Mutations of a valid body: values of other types, keys removed, added or moved, lengths.
    const odd = fc.oneof(
      fc.constant(null),
      fc.constant(undefined),
      fc.string({ maxLength: 3 }),
      fc.integer(),
      fc.double(),
      fc.constant(2 ** 31),
      fc.constant(-1),
      fc.boolean(),
      fc.constant([]),
      fc.constant({}),
    );
    const mutate = (body: any, path: string[], value: unknown, how: "set" | "delete" | "move") => {
      let at = body;
      for (const key of path.slice(0, -1)) at = at?.[key];
      const last = path.at(-1) as string;
      if (at === null || typeof at !== "object") return;
      if (how === "set") at[last] = value;
      else if (how === "delete") delete at[last];
      else if (last in at) {
        const moved = at[last];
        delete at[last];
        at[last] = moved;
      }
    };
    const paths = [
      ["recipients"],
      ["recipients", "0"],
      ["recipients", "1", "id"],
      ["recipients", "0", "address"],
      ["recipients", "0", "address", "city"],
      ["recipients", "2", "address", "address1"],
      ["recipients", "1", "personal", "firstName"],
      ["recipients", "0", "metadata", "text"],
      ["recipients", "0", "metadata", "custom3"],
      ["recipients", "2", "metadata", "deliveryStatus"],
      ["recipients", "1", "extra"],
      ["extra"],
    ];
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            path: fc.constantFrom(...paths),
            value: odd,
            how: fc.constantFrom("set" as const, "delete" as const, "move" as const),
          }),
          { maxLength: 3 },
        ),
        (mutations) => {
          const body = valid();
          for (const m of mutations) mutate(body, m.path, m.value, m.how);
          const check = exactCheck(AppendRecipientsRequest);
          if (!check?.(body)) return;
          const result = AppendRecipientsRequest.safeParse(body);
          expect(result.success).toBe(true);
          expect(JSON.stringify(result.data)).toBe(JSON.stringify(body));
          expect(depthOf(body)).toBeLessThanOrEqual(exactDepth(AppendRecipientsRequest));
        },
      ),
      { numRuns: 300 },
    );
  });
});
