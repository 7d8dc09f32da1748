/**
 * Zod issues as messages a person reads: the one place that words them, for the client's and the
 * sandbox's validation errors, the resources' check hooks and the campaign files' loader (and so
 * `directmail validate`).
 *
 * - A path reads as a program or a file writes it: `recipients[3].address.zipCode`.
 * - A schema that words an issue itself (`z.int("templateId must be a whole number")`) keeps its
 *   words. Elsewhere {@link plainWords} says what is expected and what was found, in words rather
 *   than zod's (`must be one of Standard, FirstClass; found "Fast"`), and names the allowed keys
 *   beside an unknown one, with the one probably meant.
 * - Names and values from the input are shown short and escaped ({@link shown}).
 */
import { z } from "zod";
import { shown } from "../../text";

/** A path as a program or a file writes it: `recipients[3].address.zipCode`, after `root` if given. */
export function formatPath(path: readonly PropertyKey[], root = ""): string {
  let out = root;
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out ? `.${shown(String(part))}` : shown(String(part));
  }
  return out;
}

/**
 * One line per issue, naming the field by its path (`recipients[3].address.zipCode: ...`), for
 * validation errors that tell the user exactly what to fix.
 */
export function formatIssues(issues: readonly z.core.$ZodIssue[], root = ""): string[] {
  return issues.map((issue) => {
    const path = formatPath(issue.path, root);
    return path ? `${path}: ${issue.message}` : issue.message;
  });
}

/** How kinds of values are named: a program has objects and lists; a YAML file, sections and lists. */
export interface Vocabulary {
  /** A value with keys, expected or found. */
  object: string;
  /** A list, as expected. */
  list: string;
}

/** The kinds of values of a program (and of JSON). */
export const PROGRAM_WORDS: Vocabulary = { object: "an object", list: "a list" };

export interface Wording {
  /** The value the issue is about: shown as what was found. */
  value: unknown;
  /** The schema wants a whole number: zod reports text given for one as "expected number". */
  int?: boolean;
  words?: Vocabulary;
}

/**
 * An issue in plain words, without its path: `must be a whole number; found "ten"`. Undefined
 * for an issue whose own message says it better (a refinement's, an unknown format's).
 */
export function plainMessage(issue: z.core.$ZodIssue, wording: Wording): string | undefined {
  const words = wording.words ?? PROGRAM_WORDS;
  const found = describeValue(wording.value, words);
  switch (issue.code) {
    case "invalid_type": {
      const expected = issue.expected === "number" && wording.int ? "int" : issue.expected;
      return `must be ${expectedText(expected, words)}; found ${found}`;
    }
    case "invalid_value":
      return issue.values.length === 1
        ? `must be ${String(issue.values[0])}; found ${found}`
        : `must be one of ${issue.values.map(String).join(", ")}; found ${found}`;
    case "too_small":
      if (issue.origin === "string" && Number(issue.minimum) === 1) return "must not be empty";
      if (issue.origin === "string") return `must be at least ${issue.minimum} characters long`;
      if (issue.origin === "array") return `must have at least ${issue.minimum} items`;
      return `must be ${issue.inclusive ? "at least" : "greater than"} ${issue.minimum}; found ${found}`;
    case "too_big":
      if (issue.origin === "string") return `must be at most ${issue.maximum} characters long`;
      if (issue.origin === "array") return `must have at most ${issue.maximum} items`;
      return `must be ${issue.inclusive ? "at most" : "less than"} ${issue.maximum}; found ${found}`;
    case "invalid_format":
      if (issue.format === "url")
        return `must be a web address such as https://example.com/offer; found ${found}`;
      if (issue.format === "datetime") {
        return `must be a date and time with a time zone, such as 2026-05-01T09:00:00Z; found ${found}`;
      }
      // A pattern's own message says what it wants (a campaign name's, say); the value is added.
      return issue.message === undefined ? undefined : `${issue.message}; found ${found}`;
    case "invalid_union":
      return `must be text or a number; found ${found}`;
    default:
      return undefined;
  }
}

/**
 * An unknown key, with the allowed key probably meant (another case, or a typo within two edits)
 * and the allowed keys: `unknown key "colour"; allowed keys: templateId, useQr`.
 */
export function unknownKeyMessage(name: string, allowed: readonly string[]): string {
  const near = allowed.find((k) => k.toLowerCase() === name.toLowerCase() || isNear(k, name));
  return (
    `unknown key "${shown(name)}"` +
    (near ? ` (did you mean "${near}"?)` : "") +
    (allowed.length > 0 ? `; allowed keys: ${allowed.join(", ")}` : "")
  );
}

/**
 * A zod error map that words, in plain words, every issue its schema does not word itself:
 * `schema.safeParse(value, { error: plainWords })`. What it leaves (undefined) zod words.
 */
export const plainWords: z.core.$ZodErrorMap = (raw) => {
  const issue = raw as z.core.$ZodIssue;
  if (issue.code === "unrecognized_keys") {
    const allowed = raw.inst instanceof z.ZodObject ? Object.keys(raw.inst.shape) : [];
    return issue.keys.map((key) => unknownKeyMessage(key, allowed)).join("; ");
  }
  return plainMessage(issue, { value: raw.input, int: isIntSchema(raw.inst) });
};

/** A whole-number schema (`z.int()`), which zod reports as "expected number" for a value of another type. */
export function isIntSchema(schema: unknown): boolean {
  return schema instanceof z.ZodNumber && Boolean(schema.format?.includes("int"));
}

function expectedText(expected: string, words: Vocabulary): string {
  switch (expected) {
    case "string":
      return "text";
    case "number":
      return "a number";
    case "int":
      return "a whole number";
    case "boolean":
      return "true or false";
    case "object":
    case "record":
      return words.object;
    case "array":
      return words.list;
    default:
      return expected;
  }
}

/** A found value as a message shows it: short, escaped text in quotes; the kind of a list or an object. */
function describeValue(value: unknown, words: Vocabulary): string {
  if (value === null || value === undefined) return "nothing (an empty value)";
  if (typeof value === "string") return `"${shown(value, 40)}"`;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return words.object;
  return typeof value;
}

/** Within two edits: a likely typo. (The length difference alone rules out most names, at no cost.) */
function isNear(a: string, b: string): boolean {
  return Math.abs(a.length - b.length) <= 2 && editDistance(a, b) <= 2;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0] as number;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j] as number;
      row[j] = Math.min(current + 1, (row[j - 1] as number) + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length] as number;
}
