/**
 * `directmail scans import FILE`: QR code scans collected elsewhere (a landing page's log, another
 * tool's export), recorded at the service (entry 17, one scan record per request). A line names its
 * recipient by the service's ids (`orderId`, `orderRecipientId`), or by its campaign and the value
 * of the campaign's key column (`campaign`, `key`), looked up in the stack's state: the index of
 * keys and recipient ids that OrderRecipients keeps.
 *
 * All or nothing as far as the file goes: every line is checked first (its fields, then that each
 * order and recipient exists at the service), and nothing is sent while any line has a problem;
 * each problem is `file:line: field: what is wrong`. The records then go a few at a time. A record
 * is never sent twice (a repeat would count the scan twice): when one fails, nothing more is
 * started, and the message lists the lines that were not recorded.
 */
import * as fs from "node:fs/promises";
import * as path from "node:path";
import { type Command, InvalidArgumentError } from "commander";
import { CsvError, parse as parseCsv } from "csv-parse";
import type { z } from "zod";
import type { DirectMailClient } from "../../provider/api/client";
import { NotFoundError } from "../../provider/api/errors";
import { plainWords, RecipientStatistic, wholeNumberFromText } from "../../provider/api/schemas";
import { KIND } from "../../provider/campaign/names";
import { parsing } from "../../provider/files/csv";
import { jsonLinesOf } from "../../provider/files/json";
import { textOf } from "../../provider/files/text";
import { MAX_PRINTED_PROBLEMS } from "../../provider/limits";
import { columnKey, decodeIndex, idOf, isAccepted } from "../../provider/recipients/index";
import { shown as shownText } from "../../provider/text";
import { note, say } from "../output";
import { type StackOptions, withStackOptions } from "../stack/options";
import { type ServiceSettings, serviceSettings, withClient } from "../stack/settings";
import { deployedResources } from "../stack/state";

/** Records in flight at once: entry 17 takes one record per request and the spec sets no batch size. */
const CONCURRENCY = 4;
/** A progress line every this many records. */
const PROGRESS_EVERY = 500;

const SCAN_FIELDS = ["orderId", "orderRecipientId", "statisticValue", "statisticName"] as const;
const ScanLine = RecipientStatistic.omit({ orderRecipient: true }).strict();
type ScanLine = z.infer<typeof ScanLine>;

export interface ScanRecord {
  line: number;
  scan: ScanLine;
}

export interface ScanProblem {
  line: number;
  message: string;
}

export interface ReadScans {
  records: ScanRecord[];
  /** Lines that name their recipient by campaign and key, to be looked up (resolveKeyed). */
  keyed: { line: number; fields: Record<string, unknown> }[];
  problems: ScanProblem[];
  problemCount: number;
}

/** The columns that name a recipient by its campaign's key column, instead of the service's ids. */
const KEY_FIELDS = ["campaign", "key"] as const;

/** A campaign's recipients in the stack's state: its order, and its recipients' ids by key. */
export interface CampaignRecipients {
  orderId: number;
  keyColumn: string | undefined;
  /** The recipient id of a key column's value; 0 when the service dropped that recipient. */
  idOf(keyValue: string): number | undefined;
}

/** Looks a campaign up by name; undefined when the stack has none of that name. */
export type CampaignLookup = (campaign: string) => Promise<CampaignRecipients | undefined>;

function positiveInt(value: string): number {
  const n = wholeNumberFromText(value);
  if (n === undefined || n > 2_147_483_647) throw new InvalidArgumentError("expected a whole number");
  return n;
}

