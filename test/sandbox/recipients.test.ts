import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  AppendRecipientsResponse,
  DeleteRecipientsResponse,
  RecipientDeliveryStatusResponse,
  RecipientListResponse,
} from "../../provider/api/schemas";
import { startTestSandbox, type TestSandbox } from "../support/sandbox";
import { CHECKOUT, expectError, newAccount, newOrder, parsed } from "./fixtures";
import { recipient, recipients } from "./http";

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(() => sb.close());

describe("PUT /v1/order/{id}/recipients (entry 5)", () => {
  test("appends standardized recipients and keeps existing ones; the :append alias behaves the same", async () => {
    const a = await newAccount(sb);
    const orderId = await newOrder(a);
    const first = parsed(
      AppendRecipientsResponse,
      await a.c.put(`/v1/order/${orderId}/recipients`, {
        recipients: [
          recipient({
            firstName: "Ada",
            address1: "12 north main street",
            address2: "apartment 4",
            city: "springfield",
            state: "Illinois",
            zipCode: "62701-1234",
          }),
        ],
      }),
    ).payload;
    expect(first).toMatchObject({
      orderId,
      status: "Success",
      totalRecipients: 1,
      submittedRecipients: 1,
      acceptedRecipients: 1,
      droppedRecipients: 0,
    });
    const second = parsed(
      AppendRecipientsResponse,
      await a.c.put(`/v1/order/${orderId}/recipients:append`, { recipients: recipients(2) }),
    ).payload;
    expect(second).toMatchObject({ totalRecipients: 3, submittedRecipients: 2, acceptedRecipients: 2 });

    const listed = parsed(RecipientListResponse, await a.c.get(`/v1/order/${orderId}/recipients`)).payload
      .recipients;
    expect(listed).toHaveLength(3);
    const ada = listed[0];
    expect(ada?.id).toBeGreaterThan(0);
    expect(ada?.address).toEqual({
      address1: "12 N MAIN ST",
      address2: "APT 4",
      city: "SPRINGFIELD",
      state: "IL",
      zipCode: "62701",
      zip4: "1234",
      zip2: "12",
      country: "US",
    });
    expect(ada?.metadata.dpvConfirmationCode).toBe("Y");
    expect(ada?.metadata.fullAddress).toBe("12 N MAIN ST APT 4, SPRINGFIELD, IL 62701-1234");
    expect(ada?.metadata.deliveryStatus).toBeNull();
  });

  test("standardizes each word in its place: the suffix, the directionals, the unit designators", async () => {
    const a = await newAccount(sb);
    const orderId = await newOrder(a);
    const lines: [string, string | undefined, string, string | null][] = [
      ["58 Gull Point Road", undefined, "58 GULL POINT RD", null],
      ["7 Avenue Road", undefined, "7 AVENUE RD", null],
      ["9 North Road", undefined, "9 NORTH RD", null],
      ["100 Main Street North", "Suite 200", "100 MAIN ST N", "STE 200"],
      ["5 Suite Street Apartment 4", undefined, "5 SUITE ST APT 4", null],
    ];
    await a.c.put(`/v1/order/${orderId}/recipients`, {
      recipients: lines.map(([address1, address2], i) =>
        recipient({ firstName: `R${i}`, address1, address2 }),
      ),
    });
    const listed = parsed(RecipientListResponse, await a.c.get(`/v1/order/${orderId}/recipients`)).payload
      .recipients;
    expect(listed.map((r) => [r.address.address1, r.address.address2])).toEqual(
      lines.map(([, , address1, address2]) => [address1, address2]),
    );
  });

  test("at most 5,000 recipients per request: 5,000 pass, 5,001 are a 400 that changes nothing", async () => {
    const a = await newAccount(sb);
    const orderId = await newOrder(a);
    const tooMany = await a.c.put(`/v1/order/${orderId}/recipients`, { recipients: recipients(5001) });
    const { errors } = expectError(tooMany, 400);
    expect(errors).toMatch(/^recipients: .*5000/m);
    expect((await a.c.get(`/v1/order?id=${orderId}`)).json.payload.orders[0].recipientCount).toBe(0);
    const ok = parsed(
      AppendRecipientsResponse,
      await a.c.put(`/v1/order/${orderId}/recipients`, { recipients: recipients(5000) }),
    );
    expect(ok.payload.acceptedRecipients).toBe(5000);
    expect(ok.payload.totalRecipients).toBe(5000);
  });

  test("a recipient missing a required key is a 400 naming it by index", async () => {
    const a = await newAccount(sb);
    const orderId = await newOrder(a);
    const bad = recipient() as any;
    delete bad.address.zip4;
    bad.personal.firstName = 7;
    const { errors } = expectError(
      await a.c.put(`/v1/order/${orderId}/recipients`, { recipients: [recipient(), bad] }),
      400,
    );
    expect(errors).toMatch(/^recipients\[1\]\.address\.zip4: /m);
    expect(errors).toMatch(/^recipients\[1\]\.personal\.firstName: /m);
  });

  test("invalid addresses are dropped with reasons; D and S codes are kept as addressInvalidated", async () => {
    const a = await newAccount(sb);
    const orderId = await newOrder(a);
    const batch = [
      recipient({ firstName: "Ok", address1: "1 Elm St" }),
      recipient({ firstName: "NoNumber", address1: "Elm Street" }),
      recipient({ firstName: "BadState", address1: "2 Elm St", state: "XX" }),
      recipient({ firstName: "BadZip", address1: "3 Elm St", zipCode: "123" }),
      recipient({ firstName: "Abroad", address1: "4 Elm St", country: "France" }),
      recipient({ firstName: "Towers", address1: "5 Harbor Towers" }),
      recipient({ firstName: "Unit", address1: "6 Elm St", address2: "back door" }),
    ];
    const body = parsed(
      AppendRecipientsResponse,
      await a.c.put(`/v1/order/${orderId}/recipients`, { recipients: batch }),
    ).payload;
    expect(body).toMatchObject({
      submittedRecipients: 7,
      acceptedRecipients: 3,
      droppedRecipients: 4,
      totalRecipients: 3,
    });
    expect(body.deliverable).toEqual({ addressValidated: 1, addressInvalidated: 2 });
    expect(body.undeliverable.invalidAddress).toBe(4);
    const reasons = Object.fromEntries(
      body.undeliverable.undeliverableRecipients.map((r) => [r.personal.firstName, r.reason]),
    );
    expect(reasons.NoNumber).toMatch(/ADDRESS_NOT_VALID.*address\.address1/);
    expect(reasons.BadState).toMatch(/address\.state/);
    expect(reasons.BadZip).toMatch(/address\.zipCode/);
    expect(reasons.Abroad).toMatch(/address\.country/);
    const listed = parsed(RecipientListResponse, await a.c.get(`/v1/order/${orderId}/recipients`)).payload
      .recipients;
    expect(listed.map((r) => [r.personal.firstName, r.metadata.dpvConfirmationCode])).toEqual([
      ["Ok", "Y"],
      ["Towers", "D"],
      ["Unit", "S"],
    ]);
  });

  test("duplicates are found within the submitted batch only; the count is cumulative over the order", async () => {
    const a = await newAccount(sb);
    const orderId = await newOrder(a);
    const same = () => recipient({ firstName: "Dup", address1: "9 Birch Rd" });
    const first = parsed(
      AppendRecipientsResponse,
      await a.c.put(`/v1/order/${orderId}/recipients`, { recipients: [same(), same(), same()] }),
    ).payload;
    expect(first).toMatchObject({ acceptedRecipients: 1, droppedRecipients: 2, totalRecipients: 1 });
    expect(first.undeliverable.duplicated).toBe(2);
    expect(first.undeliverable.undeliverableRecipients.map((r) => r.reason)).toEqual([
      expect.stringMatching(/^DUPLICATE/),
      expect.stringMatching(/^DUPLICATE/),
    ]);
    // A later batch repeating an earlier recipient is not checked against it (batch-only processing)...
    const second = parsed(
      AppendRecipientsResponse,
      await a.c.put(`/v1/order/${orderId}/recipients`, {
        recipients: [same(), recipient({ address1: "10 Birch Rd" })],
      }),
    ).payload;
    expect(second).toMatchObject({ acceptedRecipients: 2, totalRecipients: 3 });
    // ...but the duplicated count is cumulative: 2 from the first batch, none new.
    expect(second.undeliverable.duplicated).toBe(2);
    const third = parsed(
      AppendRecipientsResponse,
      await a.c.put(`/v1/order/${orderId}/recipients`, { recipients: [same(), same()] }),
    ).payload;
    expect(third.undeliverable.duplicated).toBe(3);
  });

  test("addressValidated and doNotMail are cumulative over the order; addressInvalidated and invalidAddress are per batch", async () => {
    const a = await newAccount(sb);
    const orderId = await newOrder(a);
    await sb.control.addDoNotMail({
      apiKey: a.apiKey,
      address1: "77 Quiet Lane",
      city: "Springfield",
      state: "IL",
      zip: "62701",
    });
    const put = async (batch: unknown[]) =>
      parsed(
        AppendRecipientsResponse,
        await a.c.put(`/v1/order/${orderId}/recipients`, { recipients: batch }),
      ).payload;
    const one = await put([
      ...recipients(2, 1),
      recipient({ firstName: "Q", address1: "77 quiet ln" }),
      recipient({ address1: "Nowhere" }),
      recipient({ address1: "3 Grand Towers" }),
    ]);
    expect(one.deliverable).toEqual({ addressValidated: 2, addressInvalidated: 1 });
    expect(one.undeliverable).toMatchObject({ doNotMail: 1, invalidAddress: 1 });
    const two = await put([...recipients(3, 10), recipient({ firstName: "Q2", address1: "77 Quiet Lane" })]);
    expect(two.deliverable).toEqual({ addressValidated: 5, addressInvalidated: 0 });
    expect(two.undeliverable).toMatchObject({ doNotMail: 2, invalidAddress: 0, duplicated: 0 });
    expect(two.undeliverable.undeliverableRecipients.map((r) => r.reason)).toEqual([
      expect.stringMatching(/^DO_NOT_MAIL/),
    ]);
  });

  test("do-not-mail recipients stay on the order, marked, and the flags of earlier batches are not refreshed", async () => {
    const a = await newAccount(sb);
    const orderId = await newOrder(a);
    const first = parsed(
      AppendRecipientsResponse,
      await a.c.put(`/v1/order/${orderId}/recipients`, {
        recipients: [recipient({ firstName: "Early", address1: "5 Cedar Ct" })],
      }),
    ).payload;
    expect(first.undeliverable.doNotMail).toBe(0);
    await sb.control.addDoNotMail({
      apiKey: a.apiKey,
      address1: "5 Cedar Court",
      city: "Springfield",
      state: "IL",
      zip: "62701",
    });
    const second = parsed(
      AppendRecipientsResponse,
      await a.c.put(`/v1/order/${orderId}/recipients`, {
        recipients: [recipient({ firstName: "Late", address1: "5 Cedar Ct" })],
      }),
    ).payload;
    expect(second).toMatchObject({ acceptedRecipients: 0, droppedRecipients: 1, totalRecipients: 2 });
    expect(second.undeliverable.doNotMail).toBe(1);
    // Two rows on the order; only "Late" is marked, so the proof and the checkout see "Early" only.
    const preview = await a.c.get(`/v1/order/${orderId}/checkout`);
    expect(preview.json.payload.lineItems[0].quantity).toBe(1);
  });

  test("variable images are checked from the URL, never fetched; issues name field and code", async () => {
    const a = await newAccount(sb);
    const orderId = await newOrder(a);
    const batch = [
      recipient({ address1: "1 A St", image1: "https://cdn.example.com/photos/dog-1200x800.jpg" }),
      recipient({ address1: "2 A St", image1: "not a url" }),
      recipient({ address1: "3 A St", image1: "https://images.invalid/cat.png" }),
      recipient({ address1: "4 A St", image1: "https://cdn.example.com/doc.pdf" }),
      recipient({ address1: "5 A St", image1: "https://cdn.example.com/small-300x200.jpg" }),
      recipient({ address1: "6 A St", image1: "https://cdn.example.com/square.png?w=1000&h=1000" }),
      recipient({ address1: "7 A St", image1: "" }),
      recipient({ address1: "8 A St", image1: "https://cdn.example.com/404/x.jpg" }),
    ];
    const body = parsed(
      AppendRecipientsResponse,
      await a.c.put(`/v1/order/${orderId}/recipients`, { recipients: batch }),
    ).payload;
    expect(body.variableImages.summary).toEqual({
      accepted: 1,
      unsupportedOrBroken: 2,
      doesNotExist: 2,
      lowDpi: 1,
      aspectRatioMismatch: 1,
      missing: 1,
    });
    const codes = Object.fromEntries(
      body.variableImages.recipientsWithIssues.map((r) => [
        r.recipientIndex,
        r.issues.map((i) => `${i.field}:${i.code}:${i.httpStatus}`),
      ]),
    );
    expect(codes).toEqual({
      1: ["image1:IMAGE_BROKEN_LINK:0"],
      2: ["image1:IMAGE_NOT_FOUND:404"],
      3: ["image1:IMAGE_UNSUPPORTED_FORMAT:200"],
      4: ["image1:IMAGE_LOW_DPI:200"],
      5: ["image1:IMAGE_ASPECT_RATIO_MISMATCH:200"],
      6: ["image1:IMAGE_MISSING:0"],
      7: ["image1:IMAGE_NOT_FOUND:404"],
    });
    // Image issues fall back to the template default: nobody is dropped for them.
    expect(body.acceptedRecipients).toBe(8);
    // Slots nobody in the batch uses are not counted as missing.
    const plain = parsed(
      AppendRecipientsResponse,
      await a.c.put(`/v1/order/${orderId}/recipients`, { recipients: recipients(2, 50) }),
    ).payload;
    expect(plain.variableImages.summary).toEqual({
      accepted: 0,
      unsupportedOrBroken: 0,
      doesNotExist: 0,
      lowDpi: 0,
      aspectRatioMismatch: 0,
      missing: 0,
    });
  });

  test("every recipient's images are checked, dropped ones too, in each slot some recipient of the batch uses", async () => {
    const a = await newAccount(sb);
    const orderId = await newOrder(a);
    const batch = [
      // Fills no slot, but image2 is used later in the batch: missing there.
      recipient({ firstName: "Ann", address1: "1 A St" }),
      // Dropped for its address, checked all the same.
      recipient({ firstName: "Bob", address1: "No Number Street", image1: "not a url" }),
      recipient({ firstName: "Cy", address1: "3 A St", image2: "https://cdn.example.com/a-1200x800.jpg" }),
      // A duplicate of the first, dropped, checked all the same.
      recipient({
        firstName: "Ann",
        address1: "1 A Street",
        image1: "https://cdn.example.com/b-300x200.jpg",
      }),
    ];
    const body = parsed(
      AppendRecipientsResponse,
      await a.c.put(`/v1/order/${orderId}/recipients`, { recipients: batch }),
    ).payload;
    expect(body).toMatchObject({ acceptedRecipients: 2, droppedRecipients: 2 });
    expect(body.undeliverable).toMatchObject({ duplicated: 1, invalidAddress: 1 });
    expect(body.variableImages.summary).toEqual({
      accepted: 1,
      unsupportedOrBroken: 1,
      doesNotExist: 0,
      lowDpi: 1,
      aspectRatioMismatch: 0,
      missing: 5,
    });
    expect(
      body.variableImages.recipientsWithIssues.map((r) => [
        r.recipientIndex,
        r.issues.map((i) => `${i.field}:${i.code}`),
      ]),
    ).toEqual([
      [0, ["image1:IMAGE_MISSING", "image2:IMAGE_MISSING"]],
      [1, ["image1:IMAGE_BROKEN_LINK", "image2:IMAGE_MISSING"]],
      [2, ["image1:IMAGE_MISSING"]],
      [3, ["image1:IMAGE_LOW_DPI", "image2:IMAGE_MISSING"]],
    ]);
  });

  test("append is allowed in Draft and Edits Needed only; in Payment Needed, Paid and later it is 400 and changes nothing", async () => {
    const a = await newAccount(sb);
    const editsNeeded = await newOrder(a, 1);
    await sb.control.setOrderState(editsNeeded, { apiKey: a.apiKey, status: "Edits Needed" });
    expect(
      (await a.c.put(`/v1/order/${editsNeeded}/recipients`, { recipients: recipients(1, 9) })).status,
    ).toBe(200);

    const orderId = await newOrder(a, 1);
    const count = async () =>
      (await a.c.get(`/v1/order?id=${orderId}`)).json.payload.orders[0].recipientCount;
    await a.c.post(`/v1/order/${orderId}/checkout`, CHECKOUT);
    for (const expected of ["Payment Needed", "Ready For Production", "In Production", "Mailed"]) {
      const r = await a.c.put(`/v1/order/${orderId}/recipients`, { recipients: recipients(1, 100) });
      const { errors } = expectError(r, 400, "INVALID_ORDER_STATUS");
      expect(errors).toContain(`'${expected}'`);
      expect(await count()).toBe(1);
      await sb.control.advanceClock(
        expected === "Payment Needed" ? 3 : expected === "Ready For Production" ? 3600 : 3 * 86400,
      );
    }
  });
});

