/**
 * The checks an order's declaration gets against the live account, before anything is created or
 * paid: the template exists and is a template, the handwriting font is one the service accepts,
 * the QR settings fit the template, and every merge field the template prints is filled in for
 * every recipient. Each finding names the field and says what to do; where it is in a file is the
 * caller's (campaign/online-check.ts, `directmail validate --online`).
 */
import type { Font, Template } from "../api/schemas/templates";
import { oneLine, rowsText } from "../text";
import type { ServiceFacts } from "./facts";

/** What an order declares, as far as these checks go. */
export interface OrderDeclaration {
  templateId: number;
  useQr?: boolean | undefined;
  qrUrl?: string | undefined;
  handwritingFont?: string | undefined;
}

/** One recipient as declared: its row (1-based: line of a CSV or JSON Lines file, else position) and fields. */
export interface DeclaredRow {
  row: number;
  fields: Readonly<Record<string, string | undefined>>;
}

export type CheckedField = "templateId" | "useQr" | "qrUrl" | "handwritingFont" | "recipients";

export interface OnlineFinding {
  field: CheckedField;
  message: string;
  /** For `recipients`: the first rows that lack the field (at most {@link MAX_ROWS_NAMED}). */
  rows?: number[];
}

/** Rows named per missing merge field; the rest are counted. */
export const MAX_ROWS_NAMED = 5;
/** Templates or fonts named in a message; the rest are counted. */
const MAX_NAMED = 10;

const GLOBAL_FONT = "Global";

/** Whether a value is filled in: not blank (a value that starts with a letter or digit is not, without trimming it). */
const filled = (value: string | undefined) =>
  value !== undefined && value !== "" && (value.charCodeAt(0) > 32 || value.trim() !== "");

/**
 * Which fields the recipients of a list fill in, told as the list is read once, row by row in
 * order: for each field, how many recipients lack it and the first MAX_ROWS_NAMED of their rows.
 * It keeps a count a field and a few rows, never a recipient, so the merge fields a template
 * prints are checked without reading the list again.
 */
export class FieldPresence {
  /** Recipients counted. */
  total = 0;
  /** The first MAX_ROWS_NAMED rows: the rows that lack a field none has. */
  readonly #firstRows: number[] = [];
  /** Each field some recipient has, by its number in the arrays below. */
  readonly #numbers = new Map<string, number>();
  /** Recipients that have each field filled in, by number. */
  #filled: number[] = [];
  /** The first rows that lack each field, by number. */
  readonly #missingRows: number[][] = [];
  /** The fields whose first missing rows are not all found yet. */
  #collecting: { field: string; rows: number[] }[] = [];