export function registerScansCommand(program: Command): void {
  const scans = program.command("scans").description("QR code scans of mailed pieces.");
  withStackOptions(
    scans
      .command("import")
      .description(
        "Record QR code scans collected elsewhere: a CSV file (header row; comma, semicolon or tab separated) or JSON Lines, one scan record per " +
          "line with orderId, orderRecipientId, statisticValue (a whole number) and optionally statisticName; " +
          "or campaign and key (the value of the campaign's key column) instead of the ids, looked up in the stack.",
      )
      .argument("<file>", "a .csv, .jsonl or .ndjson file")
      .option(
        "--statistic-name <n>",
        "statisticName of the lines that have none (its meanings are the service's)",
        positiveInt,
        1,
      ),
  ).action(async (file: string, options: StackOptions & { statisticName: number }) => {
    const read = await readScans(file, options.statisticName);
    const shown = path.relative(process.cwd(), path.resolve(file)) || file;
    if (read.problemCount === 0 && read.records.length + read.keyed.length === 0) {
      throw new Error(`${shown} holds no scan record; nothing was sent`);
    }
    const settings = await serviceSettings(options);
    if (read.keyed.length > 0) await resolveKeyed(read, stackLookup(settings), options.statisticName);
    await withClient(settings, async (client) => {
      // One problem a line of the file, which can be more than a call takes arguments: not push(...list).
      if (read.problemCount === 0)
        for (const problem of await unknownRecipients(client, read.records)) read.problems.push(problem);
      const problems = read.problems;
      const count = Math.max(read.problemCount, problems.length);
      if (problems.length > 0) {
        const lines = problems.slice(0, MAX_PRINTED_PROBLEMS).map((p) => `${shown}:${p.line}: ${p.message}`);
        if (count > lines.length) lines.push(`${shown}: ${count - lines.length} more problems not listed`);
        note(
          `${lines.join("\n")}\n${count} problem${count === 1 ? "" : "s"} in ${shown}; nothing was sent: fix them and import the file again`,
        );
        process.exitCode = 1;
        return;
      }
      const sent = await sendScans(client, read.records, (done) =>
        note(`recorded ${done} of ${read.records.length} scan records`),
      );
      const orders = [...new Set(read.records.map((r) => r.scan.orderId))];
      say(
        `recorded ${sent} scan record${sent === 1 ? "" : "s"} from ${shown} ` +
          `(order${orders.length === 1 ? "" : "s"} ${orders.join(", ")}); the service applies them shortly`,
      );
      say(`(${settings.from})`);
    });
  });
}

/** Reads and checks every line of a CSV or JSON Lines file of scan records, in one pass. */
export async function readScans(file: string, defaultName = 1): Promise<ReadScans> {
  const ext = path.extname(file).toLowerCase();
  const out: ReadScans = { records: [], keyed: [], problems: [], problemCount: 0 };
  const problem = (line: number, message: string) => problemOf(out, line, message);
  const take = (line: number, fields: Record<string, unknown>) => {
    if (KEY_FIELDS.some((k) => given(fields[k]))) {
      out.keyed.push({ line, fields });
      return;
    }
    const scan = checkLine(fields, defaultName);
    if (scan.success) out.records.push({ line, scan: scan.data });
    else for (const message of scan.messages) problem(line, message);
  };
  try {
    await fs.access(file);
  } catch {
    throw new Error(`${file}: no such file`);
  }
  if (ext === ".csv") {
    // Read as recipient files are (a binary file is one error at its line and column); values
    // are not trimmed: a scan value with a space is a problem of its line.
    const parser = parsing(
      textOf(file, file),
      parseCsv({
        columns: true,
        skip_empty_lines: true,
        info: true,
        trim: false,
        delimiter: await headerDelimiter(file),
      }),
    );
    try {
      for await (const { record, info } of parser as AsyncIterable<{
        record: Record<string, string>;
        info: { lines: number };
      }>) {
        take(info.lines, record);
      }
    } catch (error) {
      if (!(error instanceof CsvError)) throw error;
      const line = (error as CsvError & { lines?: number }).lines ?? 1;
      problem(line, `the CSV cannot be read here: ${error.message.replace(/^Invalid [^:]*: /, "")}`);
    }
  } else if (ext === ".jsonl" || ext === ".ndjson") {
    for await (const { row: n, value } of jsonLinesOf(file, file)) {
      if (value instanceof SyntaxError) {
        problem(n, value.message);
        continue;
      }
      if (typeof value !== "object" || value === null || Array.isArray(value)) {
        problem(
          n,
          'expected one scan record, an object such as {"orderId": 12, "orderRecipientId": 5, "statisticValue": "1"}',
        );
        continue;
      }
      take(n, value as Record<string, unknown>);
    }
  } else {
    throw new Error(`${file}: use a .csv, .jsonl or .ndjson file of scan records`);
  }
  return out;
}

/** The separators a spreadsheet exports CSV with: a semicolon where the comma is the decimal mark. */
const DELIMITERS = [",", ";", "\t"] as const;

/** The separator of a CSV file, the one its header row holds most of (a comma when it holds none). */
async function headerDelimiter(file: string): Promise<string> {
  const handle = await fs.open(file);
  try {
    // The header of a scans file is a few short names: its first bytes hold it.
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(4096), 0, 4096, 0);
    const header =
      buffer
        .subarray(0, bytesRead)
        .toString("utf8")
        .split(/\r\n|\n|\r/, 1)[0] ?? "";
    const count = (separator: string) => header.split(separator).length - 1;
    return DELIMITERS.reduce((best, d) => (count(d) > count(best) ? d : best));
  } finally {
    await handle.close();
  }
}