describe("GET /v1/order/{id}/recipients (entry 6)", () => {
  test("search filter on name, address or organization; paging", async () => {
    const a = await newAccount(sb);
    const orderId = await newOrder(a);
    await a.c.put(`/v1/order/${orderId}/recipients`, {
      recipients: [
        recipient({ firstName: "Grace", lastName: "Hopper", address1: "1 Navy Way" }),
        recipient({ firstName: "Alan", lastName: "Turing", address1: "2 Bletchley Park" }),
        recipient({
          firstName: "Edsger",
          lastName: "Dijkstra",
          toOrganization: "Eindhoven University",
          address1: "3 Main St",
        }),
      ],
    });
    const names = async (q: string) =>
      parsed(
        RecipientListResponse,
        await a.c.get(`/v1/order/${orderId}/recipients${q}`),
      ).payload.recipients.map((r) => r.personal.lastName);
    expect(await names("?search=hopper")).toEqual(["Hopper"]);
    expect(await names("?search=bletchley")).toEqual(["Turing"]);
    expect(await names("?search=eindhoven")).toEqual(["Dijkstra"]);
    expect(await names("?search=zzz")).toEqual([]);
    expect(await names("?pageSize=2")).toEqual(["Hopper", "Turing"]);
    expect(await names("?pageSize=2&pageNumber=2")).toEqual(["Dijkstra"]);
  });
});

