/**
 * The service's reasons for dropping a recipient, as this package keeps and shows them. The
 * service quotes the value it rejected (`ADDRESS_NOT_VALID: address.zipCode: '5974O' is not a ZIP
 * or ZIP+4 code`), and that value is personal data: a ZIP code, or a name typed into the state
 * column. Reasons are redacted where they are read from the service, and summed after redaction.
 */
import { oneLine } from "../text";
import type { OrderRecipient } from "./schemas/recipient";
import { RecipientAddress, RecipientMetadata, RecipientPersonal } from "./schemas/recipient";

/** A reason and how many recipients it dropped. */
export interface ReasonCount {
  reason: string;
  count: number;
}

/** The reason given for a dropped recipient when the service gave none, or one that cannot be shown. */
export const NO_REASON = "dropped";

/** The quote marks a reason may put around a value. */
const QUOTES = "'\"`‘’“”«»";
/** An apostrophe of the service's own words (`the account's list`, `can't`): not a quote mark. */
const APOSTROPHE = /(?<=\p{L})['’](?:s|t|re|ll|ve|d|m)(?!\p{L})/giu;
/** `CODE: the rest`, or the code alone. */
const CODED = /^([A-Z][A-Z0-9_]*)(?::\s*([\s\S]*))?$/;
/** One problem of a reason: `address.zipCode: message`, its field optional. */
const FIELD = String.raw`[A-Za-z][A-Za-z0-9]*(?:\.[A-Za-z][A-Za-z0-9]*)*`;
const PART = new RegExp(String.raw`^(?:(${FIELD}): )?([\s\S]*)$`);
const PART_BREAK = new RegExp(`; (?=${FIELD}: )`);

/** The wire groups a reason names fields by (`address.zipCode`): names that are never personal data. */
const GROUPS: Record<string, ReadonlySet<string>> = {
  address: new Set(Object.keys(RecipientAddress.shape)),
  personal: new Set(Object.keys(RecipientPersonal.shape)),
  metadata: new Set(Object.keys(RecipientMetadata.shape)),
};
const KNOWN_FIELD = /\b(address|personal|metadata)\.([A-Za-z0-9]+)\b/g;

interface Part {
  field: string | undefined;
  /** The quoted value, when the message quotes one. */
  value: string | undefined;
  message: string;
}

/**
 * A service reason with every quoted value taken out: `ADDRESS_NOT_VALID: address.zipCode: not a
 * ZIP or ZIP+4 code`. A value may itself hold a quote, `; ` or a field name, so a reason is shown
 * only when where its values start and end is certain: it quotes one value, or `sent` (the
 * recipient as the service echoed it) has each quoted value at the field the reason names. Any
 * other reason quoting something keeps its code and the fields it names, and no text. A reason
 * without a quote is kept as the service wrote it. Redacting a redacted reason changes nothing.
 */
export function redactReason(reason: string, sent?: OrderRecipient): string {
  // On one line, its control characters escaped (text.ts): a reason is shown in messages, the review and the report.
  const text = oneLine(reason.trim());
  const coded = CODED.exec(text);
  const code = coded?.[1];
  const rest = coded ? (coded[2] ?? "") : text;
  if (quoteMarks(rest).length === 0) return text || NO_REASON;
  const parts = rest.split(PART_BREAK).map(partOf);
  const quoted = parts.filter((p) => p?.value !== undefined) as Part[];
  const certain =
    parts.every((p) => p !== undefined) &&
    (quoted.length === 1 || (sent !== undefined && quoted.every((p) => valueAt(sent, p.field) === p.value)));
  if (certain) {
    const shown = (parts as Part[]).map((p) => (p.field ? `${p.field}: ${p.message}` : p.message)).join("; ");
    return code ? `${code}: ${shown}` : shown;
  }
  const fields = [...new Set(knownFields(rest))];
  if (fields.length === 0) return code ?? NO_REASON;
  return code ? `${code}: ${fields.join("; ")}` : fields.join("; ");
}

/** Where the quote marks of a text are: its quote characters that are not an apostrophe. */
function quoteMarks(text: string): number[] {
  const apostrophes = new Set([...text.matchAll(APOSTROPHE)].map((m) => m.index));
  const marks: number[] = [];
  for (let i = 0; i < text.length; i++)
    if (QUOTES.includes(text.charAt(i)) && !apostrophes.has(i)) marks.push(i);
  return marks;
}

/**
 * A problem of a reason with its quoted value out: a message with no quote mark, or with two
 * around one value (`'5974O' is not a ZIP code`). Undefined for any other number of quote marks.
 */
function partOf(text: string): Part | undefined {
  const [, field, message = ""] = PART.exec(text) ?? [];
  const marks = quoteMarks(message);
  if (marks.length === 0) return { field, value: undefined, message };
  const [open, close] = marks;
  if (marks.length !== 2 || open === undefined || close === undefined) return undefined;
  const before = message.slice(0, open);
  const value = message.slice(open + 1, close);
  const after = message.slice(close + 1);
  // `'5974O' is not a ZIP code` reads `not a ZIP code` after its field; elsewhere the field stands in.
  const opening = /^\s*(?:is|was|are)\s+/;
  const out =
    before.trim() === "" && opening.test(after)
      ? after.replace(opening, "")
      : `${before}${field ? field.slice(field.lastIndexOf(".") + 1) : "the value"}${after}`;
  return { field, value, message: out.trim() };
}

function valueAt(sent: OrderRecipient, field: string | undefined): string | undefined {
  const [group, key, ...more] = (field ?? "").split(".");
  if (more.length > 0 || group === undefined || key === undefined || !Object.hasOwn(GROUPS, group)) return;
  const values = sent[group as "address" | "personal" | "metadata"] as Record<string, unknown> | undefined;
  const value = values?.[key];
  return typeof value === "string" ? value : undefined;
}

function* knownFields(text: string): Generator<string> {
  for (const [name, group = "", key = ""] of text.matchAll(KNOWN_FIELD))
    if (GROUPS[group]?.has(key)) yield name;
}

/** A reason's code (`DO_NOT_MAIL: ...` → `DO_NOT_MAIL`); a reason without one, redacted and cut short. */
export function reasonCode(reason: string): string {
  const code = /^[A-Z][A-Z0-9_]*(?=:|$)/.exec(reason)?.[0];
  if (code) return code;
  const redacted = redactReason(reason);
  return redacted.length > 40 ? `${redacted.slice(0, 40)}…` : redacted;
}

/**
 * Counts summed by reason, most frequent first: by the redacted reason (two reasons that differ
 * only in the value they quoted are one), or by what `keyOf` makes of it (its code, say).
 */
export function sumReasons(
  counts: Iterable<ReasonCount>,
  keyOf: (reason: string) => string = redactReason,
): ReasonCount[] {
  const sums = new Map<string, number>();
  for (const { reason, count } of counts) {
    const key = keyOf(reason);
    sums.set(key, (sums.get(key) ?? 0) + count);
  }
  return [...sums]
    .map(([reason, count]) => ({ reason, count }))
    .sort((a, b) => b.count - a.count || (a.reason < b.reason ? -1 : a.reason > b.reason ? 1 : 0));
}

/** A reason → count record (an OrderRecipients' `dropReasons`) as ReasonCounts. */
export function reasonCounts(record: Readonly<Record<string, unknown>> | undefined): ReasonCount[] {
  return Object.entries(record ?? {})
    .filter((entry): entry is [string, number] => typeof entry[1] === "number")
    .map(([reason, count]) => ({ reason, count }));
}
