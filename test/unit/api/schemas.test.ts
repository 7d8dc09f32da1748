import { describe, expect, it } from "vitest";
import { z } from "zod";
import { newOrderRecipient } from "../../../provider/api/recipients";
import * as S from "../../../provider/api/schemas";
import * as F from "./fixtures";

const issues = (r: { success: boolean; error?: { issues: z.core.$ZodIssue[] } }) =>
  r.success ? [] : S.formatIssues(r.error?.issues ?? []);

describe("wire schemas: fixtures are valid", () => {
  it.each([
    ["Profile", S.Profile, F.profile],
    ["OrderRecipient", S.OrderRecipient, F.recipient],
    ["AppendResult", S.AppendResult, F.appendResult],
    ["OrderSummary", S.OrderSummary, F.orderSummary],
    ["CheckoutPreview", S.CheckoutPreview, F.checkoutPreview],
    ["CheckoutResult", S.CheckoutResult, F.checkoutResult],
    ["OrderAnalytics", S.OrderAnalytics, F.analytics],
    ["OrderTransactionReport", S.OrderTransactionReport, F.transactions],
    ["IntegrationOrder", S.IntegrationOrder, F.integrationOrder],
    ["RecipientStatistic", S.RecipientStatistic, F.statistic],
    ["ConversionRecord", S.ConversionRecord, F.conversion],
    ["ConversionStatus", S.ConversionStatus, F.conversionStatus],
    ["AddressBookEntry", S.AddressBookEntry, F.addressBookEntry],
    ["RecipientDeliveryStatus", S.RecipientDeliveryStatus, F.deliveryStatus],
    ["MeResponse", S.MeResponse, F.envelope(F.profile)],
  ] as const)("%s", (_name, schema, value) => {
    expect(issues(schema.safeParse(value))).toEqual([]);
  });
});

describe("open enumerations", () => {
  it("accept the listed values and any other string, so a new status cannot crash a deployment", () => {
    const summary = S.OrderSummary.parse({ ...F.orderSummary, orderStatus: "On Hold For Review" });
    expect(summary.orderStatus).toBe("On Hold For Review");
    expect(S.IntegrationReasonCode.parse("SOMETHING_NEW")).toBe("SOMETHING_NEW");
    expect(S.DeliveryStatusValue.parse("Waiting on USPS Info")).toBe("Waiting on USPS Info");
  });

  it("still reject a value that is not a string, naming the field", () => {
    expect(issues(S.OrderSummary.safeParse({ ...F.orderSummary, orderStatus: 3 }))).toEqual([
      "orderStatus: Invalid input: expected string, received number",
    ]);
  });

  it("expose their known values", () => {
    expect(S.knownValues(S.OrderStatus)).toContain("Payment Needed");
    expect(S.knownValues(S.IntegrationReasonCode)).toEqual([...S.INTEGRATION_REASON_CODES]);
  });
});