/** A field a line gives: an empty CSV value or a JSON null is none. */
const given = (value: unknown) => value !== undefined && value !== null && value !== "";

/** A problem of a line, listed up to MAX_PRINTED_PROBLEMS, counted always. */
function problemOf(read: Pick<ReadScans, "problems" | "problemCount">, line: number, message: string): void {
  read.problemCount += 1;
  if (read.problems.length < MAX_PRINTED_PROBLEMS) read.problems.push({ line, message });
}

/**
 * The lines that name their recipient by `campaign` and `key` as scan records with the service's
 * ids, each campaign looked up once; a line whose campaign or key is not found is a problem.
 */
export async function resolveKeyed(read: ReadScans, lookup: CampaignLookup, defaultName = 1): Promise<void> {
  const campaigns = new Map<string, Promise<CampaignRecipients | undefined>>();
  for (const { line, fields } of read.keyed) {
    const { campaign, key, ...rest } = fields;
    if (
      typeof campaign !== "string" ||
      campaign === "" ||
      (typeof key !== "string" && typeof key !== "number")
    ) {
      problemOf(read, line, "give both campaign and key (the value of the campaign's key column)");
      continue;
    }
    if (given(rest.orderId) || given(rest.orderRecipientId)) {
      problemOf(read, line, "give either orderId and orderRecipientId, or campaign and key, not both");
      continue;
    }
    let found = campaigns.get(campaign);
    if (!found) {
      found = lookup(campaign);
      campaigns.set(campaign, found);
    }
    const recipients = await found;
    const value = String(key).trim();
    const named = `key "${shownText(value)}"`;
    if (!recipients) {
      problemOf(read, line, `campaign: the stack has no campaign "${shownText(campaign)}" with recipients`);
      continue;
    }
    if (recipients.keyColumn === undefined) {
      problemOf(
        read,
        line,
        `campaign: "${shownText(campaign)}" has no keyColumn, so its recipients have no key; give orderId and orderRecipientId`,
      );
      continue;
    }
    const id = recipients.idOf(value);
    if (id === undefined) {
      problemOf(
        read,
        line,
        `key: ${named} is not a ${shownText(recipients.keyColumn)} of campaign "${shownText(campaign)}"; check the value`,
      );
    } else if (id === 0) {
      problemOf(
        read,
        line,
        `key: ${named} of campaign "${shownText(campaign)}" was dropped by the service: it was never mailed`,
      );
    } else {
      const scan = checkLine({ ...rest, orderId: recipients.orderId, orderRecipientId: id }, defaultName);
      if (scan.success) read.records.push({ line, scan: scan.data });
      else for (const message of scan.messages) problemOf(read, line, message);
    }
  }
  read.keyed = [];
  read.records.sort((a, b) => a.line - b.line);
  read.problems.sort((a, b) => a.line - b.line);
}

/** Campaigns looked up in the state of the stack the settings name. */
function stackLookup(settings: ServiceSettings): CampaignLookup {
  let resources: ReturnType<typeof deployedResources> | undefined;
  return async (campaign) => {
    const selection = settings.stack;
    if (selection === undefined) {
      throw new Error(
        "campaign and key are looked up in a stack's state: run in the Pulumi project with its stack selected " +
          "(or --stack), or give orderId and orderRecipientId",
      );
    }
    // The recipient index, a secret output, says which recipient a key names.
    resources ??= deployedResources(selection, { withSecrets: true });
    const outputs = (await resources).find(
      (r) => r.kind === KIND.OrderRecipients && r.campaign === campaign,
    )?.outputs;
    if (outputs === undefined || typeof outputs.orderId !== "number" || typeof outputs.index !== "string")
      return undefined;
    const keyColumn = typeof outputs.keyColumn === "string" ? outputs.keyColumn : undefined;
    const index = decodeIndex(outputs.index, keyColumn !== undefined);
    return {
      orderId: outputs.orderId,
      keyColumn,
      idOf: (value) => {
        const entry = index.get(columnKey(value));
        if (entry === undefined) return undefined;
        return isAccepted(entry.id) ? idOf(entry.id) : 0;
      },
    };
  };
}