describe("DELETE /v1/order/{id}/recipients (entry 7)", () => {
  test("reports requestedRecipients (distinct), deletedRecipients and notFoundRecipientIds", async () => {
    const a = await newAccount(sb);
    const orderId = await newOrder(a, 3);
    const other = await newOrder(a, 1);
    const ids = parsed(
      RecipientListResponse,
      await a.c.get(`/v1/order/${orderId}/recipients`),
    ).payload.recipients.map((r) => r.id);
    const foreign = (await a.c.get(`/v1/order/${other}/recipients`)).json.payload.recipients[0].id;
    const r = await a.c.del(`/v1/order/${orderId}/recipients`, {
      recipientIds: [ids[0], ids[0], ids[1], 424242, foreign],
    });
    expect(parsed(DeleteRecipientsResponse, r).payload).toMatchObject({
      requestedRecipients: 4,
      deletedRecipients: 2,
      notFoundRecipientIds: [424242, foreign],
    });
    expect(
      (await a.c.get(`/v1/order/${orderId}/recipients`)).json.payload.recipients.map((x: any) => x.id),
    ).toEqual([ids[2]]);
    expect((await a.c.get(`/v1/order/${other}/recipients`)).json.payload.recipients).toHaveLength(1);
    const again = parsed(
      DeleteRecipientsResponse,
      await a.c.del(`/v1/order/${orderId}/recipients`, { recipientIds: [ids[0]] }),
    ).payload;
    expect(again).toMatchObject({
      requestedRecipients: 1,
      deletedRecipients: 0,
      notFoundRecipientIds: [ids[0]],
    });
  });

  test("a body without recipientIds is 400 naming it", async () => {
    const a = await newAccount(sb);
    const orderId = await newOrder(a, 1);
    const { errors } = expectError(await a.c.del(`/v1/order/${orderId}/recipients`, { ids: [1] }), 400);
    expect(errors).toMatch(/^recipientIds: /m);
  });

  test("not editable (Payment Needed, Paid or later): 400 and nothing removed", async () => {
    const a = await newAccount(sb);
    const orderId = await newOrder(a, 2);
    const ids = (await a.c.get(`/v1/order/${orderId}/recipients`)).json.payload.recipients.map(
      (x: any) => x.id,
    );
    await a.c.post(`/v1/order/${orderId}/checkout`, CHECKOUT);
    expectError(
      await a.c.del(`/v1/order/${orderId}/recipients`, { recipientIds: ids }),
      400,
      "INVALID_ORDER_STATUS",
    );
    await sb.control.advanceClock(3);
    expectError(
      await a.c.del(`/v1/order/${orderId}/recipients`, { recipientIds: ids }),
      400,
      "INVALID_ORDER_STATUS",
    );
    expect((await a.c.get(`/v1/order/${orderId}/recipients`)).json.payload.recipients).toHaveLength(2);
  });
});

