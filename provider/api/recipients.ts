import type { z } from "zod";
import {
  type OrderRecipient,
  RecipientAddress,
  RecipientMetadata,
  RecipientPersonal,
} from "./schemas/recipient";

/** The parts of an order recipient you have; everything else is filled in as the wire format wants. */
export interface OrderRecipientInput {
  id?: number | undefined;
  /** Some keys of the group; one left out or undefined is filled in blank (so for the others). */
  address?: { [K in keyof RecipientAddress]?: RecipientAddress[K] | undefined } | undefined;
  personal?: { [K in keyof RecipientPersonal]?: RecipientPersonal[K] | undefined } | undefined;
  metadata?: { [K in keyof RecipientMetadata]?: RecipientMetadata[K] | undefined } | undefined;
}

/**
 * Every key of a group, from its schema: the given value, else null where the schema allows it
 * and "" where it wants a string (`text`, `text2`, `fullAddress`).
 */
function fill<T>(group: z.ZodObject, given: { [K in keyof T]?: T[K] | undefined } | undefined): T {
  const out: Record<string, unknown> = {};
  for (const [key, blank] of blanksOf(group)) {
    out[key] = (given as Record<string, unknown> | undefined)?.[key] ?? blank;
  }
  return out as T;
}

/** Each key of a group with its blank value, worked out once per group (a list has many recipients). */
const blanks = new WeakMap<z.ZodObject, [string, null | ""][]>();
function blanksOf(group: z.ZodObject): [string, null | ""][] {
  let found = blanks.get(group);
  if (found === undefined) {
    found = Object.entries(group.shape as Record<string, z.ZodType>).map(([key, schema]) => [
      key,
      schema.safeParse(null).success ? null : "",
    ]);
    blanks.set(group, found);
  }
  return found;
}

/**
 * Builds a complete order recipient for an append: the spec makes every key required, so missing
 * ones become null (and `text`, `text2`, `fullAddress`, which are never null, become ""). `id` is
 * 0: the service assigns ids.
 */
export function newOrderRecipient(input: OrderRecipientInput): OrderRecipient {
  return {
    id: input.id ?? 0,
    address: fill<RecipientAddress>(RecipientAddress, input.address),
    personal: fill<RecipientPersonal>(RecipientPersonal, input.personal),
    metadata: fill<RecipientMetadata>(RecipientMetadata, input.metadata),
  };
}

/** Each key of a group as its JSON member prefix (`"city":`) with its blank value as JSON. */
const members = new WeakMap<z.ZodObject, [key: string, prefix: string, blank: string][]>();
function membersOf(group: z.ZodObject): [string, string, string][] {
  let found = members.get(group);
  if (found === undefined) {
    found = blanksOf(group).map(([key, blank], i) => [
      key,
      `${i === 0 ? "" : ","}${JSON.stringify(key)}:`,
      JSON.stringify(blank),
    ]);
    members.set(group, found);
  }
  return found;
}

/**
 * `JSON.stringify(newOrderRecipient(input))`, the same text, written directly: for lists of any
 * size, without the object of each recipient. Built by concatenation, which V8 keeps as a tree of
 * pieces until the text is first read whole: callers turn it into bytes at once (as a batch of
 * appends does) rather than keep it.
 */
export function orderRecipientJson(input: OrderRecipientInput): string {
  let json = `{"id":${JSON.stringify(input.id ?? 0)}`;
  json += `,"address":${groupJson(RecipientAddress, input.address)}`;
  json += `,"personal":${groupJson(RecipientPersonal, input.personal)}`;
  json += `,"metadata":${groupJson(RecipientMetadata, input.metadata)}`;
  return `${json}}`;
}

function groupJson(group: z.ZodObject, given: Record<string, unknown> | undefined): string {
  let json = "{";
  for (const [key, prefix, blank] of membersOf(group)) {
    const value = given?.[key];
    json += prefix;
    json += value === undefined || value === null ? blank : JSON.stringify(value);
  }
  return `${json}}`;
}