describe("order recipient", () => {
  it("requires every key: a missing nullable key is an error, not a silent null", () => {
    const { zip4: _dropped, ...address } = F.recipient.address;
    expect(issues(S.OrderRecipient.safeParse({ ...F.recipient, address }))).toEqual([
      "address.zip4: Invalid input: expected string, received undefined",
    ]);
  });

  it("allows null where the spec does, and not for text, text2 and fullAddress", () => {
    const r = S.OrderRecipient.safeParse({
      ...F.recipient,
      metadata: { ...F.recipient.metadata, custom1: null, text: null },
    });
    expect(issues(r)).toEqual(["metadata.text: Invalid input: expected string, received null"]);
  });

  it("keeps id within int32", () => {
    expect(issues(S.OrderRecipient.safeParse({ ...F.recipient, id: 2 ** 31 }))[0]).toMatch(/^id: /);
  });

  it("newOrderRecipient builds a complete record from partial fields", () => {
    const r = newOrderRecipient({ personal: { firstName: "Ada" } });
    expect(S.OrderRecipient.parse(r)).toEqual(r);
    expect(r.id).toBe(0);
    expect(r.address.zip2).toBeNull();
    expect(r.metadata.text).toBe("");
    expect(Object.keys(r.metadata)).toHaveLength(Object.keys(S.RecipientMetadata.shape).length);
    expect(Object.keys(r.address)).toEqual(Object.keys(S.RecipientAddress.shape));
  });

  it("an append carries 1 to 5,000 recipients", () => {
    const many = Array.from({ length: 5001 }, () => F.recipient);
    expect(issues(S.AppendRecipientsRequest.safeParse({ recipients: many }))).toEqual([
      "recipients: at most 5000 recipients per request",
    ]);
    expect(S.AppendRecipientsRequest.safeParse({ recipients: many.slice(0, 5000) }).success).toBe(true);
    expect(S.AppendRecipientsRequest.safeParse({ recipients: [] }).success).toBe(false);
  });

  it("names the index of a bad recipient in a batch", () => {
    const bad = { ...F.recipient, address: { ...F.recipient.address, zipCode: 62701 } };
    const r = S.AppendRecipientsRequest.safeParse({ recipients: [F.recipient, F.recipient, bad] });
    expect(S.formatIssues(r.error?.issues ?? [], "body")).toEqual([
      "body.recipients[2].address.zipCode: Invalid input: expected string, received number",
    ]);
  });
});

describe("dates and numbers", () => {
  it("date-times parse with an offset, with Z, or without a zone; other text does not", () => {
    for (const ok of ["2026-01-02T03:04:05Z", "2026-01-02T03:04:05.123+02:00", "2026-01-02T03:04:05"]) {
      expect(S.Profile.safeParse({ ...F.profile, created: ok }).success).toBe(true);
    }
    expect(issues(S.Profile.safeParse({ ...F.profile, created: "2 January 2026" }))).toEqual([
      "created: Invalid ISO datetime",
    ]);
  });

  it("statisticValue must be a whole number in digits only, nothing trimmed; the message names it", () => {
    for (const good of ["12", "0", "007", "2147483647"]) {
      expect(S.RecipientStatistic.safeParse({ ...F.statistic, statisticValue: good }).success).toBe(true);
    }
    for (const bad of ["1.5", "-1", "abc", "", " 7", "7 ", "+7", "1e3", "0x10", "2147483648", 7]) {
      expect(issues(S.RecipientStatistic.safeParse({ ...F.statistic, statisticValue: bad }))).toEqual([
        `statisticValue: ${JSON.stringify(bad)} is not a whole number from 0 to 2147483647 written in digits only`,
      ]);
    }
    // A hostile value is shown cut short.
    const long = "9".repeat(100_000);
    const [message] = issues(S.RecipientStatistic.safeParse({ ...F.statistic, statisticValue: long }));
    expect(message).toBe(
      `statisticValue: "${"9".repeat(39)}… (100002 characters) is not a whole number from 0 to 2147483647 written in digits only`,
    );
  });

  it("counts are non-negative integers", () => {
    expect(issues(S.AppendResult.safeParse({ ...F.appendResult, droppedRecipients: -1 }))[0]).toMatch(
      /^droppedRecipients: /,
    );
    expect(issues(S.AppendResult.safeParse({ ...F.appendResult, droppedRecipients: 1.5 }))[0]).toMatch(
      /^droppedRecipients: /,
    );
  });
});

describe("profile", () => {
  it("aadId is any GUID (a .NET Guid need not carry RFC variant bits), but not free text", () => {
    expect(S.Profile.safeParse({ ...F.profile, aadId: "00000000-0000-0000-0000-000000000000" }).success).toBe(
      true,
    );
    expect(S.Profile.safeParse({ ...F.profile, aadId: "12345678-9abc-def0-1234-56789abcdef0" }).success).toBe(
      true,
    );
    expect(issues(S.Profile.safeParse({ ...F.profile, aadId: "not-a-guid" }))[0]).toMatch(/^aadId: /);
  });
});

