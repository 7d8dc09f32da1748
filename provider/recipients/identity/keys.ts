/**
 * The identity of a declared recipient: the key it travels under to the service and back (a hash
 * of a key column's value, or of its declared content) and its content digest. See survey.ts for
 * why recipients are matched by keys, never by addresses.
 */
import { hash } from "node:crypto";
import { DECLARED_FIELDS, type DeclaredRecipient } from "../declared";
import { KEY_HEX_LENGTH } from "./table";

export function hashKey(text: string): string {
  // One call per recipient, twice a sync: the one-shot hash is several times cheaper than a Hash object.
  return hash("sha256", text, "hex").slice(0, KEY_HEX_LENGTH);
}

/** The key of a recipient under a key column, from the column's value (trimmed). */
export const columnKey = (value: string) => hashKey(`column:${value}`);

/** The declared fields in the order content keys list them, and each one's opening as JSON. */
const FIELDS_IN_KEY_ORDER = [...DECLARED_FIELDS].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
const FIELD_OPENINGS = new Map(FIELDS_IN_KEY_ORDER.map((name) => [name, `[${JSON.stringify(name)},`]));

/** Text that JSON writes as it is, between quotes: no quote, backslash, control character or lone surrogate. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: JSON escapes them, so finding them is the point.
const PLAIN_JSON_TEXT = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;

/**
 * The names of the last recipient contentKey read, in its own order, and which of them it lists,
 * in key order (their places in that order, and their openings). The rows of a list are objects of
 * one shape, so this is worked out once a list, not once a row: each row's values are then read in
 * its own order, without looking up each declared field by its name.
 */
const lastShape = { names: [] as string[], listed: [] as number[], openings: [] as string[] };
/** The values of the recipient being read, in its own order (reused: one call a recipient). */
const valuesInOrder: (string | undefined)[] = [];

function learnShape(recipient: DeclaredRecipient): void {
  const names: string[] = [];
  for (const name in recipient) names.push(name);
  const listed = FIELDS_IN_KEY_ORDER.map((name) => names.indexOf(name)).filter((at) => at >= 0);
  lastShape.names = names;
  lastShape.listed = listed;
  lastShape.openings = listed.map((at) => FIELD_OPENINGS.get(names[at] as keyof DeclaredRecipient) as string);
}

/**
 * The key of a recipient from its declared content: field order and blank fields do not matter.
 * It hashes `JSON.stringify` of the non-blank [name, value] pairs sorted by name, written here
 * without the pairs, and without JSON.stringify for a value that JSON writes as it is (once per
 * recipient, twice a sync).
 */
export function contentKey(recipient: DeclaredRecipient): string {
  let count = 0;
  let sameShape = true;
  for (const name in recipient) {
    if (lastShape.names[count] !== name) sameShape = false;
    valuesInOrder[count++] = recipient[name as keyof DeclaredRecipient];
  }
  if (!sameShape || count !== lastShape.names.length) learnShape(recipient);
  const { listed, openings } = lastShape;
  let json = "[";
  for (let i = 0; i < listed.length; i++) {
    const value = valuesInOrder[listed[i] as number];
    if (value === undefined || value === "") continue;
    const text = PLAIN_JSON_TEXT.test(value) ? `"${value}"` : JSON.stringify(value);
    json += `${json.length > 1 ? "," : ""}${openings[i]}${text}]`;
  }
  return hashKey(`${json}]`);
}
