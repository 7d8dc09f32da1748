/**
 * review.md: the report as a pull-request comment. It opens with a summary table (one row per
 * campaign) and the ⚠ flags, then the problems, the details of each campaign in a collapsible
 * section, the validation problems with file:line:col, and where the artifacts are.
 *
 * A comment holds at most 65,536 characters, and the report never exceeds that. The summary and the
 * flags are kept whole; the details are shortened first, then left out, then the lists of
 * validation problems and of problems are cut, and the report says what was left out (review.json
 * has everything).
 *
 * Every text of a campaign file, the plan, the state or the service goes in through markdownText()
 * or codeSpan() (markdown-text.ts): it shows as written and cannot add a link, a mention or markup.
 */

import { type ReasonCount, reasonCode, sumReasons } from "../../provider/api/reasons";
import { isCheckedOut } from "../../provider/api/schemas/order";
import { describeBudget } from "../../provider/budget";
import { usd } from "../../provider/money";
import { rowsText } from "../../provider/text";
import { codeSpan, markdownText } from "./markdown-text";
import {
  type CampaignReview,
  EXIT,
  FLAGS,
  type FlagKind,
  type Price,
  type Review,
  type ReviewBudget,
  type ValidationProblem,
} from "./model";
import type { RecipientChanges, RecipientEntry } from "./recipients";

/** GitHub's limit for a comment body, in characters. */
export const REPORT_LIMIT = 65_536;

/** The first line, by which a pipeline finds its earlier comment to update it in place. */
export const REPORT_MARKER = "<!-- directmail-review -->";

/** Entries listed per kind of recipient change in full details, and in shortened ones. */
const LISTED_FULL = 50;
const LISTED_SHORT = 5;

/** Room kept for the closing lines (artifacts, what was left out). */
const CLOSING_RESERVE = 600;

export function renderMarkdown(review: Review, limit: number = REPORT_LIMIT): string {
  const left: string[] = [];
  const top = header(review);
  const flags = flagsSection(review, limit);
  // Seven parts at most, each joined by a blank line.
  const fixed = top.length + flags.length + CLOSING_RESERVE + 7 * 2;
  let summary = summaryTable(review.campaigns);
  // Only a report of thousands of campaigns needs this: the summary itself is cut, last rows first.
  if (fixed + summary.length > limit) {
    const rows = summary.split("\n");
    let kept = 0;
    let size = -1;
    while (kept < rows.length && fixed + size + (rows[kept] as string).length + 1 <= limit) {
      size += (rows[kept] as string).length + 1;
      kept += 1;
    }
    left.push(`${plural(rows.length - kept, "row")} of the summary`);
    summary = rows.slice(0, kept).join("\n");
  }
  let budget = limit - fixed - summary.length;
  const problems = fitList("### ❌ Problems", problemItems(review), budget, "problems");
  budget -= problems.text.length;
  const validation = fitList(
    "### Validation problems",
    review.validation.map(validationItem),
    budget,
    "validation problems",
  );
  budget -= validation.text.length;
  const details = fitDetails(review, budget);
  for (const part of [problems.left, validation.left, ...details.left]) if (part) left.push(part);
  const text = [top, summary, flags, problems.text, details.text, validation.text, closingLines(review, left)]
    .filter((part) => part !== "")
    .join("\n\n");
  return `${text}\n`;
}

// ---------------------------------------------------------------------------------------------
// Opening: header, summary, flags

function header(review: Review): string {
  const base = review.base
    ? `${codeSpan(review.base.ref)} (${review.base.commit.slice(0, 7)}) → working tree`
    : "no base (--base compares the campaign files with a git ref)";
  const verdict =
    review.exitCode === EXIT.problems
      ? `**❌ Problems: fix them before merging** (exit code ${EXIT.problems}).`
      : review.exitCode === EXIT.needsApproval
        ? `**⚠ Needs approval: this change spends money or cannot be undone** (exit code ${EXIT.needsApproval}).`
        : `**✅ This change spends nothing and has no step that cannot be undone** (exit code ${EXIT.nothingToApprove}).`;
  const target = review.stack !== null ? `stack ${codeSpan(review.stack)}` : "offline";
  const source = review.service
    ? `Service: ${codeSpan(review.service.baseUrl)} (${markdownText(review.service.settingsFrom)}).`
    : "Offline review: read from the campaign files alone, without the stack, the service or a secret; " +
      "the plan, the prices, the drops and the proofs are known once the change is merged.";
  const lines = [REPORT_MARKER, `## directmail review: ${target}, ${base}`, "", verdict, "", source];
  if (review.budget) lines.push("", budgetLine(review.budget));
  return lines.join("\n");
}

