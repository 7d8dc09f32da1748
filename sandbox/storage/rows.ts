import { type OrderRecipient, RecipientMetadata } from "../../provider/api/schemas";
import type { PaymentBehaviour, Tier } from "../assumptions";

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
 * A recipient row keeps its wire object as compact JSON: without the id (the row's own) and
 * without null metadata keys (most of the 31), which halves the bytes an append of 5,000 writes.
 */
export function packRecipient(r: OrderRecipient, set?: Partial<OrderRecipient["metadata"]>): string {
  // A plain loop: this runs once per appended recipient, and entries/fromEntries allocate per key.
  // `set` overrides metadata keys without a copy of the whole metadata first.
  const metadata: Record<string, unknown> = {};
  const all = r.metadata as Record<string, unknown>;
  const over = set as Record<string, unknown> | undefined;
  for (const key in all)
    if (all[key] !== null && (over === undefined || !(key in over))) metadata[key] = all[key];
  if (over) for (const key in over) if (over[key] !== null) metadata[key] = over[key];
  return JSON.stringify({ address: r.address, personal: r.personal, metadata });
}

const NULL_METADATA = Object.fromEntries(Object.keys(RecipientMetadata.shape).map((k) => [k, null]));

export function unpackRecipient(id: number, data: string): OrderRecipient {
  const packed = JSON.parse(data) as Omit<OrderRecipient, "id">;
  return {
    id,
    address: packed.address,
    personal: packed.personal,
    metadata: { ...NULL_METADATA, ...packed.metadata } as OrderRecipient["metadata"],
  };
}
