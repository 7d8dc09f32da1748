import {
  type OrderRecipient,
  RecipientAddress,
  RecipientMetadata,
  RecipientPersonal,
} from "../../provider/api/schemas";
import type { PaymentBehaviour, Tier } from "../assumptions";
import { fullAddressOf, type StandardAddress } from "../domain/address";

/** The rows of the store's tables, as `Store.get` and `Store.all` give them (see store.ts). */

export interface Account {
  id: number;
  aad_id: string;
  email: string;
  first_name: string;
  last_name: string;
  company: string;
  created: string;
  tier: Tier;
  balance: number;
  payment: PaymentBehaviour;
  process_qr: number;
}

/** An order, or a template (`is_template` 1: an order that is never fulfilled). */
export interface OrderRow {
  id: number;
  account_id: number;
  is_template: number;
  template_id: number | null;
  name: string;
  product: string;
  status: string;
  has_qr: number;
  qr_url: string | null;
  font: string | null;
  required_merge_fields: string;
  postage_type: string | null;
  production_speed: string | null;
  hold_until: string | null;
  paid_date: string | null;
  ready_at: string | null;
  mailed_at: string | null;
  paid_recipient_searches: number;
  cum_validated: number;
  cum_duplicated: number;
  cum_do_not_mail: number;
  checkout_count: number;
  created: string;
  updated: string;
  /** Recipients the order has now (kept by appends and deletes). */
  recipient_count: number;
  /** Recipients deleted from the order so far (a listing's page boundaries hold until it changes). */
  deleted_recipients: number;
}

export interface RecipientRow {
  id: number;
  order_id: number;
  do_not_mail: number;
  dpv: string;
  first_name: string | null;
  last_name: string | null;
  address1: string | null;
  scans: number;
  last_scan: string | null;
  created: string;
  data: string;
}

export interface CheckoutRow {
  id: number;
  order_id: number;
  account_id: number;
  postage_type: string;
  production_speed: string;
  hold_until: string | null;
  auto_bill: number;
  amount: number;
  quantity: number;
  outcome: string;
  created: string;
  settled: string | null;
  data: string;
}

export interface LedgerRow {
  id: number;
  account_id: number;
  order_id: number | null;
  checkout_id: number | null;
  kind: "charge" | "credit";
  method: "card" | "balance";
  amount: number;
  outcome: "succeeded" | "failed";
  description: string;
  created: string;
}

export interface IntegrationOrderRow {
  id: number;
  account_id: number;
  name: string;
  template_id: number | null;
  status: string;
  postage_type: string | null;
  created: string;
  updated: string;
}

/** The recipient columns counts and timelines read (everything but the wire JSON). */
export const LIGHT_RECIPIENT_COLUMNS =
  "id, order_id, do_not_mail, dpv, first_name, last_name, address1, scans, last_scan, created";

/**
 * What a recipient row's `data` leaves out, because the row has it otherwise: `address1`,
 * `firstName` and `lastName` are columns, `dpvConfirmationCode` is the `dpv` column, `fullAddress`
 * follows from the standardized address (see `fullAddressOf`), and `deliveryStatus` follows from
 * the order's timeline when the recipient is read (see `recipientView`).
 */
const IN_COLUMNS: Record<string, "address1" | "first_name" | "last_name"> = {
  address1: "address1",
  firstName: "first_name",
  lastName: "last_name",
};
const PACKED_ADDRESS = Object.keys(RecipientAddress.shape).filter((k) => !(k in IN_COLUMNS));
const PACKED_PERSONAL = Object.keys(RecipientPersonal.shape).filter((k) => !(k in IN_COLUMNS));
/** The metadata keys `data` does not keep as submitted (qrUrl is the one the service sets, kept beside). */
const NOT_PACKED_METADATA = new Set(["dpvConfirmationCode", "fullAddress", "deliveryStatus", "qrUrl"]);

/**
 * A recipient row's `data`: a JSON array of the address and personal values the columns do not
 * hold (in schema order, without keys), then an object of the metadata that is not null and not
 * derived, with the `qrUrl` the service set. About a quarter of the bytes of the wire object,
 * which is what an append of 5,000 writes. Rows written before this format hold the whole wire
 * object without its id (`{...}`): `unpackRecipient` reads both.
 */
export function packRecipient(
  address: Omit<OrderRecipient["address"], "address1">,
  personal: Omit<OrderRecipient["personal"], "firstName" | "lastName">,
  metadata: OrderRecipient["metadata"],
  qrUrl: string | null,
): string {
  // Plain loops: this runs once per appended recipient.
  const packed: unknown[] = [];
  const a = address as Record<string, unknown>;
  for (const key of PACKED_ADDRESS) packed.push(a[key]);
  const p = personal as Record<string, unknown>;
  for (const key of PACKED_PERSONAL) packed.push(p[key]);
  const kept: Record<string, unknown> = {};
  const all = metadata as Record<string, unknown>;
  // for-in: V8 reads the values through the object's own key cache, faster than loads by a list of
  // names. The keys are the schema's: the body was parsed with it (see parseWith).
  for (const key in all) {
    const value = all[key];
    if (value !== null && !NOT_PACKED_METADATA.has(key)) kept[key] = value;
  }
  if (qrUrl !== null) kept.qrUrl = qrUrl;
  packed.push(kept);
  return JSON.stringify(packed);
}

const NULL_METADATA = Object.fromEntries(Object.keys(RecipientMetadata.shape).map((k) => [k, null]));

/** The recipient a row holds, as the wire shows it (its delivery status null: see `recipientView`). */
export function unpackRecipient(
  row: Pick<RecipientRow, "id" | "dpv" | "first_name" | "last_name" | "address1" | "data">,
): OrderRecipient {
  if (row.data.startsWith("{")) {
    // A row of an earlier version: the whole wire object.
    const whole = JSON.parse(row.data) as Omit<OrderRecipient, "id">;
    return {
      id: row.id,
      address: whole.address,
      personal: whole.personal,
      metadata: { ...NULL_METADATA, ...whole.metadata } as OrderRecipient["metadata"],
    };
  }
  const packed = JSON.parse(row.data) as unknown[];
  let at = 0;
  const group = (keys: string[]) => {
    const values: Record<string, unknown> = {};
    for (const key of keys) {
      const column = IN_COLUMNS[key];
      values[key] = column === undefined ? packed[at++] : row[column];
    }
    return values;
  };
  const address = group(Object.keys(RecipientAddress.shape)) as OrderRecipient["address"];
  const personal = group(Object.keys(RecipientPersonal.shape)) as OrderRecipient["personal"];
  const metadata = {
    ...NULL_METADATA,
    ...(packed[at] as Record<string, unknown>),
    dpvConfirmationCode: row.dpv,
    fullAddress: fullAddressOf(address as StandardAddress),
  } as OrderRecipient["metadata"];
  return { id: row.id, address, personal, metadata };
}

/**
 * The text a recipient search looks in: first and last name, organization and full address,
 * lowercased (the store's `recipient_search` SQL function).
 */
export function recipientSearchText(
  row: Pick<RecipientRow, "id" | "dpv" | "first_name" | "last_name" | "address1" | "data">,
): string {
  const { personal, metadata } = unpackRecipient(row);
  let text = "";
  for (const part of [personal.firstName, personal.lastName, personal.toOrganization, metadata.fullAddress])
    if (part) text = text === "" ? part : `${text} ${part}`;
  return text.toLowerCase();
}