describe("forward compatibility", () => {
  it("drops fields the spec does not list instead of failing on them", () => {
    const parsed = S.Profile.parse({ ...F.profile, plan: "gold" });
    expect(parsed).toEqual(F.profile);
  });

  it("envelopes without errorCode and errorDetails parse (the address-book create response)", () => {
    const { errorCode: _a, errorDetails: _b, ...env } = F.envelope({ id: 5 });
    expect(S.AddressBookResponse.parse(env).payload).toEqual({ id: 5 });
  });

  it("a line item nests line items", () => {
    const bad = { ...F.lineItem, subItems: [{ ...F.lineItem, subItems: [{ name: "x" }] }] };
    expect(issues(S.CheckoutPreview.safeParse({ ...F.checkoutPreview, lineItems: [bad] }))).toContain(
      "lineItems[0].subItems[0].subItems[0].tax: Invalid input: expected number, received undefined",
    );
  });
});

describe("requests", () => {
  it("checkout accepts only the postage types and speeds the service accepts", () => {
    expect(S.CheckoutRequest.safeParse({ postageType: "Standard", productionSpeed: "Normal" }).success).toBe(
      true,
    );
    expect(
      issues(S.CheckoutRequest.safeParse({ postageType: "HailTrace", productionSpeed: "HailTrace" })),
    ).toEqual([
      'postageType: Invalid option: expected one of "Standard"|"FirstClass"',
      'productionSpeed: Invalid option: expected one of "Normal"|"ExpeditedFaster"|"ExpeditedFastest"',
    ]);
    expect(
      S.CheckoutRequest.safeParse({
        postageType: "FirstClass",
        productionSpeed: "Normal",
        holdUntilDate: null,
      }).success,
    ).toBe(true);
  });

  it("proximity return-address rules name the missing field", () => {
    const base = {
      Name: "Around the shop",
      Addresses: [
        { address1: "1 Main St", city: "Springfield", state: "IL", zip: "62701", DesiredCount: 10 },
      ],
    };
    expect(S.ProximityRequest.safeParse(base).success).toBe(true);
    expect(issues(S.ProximityRequest.safeParse({ ...base, ReturnFirstName: "Ada" }))).toEqual([
      "ReturnLastName: ReturnFirstName and ReturnLastName are given together",
      "ReturnAddress1: ReturnAddress1 is required when any other return address field is given",
    ]);
    expect(
      issues(S.ProximityRequest.safeParse({ ...base, ReturnAddress1: "2 Side St", ReturnCity: "X" })),
    ).toEqual([
      "ReturnState: ReturnState is required when ReturnAddress1 is given",
      "ReturnZip: ReturnZip is required when ReturnAddress1 is given",
    ]);
    expect(
      S.ProximityRequest.safeParse({
        ...base,
        ReturnFirstName: "Ada",
        ReturnLastName: "L",
        ReturnAddress1: "2 Side St",
        ReturnCity: "Springfield",
        ReturnState: "IL",
        ReturnZip: "62701",
      }).success,
    ).toBe(true);
    expect(
      issues(S.ProximityRequest.safeParse({ ...base, YearBuiltFilter: { min: 2000, max: 1990 } })),
    ).toEqual(["YearBuiltFilter.max: min must not exceed max"]);
  });

  it("conversions: at most 5,000 records, e-mails must be e-mails", () => {
    expect(issues(S.ConversionBatch.safeParse(Array.from({ length: 5001 }, () => F.conversion)))).toEqual([
      "at most 5000 conversion records per request",
    ]);
    expect(issues(S.ConversionRecord.safeParse({ primaryEmail: "not-an-email" }))).toEqual([
      "primaryEmail: Invalid email address",
    ]);
  });

  it("address-book entries need every key, phoneNumber may be null", () => {
    const { phoneNumber: _p, ...rest } = F.addressBookEntry;
    expect(issues(S.AddressBookEntry.safeParse(rest))).toEqual([
      "phoneNumber: Invalid input: expected string, received undefined",
    ]);
  });

  it("delivery status is asked by first and last name together, or by address line", () => {
    expect(S.DeliveryStatusQuery.safeParse({ firstName: "A", lastName: "B" }).success).toBe(true);
    expect(S.DeliveryStatusQuery.safeParse({ address1: "1 Main St" }).success).toBe(true);
    expect(issues(S.DeliveryStatusQuery.safeParse({ firstName: "A" }))).toEqual([
      "lastName: firstName and lastName are given together",
    ]);
    expect(issues(S.DeliveryStatusQuery.safeParse({}))).toEqual([
      "address1: give firstName and lastName, or address1",
    ]);
  });
});