/** The budget line: spent this month, planned by this change, left. */
function budgetLine(b: ReviewBudget): string {
  const figures = markdownText(describeBudget(b, new Date(b.since)));
  const above = b.above
    ? "❌ above the budget: `pulumi up` refuses the checkout that would go above it. "
    : "";
  const unpriced =
    b.unpriced > 0
      ? ` Not counted: ${plural(b.unpriced, "checkout")} priced only once applied (a new draft, or recipients ` +
        "this change alters); `pulumi up` holds each against the budget just before it is sent."
      : "";
  return `${above}Budget (directmail:monthlyBudget): ${figures}.${unpriced}`;
}

function summaryTable(campaigns: readonly CampaignReview[]): string {
  if (campaigns.length === 0) return "No campaigns in the plan or the campaign files.";
  const rows = campaigns.map((c) =>
    row([
      `**${markdownText(c.name)}**`,
      c.actions.join(", "),
      recipientsCell(c.recipients),
      dropsCell(c),
      priceCell(c.price),
      [
        ...new Set(c.flags.map((f) => `⚠ ${FLAGS[f.kind].label}`)),
        ...(c.problems.length > 0 ? [`❌ ${plural(c.problems.length, "problem")}`] : []),
      ].join(", "),
    ]),
  );
  return [
    row([
      "Campaign",
      "Action",
      "Recipients (+ added − removed ~ changed)",
      "Accepted / dropped (after the change; now)",
      "Price",
      "⚠",
    ]),
    row(["---", "---", "---", "---", "---", "---"]),
    ...rows,
  ].join("\n");
}

function row(cells: string[]): string {
  return `| ${cells.join(" | ")} |`;
}

function recipientsCell(r: RecipientChanges | undefined): string {
  if (!r || (r.base === undefined && r.head === undefined)) return "—";
  return `+${r.added} −${r.removed} ~${r.changed}`;
}

/** The draft after the change (predicted), then now (the stack's record), each with its top reasons. */
function dropsCell(c: CampaignReview): string {
  const figures = (accepted: number, dropped: number, reasons: readonly ReasonCount[]) => {
    const top = sumReasons(reasons, reasonCode)
      .slice(0, 3)
      .map((r) => `${markdownText(r.reason)} ${r.count}`)
      .join(", ");
    return `${accepted} / ${dropped}${top ? ` (${top})` : ""}`;
  };
  const parts: string[] = [];
  const p = c.predicted;
  if (p) parts.push(`${figures(p.declared - p.dropped, p.dropped, p.reasons)} after the change`);
  if (c.drops) parts.push(`now ${figures(c.drops.accepted, c.drops.dropped, c.drops.reasons)}`);
  return parts.length > 0 ? parts.join("; ") : "—";
}

function priceCell(price: Price): string {
  switch (price.kind) {
    case "quote": {
      const { total, maxTotal, aboveMaxTotal } = price.quote;
      return aboveMaxTotal ? `❌ ${usd(total)} > maxTotal ${usd(maxTotal as number)}` : usd(total);
    }
    case "after-draft":
      return "known after the draft";
    case "refused":
      return "❌ refused by the service";
    case "unavailable":
      return "not known";
    case "offline":
      return "known after merge";
    case "paid":
      return price.total === null ? "paid" : `paid ${usd(price.total)}`;
    case "none":
      return "—";
  }
}

/**
 * Each kind of flag once, with the campaigns it concerns and what it means. Whole, unless a report
 * of thousands of campaigns would spend a quarter of the comment on names alone.
 */
