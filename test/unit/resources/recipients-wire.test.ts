import { describe, expect, it } from "vitest";
import { newOrderRecipient, orderRecipientJson } from "../../../provider/api/recipients";
import type { OrderRecipient } from "../../../provider/api/schemas/recipient";
import type { DeclaredRecipient } from "../../../provider/recipients/index";
import {
  contentKey,
  identityOf,
  identityValue,
  listedHash,
  matchesListed,
  toWire,
  UNKNOWN_CONTENT,
  wireJson,
} from "../../../provider/recipients/index";
import { fullAddressOf, validateAddress } from "../../../sandbox/domain/address";

const row: DeclaredRecipient = {
  firstName: "Ada",
  lastName: "Lovelace",
  address1: "12 North Main Street",
  city: "springfield",
  state: "Illinois",
  zipCode: "62701-1234",
  custom1: "15% off",
};

/** A recipient as the service lists it: the wire shape with its address standardized. */
function listed(
  declared: DeclaredRecipient,
  extra: Partial<OrderRecipient["metadata"]> = {},
): OrderRecipient {
  const key = "0123456789abcdef";
  const wire = toWire({ key, content: contentKey(declared), row: 2, recipient: declared }, "custom6");
  const standard = validateAddress(wire.address).standard;
  if (!standard) throw new Error("the test address must be valid");
  return {
    ...wire,
    id: 501,
    address: standard,
    metadata: { ...wire.metadata, dpvConfirmationCode: "Y", fullAddress: fullAddressOf(standard), ...extra },
  };
}

describe("identity values", () => {
  it("carry the key alone without a key column, and key and content digest under one", () => {
    expect(identityValue({ key: "a".repeat(16), content: "a".repeat(16) })).toBe("a".repeat(16));
    expect(identityValue({ key: "a".repeat(16), content: "b".repeat(16) })).toBe(
      `${"a".repeat(16)}${"b".repeat(16)}`,
    );
    const carrying = (value: string | null) => newOrderRecipient({ metadata: { custom6: value } });
    expect(identityOf(carrying(`${"a".repeat(16)}${"b".repeat(16)}`), "custom6", true)).toEqual({
      key: "a".repeat(16),
      content: "b".repeat(16),
    });
    expect(identityOf(carrying("a".repeat(16)), "custom6", false)).toEqual({
      key: "a".repeat(16),
      content: "a".repeat(16),
    });
    // Appended under a key column by a version that did not send the content digest.
    expect(identityOf(carrying("a".repeat(16)), "custom6", true)).toEqual({
      key: "a".repeat(16),
      content: UNKNOWN_CONTENT,
    });
    for (const foreign of [null, "", "VIP", "a".repeat(17), "A".repeat(16)])
      expect(identityOf(carrying(foreign), "custom6", true)).toBeUndefined();
  });
});

describe("a recipient as the service lists it", () => {
  it("has a listed hash that changes with any declared field and ignores what the service tracks", () => {
    const before = listedHash(listed(row));
    expect(before).toBe(listedHash(listed(row, { deliveryStatus: "Mailed", dpvConfirmationCode: "S" })));
    expect(listedHash(listed({ ...row, address1: "14 North Main Street" }))).not.toBe(before);
    expect(listedHash(listed({ ...row, lastName: "Byron" }))).not.toBe(before);
    expect(listedHash(listed({ ...row, custom1: "20% off" }))).not.toBe(before);
    // Each value is hashed after its length: a letter moved from one field to the next changes it.
    const { firstName, lastName } = row as { firstName: string; lastName: string };
    const moved = {
      ...row,
      firstName: firstName.slice(0, -1),
      lastName: `${firstName.slice(-1)}${lastName}`,
    };
    expect(listedHash(listed(moved))).not.toBe(before);
    expect(before).toBeGreaterThan(0);
  });

  it("matches its declared row through the service's standardization", () => {
    const service = listed(row, { qrUrl: "https://example.com/order-default" });
    expect(service.address).toMatchObject({ address1: "12 N MAIN ST", city: "SPRINGFIELD", state: "IL" });
    expect(matchesListed(row, service, "custom6")).toBe(true);
    expect(matchesListed({ ...row, address1: "12 N. Main St", country: "USA" }, service, "custom6")).toBe(
      true,
    );
  });

  it("never takes a changed row for the same", () => {
    const service = listed(row);
    for (const changed of [
      { address1: "14 North Main Street" },
      { address2: "Apt 5" },
      { city: "Shelbyville" },
      { zipCode: "62702" },
      { zipCode: "62701-9999" },
      { firstName: "Augusta" },
      { lastName: "lovelace" },
      { custom1: "20% off" },
      { custom2: "new" },
      { qrUrl: "https://example.com/ada" },
    ])
      expect(matchesListed({ ...row, ...changed }, service, "custom6"), JSON.stringify(changed)).toBe(false);
  });
});

describe("the wire shape as JSON text", () => {
  it("is the text of the wire object, written without it", () => {
    const rows: DeclaredRecipient[] = [
      row,
      { address1: "1 Main St", city: "Austin", state: "TX", zipCode: "73301", toOrganization: "Acme" },
      {
        ...row,
        salutation: 'Dear "Ada"',
        custom2: "line\nbreak \\ \u0001 é ✓ 😀",
        returnCity: "Boston",
        email: "ada@example.com",
        image3: "https://example.com/a.png",
      },
    ];
    for (const [i, declared] of rows.entries()) {
      const recipient = {
        key: "0123456789abcdef",
        content: i === 0 ? "0123456789abcdef" : "fedcba9876543210",
        row: 2,
        recipient: declared,
      };
      expect(wireJson(recipient, "custom6")).toBe(JSON.stringify(toWire(recipient, "custom6")));
      expect(wireJson(recipient, "custom1")).toBe(JSON.stringify(toWire(recipient, "custom1")));
    }
    for (const input of [
      {},
      { id: 7, personal: { firstName: null } },
      { metadata: { text: "x", custom6: null } },
    ])
      expect(orderRecipientJson(input)).toBe(JSON.stringify(newOrderRecipient(input)));
  });
});