describe("query strings (server side)", () => {
  it("readQuery matches names case-insensitively and converts text", () => {
    const r = S.readQuery(S.CheckoutPreviewQuery, {
      PostageType: "FirstClass",
      ProductionSpeed: "ExpeditedFaster",
      HoldUntilDate: "2026-02-01T00:00:00Z",
      AUTOBILL: "False",
    });
    expect(r.success && r.data).toEqual({
      postageType: "FirstClass",
      productionSpeed: "ExpeditedFaster",
      holdUntilDate: "2026-02-01T00:00:00Z",
      autoBill: false,
    });
  });

  it("rejects a boolean that is not true or false, and a page size over 1000, naming them", () => {
    const r = S.readQuery(S.ListOrdersQuery, { paid: "yes", pageSize: "5000", pageNumber: "2" });
    expect(issues(r)).toEqual([
      "paid: expected true or false",
      "pageSize: 5000 is not a whole number from 1 to 1000 written in digits only",
    ]);
  });

  it("the order id list: only an empty list fails; an entry that is not a whole number is null", () => {
    expect(S.OrderIdsQuery.safeParse({ id: "12,13,abc" }).success).toBe(true);
    expect(S.parseOrderIds("12,13")).toEqual([12, 13]);
    // The one whole-number rule: digits only, nothing trimmed.
    expect(S.parseOrderIds("12,abc,, 14,0,1e3,99999999999999999")).toEqual([
      12,
      null,
      null,
      null,
      0,
      null,
      null,
    ]);
    expect(issues(S.OrderIdsQuery.safeParse({ id: "" }))).toEqual([
      "id: expected a comma-separated list of order ids",
    ]);
  });

  it("path ids and query integers follow the same whole-number rule, naming the value", () => {
    expect(S.IdPathParams.safeParse({ id: "12" }).data).toEqual({ id: 12 });
    expect(S.IdPathParams.safeParse({ id: 12 }).data).toEqual({ id: 12 });
    for (const bad of ["0", " 7", "7 ", "+7", "0x10", "1e3", "1.5", "", "99999999999999999"]) {
      expect(issues(S.IdPathParams.safeParse({ id: bad })), bad).toEqual([
        `id: ${bad === "0" ? "0" : JSON.stringify(bad)} is not a whole number from 1 to 9007199254740991 written in digits only`,
      ]);
    }
  });
});

describe("every exported wire schema is named for the OpenAPI document", () => {
  it("has an id equal to its export name, and ids are unique", () => {
    const named = Object.entries(S).filter(
      ([name, value]) => value instanceof z.ZodType && /^[A-Z]/.test(name) && name !== "ERROR_CODES",
    ) as [string, z.ZodType][];
    expect(named.length).toBeGreaterThan(60);
    const ids = named.map(([name, schema]) => [name, (z.globalRegistry.get(schema) as { id?: string })?.id]);
    expect(ids.filter(([name, id]) => name !== id)).toEqual([]);
  });
});