function flagsSection(review: Review, limit: number): string {
  const byKind = new Map<FlagKind, string[]>();
  for (const c of review.campaigns) {
    for (const flag of new Set(c.flags.map((f) => f.kind)))
      byKind.set(flag, [...(byKind.get(flag) ?? []), c.name]);
  }
  const codeChanges = review.offline?.codeChanges ?? [];
  if (byKind.size === 0 && codeChanges.length === 0) return "";
  const room = Math.floor(limit / 4 / (byKind.size + 1));
  const line = (kind: FlagKind, count: string, listed: string) =>
    `- **⚠ ${FLAGS[kind].label}** (${count}): ${listed}. ${markdownText(FLAGS[kind].meaning, { code: true })}.`;
  const lines = [...byKind].map(([kind, names]) =>
    line(
      kind,
      String(names.length),
      fitted(
        names.map((name) => markdownText(name)),
        room,
      ),
    ),
  );
  // The change-wide flag of an offline review, first: the code it alters.
  if (codeChanges.length > 0)
    lines.unshift(
      line(
        "code-changed",
        plural(codeChanges.length, "path"),
        fitted(
          codeChanges.map((file) => codeSpan(file)),
          room,
        ),
      ),
    );
  return ["### ⚠ Needs approval", "", ...lines].join("\n");
}

/** As many of the shown items as fit in `room` characters, and how many more review.json lists. */
function fitted(items: readonly string[], room: number): string {
  const listed: string[] = [];
  let size = 0;
  for (const text of items) {
    if (size + text.length + 2 > room) break;
    listed.push(text);
    size += text.length + 2;
  }
  const more = items.length - listed.length;
  return `${listed.join(", ")}${more > 0 ? ` and ${more} more (review.json lists them)` : ""}`;
}

// ---------------------------------------------------------------------------------------------
// Problems and validation

function problemItems(review: Review): string[] {
  return [
    ...review.problems.map((p) => item(p)),
    ...review.campaigns.flatMap((c) => c.problems.map((p) => item(p, `**${markdownText(c.name)}**: `))),
  ];
}

function validationItem(p: ValidationProblem): string {
  return `- ${codeSpan(`${p.file}:${p.line}:${p.column}`)}: ${markdownText(p.message)}`;
}

/** A list item on one line; the lines of a message are joined by line breaks (`<br>`). */
function item(message: string, prefix = ""): string {
  const lines = message
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "")
    .map((l) => markdownText(l, { code: true }));
  return `- ${prefix}${lines.join("<br>")}`;
}

/** A titled list with as many items as fit in `budget`, and what was left out. */
function fitList(
  title: string,
  items: readonly string[],
  budget: number,
  what: string,
): { text: string; left: string | undefined } {
  if (items.length === 0) return { text: "", left: undefined };
  const lines = [title, ""];
  let size = title.length + 2;
  let kept = 0;
  const more = (n: number) => `- … ${n} more ${what}: see review.json`;
  for (const [index, line] of items.entries()) {
    const tail = index + 1 < items.length ? more(items.length).length + 1 : 0;
    if (size + line.length + 1 + tail > budget) break;
    lines.push(line);
    size += line.length + 1;
    kept += 1;
  }
  if (kept === items.length) return { text: lines.join("\n"), left: undefined };
  if (kept === 0 && size + more(items.length).length > budget)
    return { text: "", left: plural(items.length, what) };
  lines.push(more(items.length - kept));
  return { text: lines.join("\n"), left: `${items.length - kept} ${what}` };
}

// ---------------------------------------------------------------------------------------------
// Details