describe("recipient delivery status (entry 25; assumed path)", () => {
  test("by first and last name or by address line; follows the carrier timeline after mailing", async () => {
    const a = await newAccount(sb);
    const orderId = await newOrder(a);
    await a.c.put(`/v1/order/${orderId}/recipients`, {
      recipients: [recipient({ firstName: "Mary", lastName: "Shelley", address1: "18 Chalk Farm Road" })],
    });
    const byName = `/v1/order/${orderId}/recipients/delivery-status?firstName=mary&lastName=SHELLEY`;
    const byAddress = `/v1/order/${orderId}/recipients/delivery-status?address1=18%20chalk%20farm%20rd`;
    const before = parsed(RecipientDeliveryStatusResponse, await a.c.get(byName)).payload;
    expect(before).toMatchObject({
      orderId,
      firstName: "Mary",
      lastName: "Shelley",
      address1: "18 CHALK FARM RD",
      deliveryStatus: null,
      updatedDate: null,
    });
    await a.c.post(`/v1/order/${orderId}/checkout`, CHECKOUT);
    await sb.control.advanceClock(3 + 3600 + 3 * 86400);
    const mailed = parsed(RecipientDeliveryStatusResponse, await a.c.get(byAddress)).payload;
    expect(mailed.deliveryStatus).toBe("Waiting on USPS Info");
    expect(mailed.recipientId).toBe(before.recipientId);
    await sb.control.advanceClock(6 * 86400);
    expect(parsed(RecipientDeliveryStatusResponse, await a.c.get(byName)).payload.deliveryStatus).toBe(
      "Delivered",
    );
  });

  test("400 without a way to identify the recipient; 404 when none matches", async () => {
    const a = await newAccount(sb);
    const orderId = await newOrder(a, 1);
    const { errors } = expectError(
      await a.c.get(`/v1/order/${orderId}/recipients/delivery-status?firstName=Ada`),
      400,
    );
    expect(errors).toMatch(/^lastName: /m);
    expectError(
      await a.c.get(`/v1/order/${orderId}/recipients/delivery-status?firstName=No&lastName=Body`),
      404,
      "NOT_FOUND",
    );
  });
});