/**
 * One line as a scan record: ids written as text (a CSV) become numbers, a whole-number
 * statisticValue written as a JSON number becomes its text, then the service's schema judges it
 * with the wording every other check uses.
 */
function checkLine(
  fields: Record<string, unknown>,
  defaultName: number,
): { success: true; data: ScanLine } | { success: false; messages: string[] } {
  const value: Record<string, unknown> = { statisticName: defaultName };
  for (const [key, raw] of Object.entries(fields)) {
    if (raw === "" || raw === null) continue;
    if (key === "statisticValue") {
      value[key] = typeof raw === "number" && Number.isInteger(raw) && raw >= 0 ? String(raw) : raw;
    } else if ((SCAN_FIELDS as readonly string[]).includes(key) && typeof raw === "string") {
      value[key] = wholeNumberFromText(raw) ?? raw;
    } else {
      value[key] = raw;
    }
  }
  const parsed = ScanLine.safeParse(value, { error: plainWords });
  if (parsed.success) return { success: true, data: parsed.data };
  return {
    success: false,
    messages: parsed.error.issues.map((issue) => {
      const field = issue.path.map(String).join(".");
      const message = issue.code === "unrecognized_keys" ? unknownFields(issue.keys) : issue.message;
      return field ? `${field}: ${message}` : message;
    }),
  };
}

/**
 * The lines whose order or recipient the account does not have: each order named is listed once
 * (its recipients, page by page), so a wrong id stops the import before anything is sent.
 */
async function unknownRecipients(
  client: DirectMailClient,
  records: readonly ScanRecord[],
): Promise<ScanProblem[]> {
  const problems: ScanProblem[] = [];
  const byOrder = new Map<number, ScanRecord[]>();
  for (const record of records) {
    const list = byOrder.get(record.scan.orderId);
    if (list) list.push(record);
    else byOrder.set(record.scan.orderId, [record]);
  }
  for (const [orderId, lines] of byOrder) {
    const ids = new Set<number>();
    try {
      for await (const recipient of client.iterateRecipients(orderId, { pageSize: 1000 }))
        ids.add(recipient.id);
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
      for (const { line } of lines) {
        problems.push({ line, message: `orderId: ${orderId} is not an order of this account; check the id` });
      }
      continue;
    }
    for (const { line, scan } of lines) {
      if (!ids.has(scan.orderRecipientId)) {
        problems.push({
          line,
          message: `orderRecipientId: ${scan.orderRecipientId} is not a recipient of order ${orderId}; check the id`,
        });
      }
    }
  }
  return problems.sort((a, b) => a.line - b.line);
}

/**
 * Sends every record, CONCURRENCY at a time. On a failure nothing more is started; the error lists
 * the lines not recorded (the failed one included), since sending a recorded one again counts twice.
 */
export async function sendScans(
  client: DirectMailClient,
  records: readonly ScanRecord[],
  progress: (done: number) => void = () => {},
): Promise<number> {
  const recorded = new Set<number>();
  let next = 0;
  let failure: { line: number; error: unknown } | undefined;
  const worker = async () => {
    while (failure === undefined && next < records.length) {
      const record = records[next++] as ScanRecord;
      try {
        await client.recordQrScan(record.scan);
        recorded.add(record.line);
        if (recorded.size % PROGRESS_EVERY === 0) progress(recorded.size);
      } catch (error) {
        failure ??= { line: record.line, error };
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  if (failure) {
    const left = records.filter((r) => !recorded.has(r.line)).map((r) => r.line);
    const listed = left.slice(0, 20).join(", ") + (left.length > 20 ? `, ... (${left.length} lines)` : "");
    throw new Error(
      `line ${failure.line}: ${(failure.error as Error).message}. Recorded ${recorded.size} of ${records.length} ` +
        `scan records; not recorded: line${left.length === 1 ? "" : "s"} ${listed}. Import only those lines again: ` +
        "a recorded scan sent again counts twice",
    );
  }
  return recorded.size;
}

/** Fields a line gives that a scan record has not, and every field it may give instead. */
function unknownFields(keys: readonly string[]): string {
  const named = keys.map((k) => `"${shownText(k)}"`).join(", ");
  return (
    `unknown field${keys.length === 1 ? "" : "s"} ${named}: the fields are ${SCAN_FIELDS.slice(0, -1).join(", ")} ` +
    `and ${SCAN_FIELDS.at(-1)}, or ${KEY_FIELDS.join(" and ")} in place of orderId and orderRecipientId`
  );
}