/** Every campaign's details in full if they fit; else shortened, the first ones in full while they fit; else left out from the end. */
function fitDetails(review: Review, budget: number): { text: string; left: string[] } {
  const title = "### Details";
  if (review.campaigns.length === 0) return { text: "", left: [] };
  // Rendered only as far as needed: thousands of campaigns are tens of megabytes of details.
  const full: string[] = [];
  let used = title.length + 2;
  for (const c of review.campaigns) {
    const text = details(c, review, LISTED_FULL);
    full.push(text);
    used += text.length + 2;
    if (used > budget) break;
  }
  if (used <= budget) return { text: [title, ...full].join("\n\n"), left: [] };
  const chosen: string[] = [];
  used = title.length + 2;
  for (const c of review.campaigns) {
    const text = details(c, review, LISTED_SHORT);
    if (used + text.length + 2 > budget) break;
    chosen.push(text);
    used += text.length + 2;
  }
  // With room left, the first campaigns get their full details back.
  let restored = 0;
  for (const [index, short] of chosen.entries()) {
    const text = full[index] ?? details(review.campaigns[index] as CampaignReview, review, LISTED_FULL);
    if (used + text.length - short.length > budget) break;
    chosen[index] = text;
    used += text.length - short.length;
    restored += 1;
  }
  const left: string[] = [];
  const shortened = chosen.length - restored;
  if (shortened > 0) left.push(`the details of ${plural(shortened, "campaign")} are shortened`);
  const omitted = review.campaigns.length - chosen.length;
  if (omitted > 0) left.push(`the details of ${plural(omitted, "campaign")} are left out`);
  return { text: chosen.length > 0 ? [title, ...chosen].join("\n\n") : "", left };
}

function details(c: CampaignReview, review: Review, listed: number): string {
  const full = listed === LISTED_FULL;
  const order =
    c.orderId !== undefined
      ? ` · order ${c.orderId}${c.orderStatus ? ` (${markdownText(c.orderStatus)})` : ""}`
      : "";
  const lines: string[] = [];
  if (c.file) lines.push(`- File: ${codeSpan(c.file)}`);
  if (c.steps.length > 0) {
    lines.push(
      `- Plan: ${c.steps.map((s) => `${markdownText(s.kind)} ${codeSpan(s.resource)} ${markdownText(s.op)}`).join(" · ")}`,
    );
  }
  lines.push(...recipientLines(c.recipients, listed, review.showPersonalData));
  const reasonsOf = (reasons: readonly ReasonCount[]) =>
    reasons.map((r) => `${codeSpan(r.reason)} ${r.count}`).join(", ");
  if (c.predicted) {
    const p = c.predicted;
    const why = p.dropped > 0 ? ` (${rowsText(p.rows, p.dropped)}: ${reasonsOf(p.reasons)})` : "";
    lines.push(
      `- After this change (predicted by the service's address rules): ${p.declared - p.dropped} accepted, ${p.dropped} dropped${why}`,
    );
  }
  if (c.drops) {
    const reasons = reasonsOf(c.drops.reasons);
    // Only a draft's recipients change with the next `up`; an order past draft keeps those it was sent with.
    const on = isCheckedOut(c.orderStatus)
      ? `On order ${c.orderId ?? "?"} (${markdownText(c.orderStatus)}, checked out: its recipients no longer change)`
      : "On the draft now (current)";
    lines.push(
      `- ${on}: ${c.drops.accepted} accepted, ${c.drops.dropped} dropped${reasons ? ` (${reasons})` : ""}`,
    );
  }
  lines.push(...priceLines(c.price, full));
  if (c.proof) lines.push(`- Proof: ${codeSpan(c.proof.file)} (${c.proof.bytes} bytes)`);
  for (const flag of c.flags) lines.push(`- ⚠ ${FLAGS[flag.kind].label}: ${markdownText(flag.detail)}`);
  for (const problem of c.problems) lines.push(item(problem, "❌ "));
  for (const note of c.notes) lines.push(item(note, "Note: "));
  if (full) for (const message of c.messages) lines.push(item(message, "Preview: "));
  return [
    `<details><summary><b>${markdownText(c.name)}</b>: ${c.actions.join(", ")}${order}</summary>`,
    "",
    ...lines,
    "",
    "</details>",
  ].join("\n");
}