  /** One recipient, its row after the rows added before it. */
  add(row: number, fields: Readonly<Record<string, string | undefined>>): void {
    this.total += 1;
    if (this.#firstRows.length < MAX_ROWS_NAMED) this.#firstRows.push(row);
    let full = false;
    for (const { field, rows } of this.#collecting) {
      if (filled(fields[field])) continue;
      rows.push(row);
      full ||= rows.length >= MAX_ROWS_NAMED;
    }
    if (full) this.#collecting = this.#collecting.filter(({ rows }) => rows.length < MAX_ROWS_NAMED);
    for (const field in fields) {
      if (!filled(fields[field])) continue;
      const number = this.#numbers.get(field);
      if (number !== undefined) {
        this.#filled[number] = (this.#filled[number] as number) + 1;
        continue;
      }
      // The first recipient with this field: every one before lacked it.
      const rows = this.#firstRows.slice(0, this.total - 1);
      this.#numbers.set(field, this.#filled.length);
      this.#filled.push(1);
      this.#missingRows.push(rows);
      if (rows.length < MAX_ROWS_NAMED) this.#collecting.push({ field, rows });
    }
  }

  /** How many recipients lack `field`, and the first rows that do. */
  missing(field: string): { count: number; rows: number[] } {
    const number = this.#numbers.get(field);
    if (number === undefined) return { count: this.total, rows: [...this.#firstRows] };
    return {
      count: this.total - (this.#filled[number] as number),
      rows: [...(this.#missingRows[number] ?? [])],
    };
  }

  static of(recipients: Iterable<DeclaredRow>): FieldPresence {
    const presence = new FieldPresence();
    for (const { row, fields } of recipients) presence.add(row, fields);
    return presence;
  }
}

/**
 * Runs the checks of one order and its recipients: their rows in order (read once, in one pass),
 * or what FieldPresence told of them as they were read.
 */
export async function checkOrderOnline(
  order: OrderDeclaration,
  recipients: Iterable<DeclaredRow> | FieldPresence,
  facts: ServiceFacts,
): Promise<OnlineFinding[]> {
  const findings: OnlineFinding[] = [];
  const [templates, fonts] = await Promise.all([
    facts.templates(),
    order.handwritingFont !== undefined ? facts.fonts() : Promise.resolve([]),
  ]);
  if (order.handwritingFont !== undefined) {
    const problem = fontProblem(order.handwritingFont, fonts);
    if (problem) findings.push({ field: "handwritingFont", message: problem });
  }
  const template = templates.find((t) => t.id === order.templateId);
  if (!template) {
    findings.push({
      field: "templateId",
      message: await missingTemplate(order.templateId, templates, facts),
    });
    return findings;
  }
  findings.push(...qrFindings(order, template));
  findings.push(...mergeFieldFindings(template, recipients));
  return findings;
}

function quoted(template: Template): string {
  return `template ${template.id} ("${oneLine(template.name)}")`;
}

/** Up to MAX_NAMED items, then how many more. */
function someOf(items: string[]): string {
  const shown = items.slice(0, MAX_NAMED).join(", ");
  return items.length > MAX_NAMED ? `${shown} and ${items.length - MAX_NAMED} more` : shown;
}

async function missingTemplate(id: number, templates: Template[], facts: ServiceFacts): Promise<string> {
  const choices =
    templates.length > 0
      ? `use one of the account's templates: ${someOf(templates.map((t) => `${t.id} "${oneLine(t.name)}"`))}`
      : "the account has no template yet; create one in the web application";
  const order = await facts.order(id);
  if (order) {
    return (
      `templateId: ${id} is an order${order.templateId !== null ? ` made from template ${order.templateId}` : ""}, ` +
      `not a template; ${choices}`
    );
  }
  return `templateId: ${id} is not a template of this account; ${choices}`;
}

function fontProblem(requested: string, fonts: Font[]): string | undefined {
  const wanted = requested.trim().toLowerCase();
  const styles = fonts.filter((f) => (f.type ?? GLOBAL_FONT) === GLOBAL_FONT).map((f) => oneLine(f.name));
  const found = fonts.find((f) => f.name.toLowerCase() === wanted);
  if (found && (found.type ?? GLOBAL_FONT) === GLOBAL_FONT) return undefined;
  const choose = `choose one of the service's handwriting styles: ${someOf(styles)}`;
  return found
    ? `handwritingFont: "${requested}" is a font uploaded to the account, which orders cannot use; ${choose}`
    : `handwritingFont: "${requested}" is not a handwriting style of the service; ${choose}`;
}

function qrFindings(order: OrderDeclaration, template: Template): OnlineFinding[] {
  const findings: OnlineFinding[] = [];
  if (!template.hasQr) {
    const other = "or choose a template with a QR code";
    if (order.useQr !== undefined) {
      findings.push({
        field: "useQr",
        message: `useQr: ${quoted(template)} has no QR code, and the service refuses useQr for it; remove useQr, ${other}`,
      });
    }
    if (order.qrUrl !== undefined) {
      findings.push({
        field: "qrUrl",
        message: `qrUrl: ${quoted(template)} has no QR code, so the URL would be printed nowhere; remove qrUrl, ${other}`,
      });
    }
  } else if (order.useQr === false && order.qrUrl !== undefined) {
    findings.push({
      field: "qrUrl",
      message:
        "qrUrl: useQr is false, which removes the QR code, so the URL would be printed nowhere; " +
        "remove qrUrl, or set useQr to true",
    });
  }
  return findings;
}

function mergeFieldFindings(
  template: Template,
  recipients: Iterable<DeclaredRow> | FieldPresence,
): OnlineFinding[] {
  const printed = (template.requiredMergeFields ?? []).map(oneLine);
  if (printed.length === 0) return [];
  const presence = recipients instanceof FieldPresence ? recipients : FieldPresence.of(recipients);
  const total = presence.total;
  const missing = new Map(printed.map((field) => [field, presence.missing(field)]));
  const findings: OnlineFinding[] = [];
  for (const [field, { count, rows }] of missing) {
    if (count === 0) continue;
    const which =
      count === total ? `none of the ${total} recipients has` : `${count} of ${total} recipients have no`;
    findings.push({
      field: "recipients",
      rows,
      message:
        `${which} ${field} (${rowsText(rows, count)}), which ${quoted(template)} ` +
        `prints; fill in ${field} for every recipient, or choose a template that does not print it`,
    });
  }
  return findings;
}