function recipientLines(r: RecipientChanges | undefined, listed: number, personal: boolean): string[] {
  if (!r) return [];
  const lines: string[] = [];
  const by = r.by === "key" ? `by ${codeSpan(r.keyColumn ?? "")}` : "by content (no key column)";
  const side = (s: RecipientChanges["base"], label: string) =>
    s ? `${s.count} at the ${label} (${codeSpan(s.shownAs)})` : `none at the ${label}`;
  lines.push(`- Recipients ${by}: ${side(r.base, "base")} → ${side(r.head, "head")}`);
  const list = (label: string, count: number, entries: readonly RecipientEntry[], at: string) => {
    if (count === 0) return;
    const shown = entries.slice(0, listed).map((e) => entryText(e, r.by, at, personal));
    const more = count - shown.length;
    lines.push(`  - ${label} ${count}: ${shown.join(", ")}${more > 0 ? `, and ${more} more` : ""}`);
  };
  list("added", r.added, r.addedList, "head");
  list("removed", r.removed, r.removedList, "base");
  list("changed", r.changed, r.changedList, "head");
  for (const note of r.notes) lines.push(`  - Note: ${markdownText(note, { code: true })}`);
  return lines;
}

function entryText(e: RecipientEntry, by: "key" | "content", at: string, personal: boolean): string {
  const where = `row ${e.row}${at === "base" ? " at the base" : ""}`;
  const fields = e.fields ? `: ${markdownText(e.fields.join(", "))}` : "";
  const who = by === "key" ? `${codeSpan(e.key ?? "")} (${where}${fields})` : `${where}${fields}`;
  if (!personal || e.personal === undefined) return who;
  return `${who} ${markdownText(e.before !== undefined ? `${e.before} → ${e.personal}` : e.personal)}`;
}

function priceLines(price: Price, full: boolean): string[] {
  switch (price.kind) {
    case "quote": {
      const q = price.quote;
      const terms = markdownText(
        [
          `${q.postageType} postage`,
          `${q.productionSpeed} production`,
          ...(q.holdUntilDate ? [`held until ${q.holdUntilDate}`] : []),
        ].join(", "),
      );
      const billing =
        q.toPaymentMethod === 0
          ? "the account's balance covers all of it"
          : `the account's balance covers ${usd(q.coveredByBalance)}, ${usd(q.toPaymentMethod)} goes to the payment method`;
      const delivery =
        q.estimatedDelivery.from && q.estimatedDelivery.to
          ? `; delivery expected ${markdownText(`${q.estimatedDelivery.from.slice(0, 10)} to ${q.estimatedDelivery.to.slice(0, 10)}`)}`
          : "";
      const guard = q.maxTotal !== undefined ? `; maxTotal ${usd(q.maxTotal)}` : "; no maxTotal";
      const lines = [
        `- Price: **${usd(q.total)}** for ${plural(q.recipients, "piece")} of order ${q.orderId} (the service's checkout preview), ${terms}; ${billing}${delivery}${guard}`,
      ];
      if (full) {
        for (const l of q.lines)
          lines.push(`  - ${markdownText(l.name)}: ${l.quantity} × ${usd(l.rate)} = ${usd(l.total)}`);
      }
      return lines;
    }
    case "after-draft":
      return ["- Price: known once the draft is applied (the service prices an existing order)"];
    case "refused":
      return [`- Price: the service refuses the checkout preview: ${markdownText(price.reason)}`];
    case "unavailable":
      return ["- Price: not known: the service did not give it (see the problems)"];
    case "offline":
      return ["- Price: not asked (an offline review): the deploy prices the checkout, within maxTotal"];
    case "paid":
      return [`- Paid${price.total === null ? "" : `: ${usd(price.total)}`}`];
    case "none":
      return [];
  }
}

// ---------------------------------------------------------------------------------------------
// Closing

function closingLines(review: Review, left: readonly string[]): string {
  const lines: string[] = [];
  const proofs = review.campaigns.filter((c) => c.proof).length;
  if (review.proofsDir && proofs > 0) {
    lines.push(`Proofs of the drafts (${plural(proofs, "PDF")}): ${codeSpan(`${review.proofsDir}/`)}.`);
  }
  if (review.showPersonalData)
    lines.push("This report shows recipients' names and addresses (--show-personal-data).");
  if (left.length > 0) {
    lines.push(
      `Left out to stay within ${REPORT_LIMIT.toLocaleString("en-US")} characters: ${left.join("; ")}. ` +
        "review.json has all of it.",
    );
  }
  return lines.join("\n\n");
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}
