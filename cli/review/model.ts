/**
 * What `directmail review` reports (review.json holds it as is; review.md renders it), and the rules
 * that turn the plan, the campaign files and the live service into it: each campaign's action, its
 * ⚠ flags (what spends money or cannot be undone), its problems, and the exit code.
 */
import type { CheckoutPreview } from "../../provider/api/schemas/checkout";
import { isCheckedOut } from "../../provider/api/schemas/order";
import { aboveBudget, type BudgetFigures, budgetLeft } from "../../provider/budget";
import { COMPONENT_TYPE, KIND } from "../../provider/campaign/names";
import type { CampaignDocument, PredictedDrops } from "../../provider/index";
import { aboveMaxTotal, CURRENCY, roundCents, sumCents, usd } from "../../provider/money";
import { overDropLimit } from "../../provider/recipients/index";
import type { DropReport } from "../stack/drop-report";
import type { Diagnostic, PlannedStep } from "./plan";
import type { RecipientChanges } from "./recipients";

export const REPORT_VERSION = 1;

/** Exit codes (the contract a pipeline relies on). */
export const EXIT = {
  /** The change spends nothing and has no irreversible step. */
  nothingToApprove: 0,
  /** Problems: validation errors, a preview failure (a price above maxTotal), an unreachable service. */
  problems: 1,
  /** The change spends money or has an irreversible step: a pipeline requires approval. */
  needsApproval: 3,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export type Action = "create" | "update" | "pay" | "retire" | "delete" | "no change";
const ACTION_ORDER: readonly Action[] = ["create", "update", "pay", "retire", "delete", "no change"];

export type FlagKind =
  | "checkout"
  | "automation-recipients"
  | "paid-order-leaves"
  | "address-book-entry"
  | "code-changed";

/** Each flag's label in the summary and what it means (docs/review.md says the same). */
export const FLAGS: Record<FlagKind, { label: string; meaning: string }> = {
  checkout: {
    label: "checkout",
    meaning:
      "Spends money: merged, `pulumi up` pays for the order, once (and refuses, charging nothing, above maxTotal)",
  },
  "automation-recipients": {
    label: "automation recipients",
    meaning:
      "Sends recipients to an automation, which mails each one as it arrives: a piece sent cannot be recalled",
  },
  "paid-order-leaves": {
    label: "paid order leaves the stack",
    meaning:
      "An order past draft leaves the stack: it stays at the service as it is, nothing is refunded, and the stack no longer tracks it",
  },
  "address-book-entry": {
    label: "address book entry",
    meaning:
      "Adds an entry to the account's address book, which the service cannot delete: removing it from the stack only forgets it, and a changed entry is a new one beside the old",
  },
  "code-changed": {
    label: "code changed",
    meaning:
      "The change alters code, not only campaign files: it runs only after merge, with approval. This review read its campaign files alone, offline, without the stack, the service or a secret",
  },
};

export interface Flag {
  kind: FlagKind;
  detail: string;
}

export interface CheckoutTerms {
  postageType: string;
  productionSpeed: string;
  holdUntilDate?: string;
  autoBill: boolean;
  maxTotal?: number;
}

export interface Quote extends CheckoutTerms {
  orderId: number;
  total: number;
  currency: string;
  /** The pieces priced: the order's mailable recipients at the service now. */
  recipients: number;
  /** What the account's balance covers, and what goes to the payment method. */
  coveredByBalance: number;
  toPaymentMethod: number;
  aboveMaxTotal: boolean;
  estimatedDelivery: { from: string | null; to: string | null };
  lines: { name: string; quantity: number; rate: number; total: number }[];
}

export type Price =
  | { kind: "quote"; quote: Quote }
  /** The order does not exist yet: the service prices an existing order only. */
  | { kind: "after-draft" }
  | { kind: "refused"; reason: string }
  /** The order exists but the service did not price it (unreachable, or the order is gone). */
  | { kind: "unavailable" }
  /** An offline review does not ask the service. */
  | { kind: "offline" }
  | { kind: "paid"; total: number | null }
  | { kind: "none" };

export interface CampaignReview {
  name: string;
  /** The campaign file, relative to the project folder (the head's, else the base's). */
  file: string | undefined;
  orderId: number | undefined;
  /** The order's status at the service now. */
  orderStatus: string | undefined;
  actions: Action[];
  /** Each planned step of the campaign's resources (Pulumi's operation per resource). */
  steps: { resource: string; kind: string; op: string }[];
  recipients: RecipientChanges | undefined;
  /** The draft's drop report now, from the stack's OrderRecipients outputs. */
  drops: DropReport | undefined;
  /** The draft's accepted and dropped recipients after the change, predicted (cli/review/drops.ts). */
  predicted: PredictedDrops | undefined;
  price: Price;
  flags: Flag[];
  problems: string[];
  notes: string[];
  /** The preview's other messages about the campaign. */
  messages: string[];
  /** The proof PDF of the draft, relative to the folder of review.md (`proofs/<campaign>.pdf`). */
  proof: { file: string; bytes: number } | undefined;
}

export interface ValidationProblem {
  file: string;
  line: number;
  column: number;
  message: string;
}

export interface Review {
  version: typeof REPORT_VERSION;
  project: string;
  /** The stack reviewed against; null for an offline review. */
  stack: string | null;
  /** The base ref as given, and its commit; null without --base. */
  base: { ref: string; commit: string } | null;
  /** The service and where its settings came from (never the key); null for an offline review. */
  service: { baseUrl: string; settingsFrom: string } | null;
  /**
   * An offline review (`--offline`): from the campaign files alone, and the paths the change alters
   * outside them (its code), which flag the whole change "code changed". Null for a priced review.
   */
  offline: { codeChanges: string[] } | null;
  campaigns: CampaignReview[];
  validation: ValidationProblem[];
  /** Problems not tied to one campaign: a failed preview, an unreachable service. */
  problems: string[];
  /** The folder of the proof PDFs: relative to the working directory when inside it, else absolute. */
  proofsDir: string | undefined;
  showPersonalData: boolean;
  /** The stack's directmail:monthlyBudget against this month's charges; absent without a budget or a service. */
  budget?: ReviewBudget;
  exitCode: ExitCode;
}

/**
 * directmail:monthlyBudget against what the account is committed to this month (charged, and the
 * checkouts sent and not yet settled) and the checkouts this change prices (`planned`); a checkout
 * whose price is not known yet is not in it.
 */
export interface ReviewBudget extends BudgetFigures {
  /** The first instant of the month the charges are of (UTC, by the service's clock). */
  since: string;
  left: number;
  above: boolean;
  /**
   * Checkouts this change makes whose price `pulumi up` knows only once applied: a new draft, or
   * recipients the change alters.
   */
  unpriced: number;
}

/** Whether a change adds, removes or changes recipients: a quote then prices the list it replaces. */
function changesRecipients(r: RecipientChanges): boolean {
  return r.added + r.removed + r.changed > 0;
}

/**
 * The budget line of a review: the checkouts it prices added to this month's charges, as the plan
 * adds them. A quote of a list this change alters is not the price `pulumi up` will hold, so it is
 * left out, with the checkouts that have no price yet.
 */
export function budgetOf(
  campaigns: readonly CampaignReview[],
  month: { charged: number; unsettled: number; since: Date },
  budget: number,
): ReviewBudget {
  const prices: number[] = [];
  let unpriced = 0;
  for (const c of campaigns) {
    if (c.price.kind === "quote" && !(c.recipients && changesRecipients(c.recipients)))
      prices.push(c.price.quote.total);
    else if (c.price.kind === "quote" || c.price.kind === "after-draft" || c.price.kind === "unavailable")
      unpriced += 1;
  }
  const spent = sumCents([month.charged, month.unsettled]);
  const figures = { spent, unsettled: month.unsettled, planned: sumCents(prices), budget };
  return {
    ...figures,
    since: month.since.toISOString(),
    left: budgetLeft(figures),
    above: aboveBudget(figures),
    unpriced,
  };
}

/** What the service answered to the checkout preview of a planned checkout. */
export type QuoteAnswer = { preview: CheckoutPreview; terms: CheckoutTerms } | { refused: string };

/** Everything known about one campaign before it is judged. */
export interface CampaignFacts {
  name: string;
  file: string | undefined;
  steps: PlannedStep[];
  diagnostics: Diagnostic[];
  /** False when the preview did not run or stopped before this campaign. */
  planned: boolean;
  /**
   * An offline review knows neither the stack nor the service: a campaign at the base counts as
   * deployed, and its order's status and price are unknown.
   */
  offline?: boolean;
  base: CampaignDocument | undefined;
  head: CampaignDocument | undefined;
  orderId: number | undefined;
  /** The order's status at the service now; undefined when it has none (or could not be read). */
  orderStatus: string | undefined;
  /** The deployed checkout's charge, when the stack has a checkout for the campaign. */
  deployedCheckout: { totalCharges: number | null } | undefined;
  drops: DropReport | undefined;
  /** The head's recipients as the draft will hold them after the change; undefined without a head. */
  predicted?: PredictedDrops | undefined;
  recipients: RecipientChanges | undefined;
  /** The service's checkout preview for the planned checkout, or its refusal. */
  quote: QuoteAnswer | undefined;
  proof: { file: string; bytes: number } | undefined;
  notes: string[];
}

const CREATES = new Set(["create", "create-replacement", "replace"]);
const DELETES = new Set(["delete", "delete-replaced", "discard", "replace"]);
const UPDATES = new Set(["update", "import", "import-replacement"]);

/**
 * Resources that send recipients to an automation (integration order), which mails them:
 * AutomationRecipients, and ProximitySearch (the addresses it finds). Resources only: the
 * Automation component that groups them is not one.
 */
const AUTOMATION_KINDS: ReadonlySet<string> = new Set([KIND.AutomationRecipients, KIND.ProximitySearch]);

/**
 * The actions of a campaign. From the plan when the preview reached the campaign; else from its
 * files (a preview that failed early, or did not run because of validation problems).
 */
export function actionsOf(
  facts: Pick<
    CampaignFacts,
    "steps" | "planned" | "offline" | "base" | "head" | "orderId" | "orderStatus" | "recipients"
  >,
): Action[] {
  const actions = new Set<Action>();
  // Offline, an order whose campaign had a checkout at the base is taken as paid.
  const paid = facts.offline ? facts.base?.spec.checkout !== undefined : isCheckedOut(facts.orderStatus);
  const leaving = () => (paid ? "retire" : "delete");
  if (facts.planned) {
    for (const step of facts.steps) {
      const { op, kind } = step;
      if (step.type === COMPONENT_TYPE.Campaign) continue;
      if (kind === KIND.Order) {
        if (CREATES.has(op)) actions.add("create");
        if (UPDATES.has(op)) actions.add("update");
        // retainOnDelete (`retain: true`): the order leaves the stack and stays at the service.
        if (DELETES.has(op)) actions.add(step.retained ? "retire" : leaving());
      } else if (
        kind === KIND.Checkout &&
        !isCheckedOut(facts.orderStatus) &&
        (CREATES.has(op) || UPDATES.has(op))
      ) {
        actions.add("pay");
      } else if (CREATES.has(op) || UPDATES.has(op) || DELETES.has(op)) {
        actions.add("update");
      }
    }
  } else {
    const { base, head } = facts;
    const deployed = facts.offline ? base !== undefined : facts.orderId !== undefined;
    if (head && !deployed) actions.add("create");
    if (base && head && changedSpec(base, head, facts.recipients)) actions.add("update");
    if (base && !head && deployed) actions.add(base.spec.retain ? "retire" : leaving());
  }
  // The files decide whether a merge pays: a failing preview stops before it reaches every
  // campaign, so a Checkout the plan did not get to is still a payment.
  if (facts.head?.spec.checkout && !paid) actions.add("pay");
  // A new order, or one leaving, is the whole story of its other resources.
  if (actions.has("create") || actions.has("retire") || actions.has("delete")) actions.delete("update");
  if (actions.size === 0) actions.add("no change");
  return ACTION_ORDER.filter((a) => actions.has(a));
}

function changedSpec(
  base: CampaignDocument,
  head: CampaignDocument,
  recipients: RecipientChanges | undefined,
) {
  const { checkout: _b, ...baseRest } = base.spec;
  const { checkout: _h, ...headRest } = head.spec;
  const recipientsChanged = recipients
    ? recipients.added + recipients.removed + recipients.changed > 0
    : false;
  return recipientsChanged || JSON.stringify(baseRest) !== JSON.stringify(headRest);
}

/** The checkout terms the plan will use: the planned Checkout's inputs, else the head file's. */
export function checkoutTerms(facts: Pick<CampaignFacts, "steps" | "head">): CheckoutTerms | undefined {
  const planned = facts.steps.find((s) => s.kind === KIND.Checkout && s.newInputs)?.newInputs;
  const source = (planned ?? facts.head?.spec.checkout) as Record<string, unknown> | undefined;
  if (!source || typeof source.postageType !== "string" || typeof source.productionSpeed !== "string")
    return undefined;
  return {
    postageType: source.postageType,
    productionSpeed: source.productionSpeed,
    ...(typeof source.holdUntilDate === "string" ? { holdUntilDate: source.holdUntilDate } : {}),
    autoBill: source.autoBill !== false,
    ...(typeof source.maxTotal === "number" ? { maxTotal: source.maxTotal } : {}),
  };
}

export function quoteOf(preview: CheckoutPreview, terms: CheckoutTerms): Quote {
  const total = roundCents(preview.totalCharges);
  const covered = roundCents(Math.min(preview.totalCredits, total));
  return {
    ...terms,
    orderId: preview.orderId,
    total,
    currency: CURRENCY,
    recipients: Math.max(0, ...preview.lineItems.map((l) => l.quantity)),
    coveredByBalance: covered,
    toPaymentMethod: roundCents(total - covered),
    aboveMaxTotal: aboveMaxTotal(total, terms.maxTotal),
    estimatedDelivery: { from: preview.estimatedDeliveryDateMin, to: preview.estimatedDeliveryDateMax },
    lines: preview.lineItems.map(({ name, quantity, rate, total }) => ({ name, quantity, rate, total })),
  };
}

/** Judges one campaign: its actions, price, flags and problems. */
export function reviewCampaign(facts: CampaignFacts): CampaignReview {
  const actions = actionsOf(facts);
  const flags: Flag[] = [];
  const problems: string[] = [];
  const notes = [...facts.notes];
  if (!facts.planned && facts.steps.length > 0) {
    notes.push("the preview failed on this campaign: its action is read from its campaign files");
  }
  const order = facts.orderId !== undefined ? `order ${facts.orderId}` : "the order";

  let price: Price = { kind: "none" };
  if (actions.includes("pay")) {
    if (facts.quote && "preview" in facts.quote) {
      const quote = quoteOf(facts.quote.preview, facts.quote.terms);
      price = { kind: "quote", quote };
      flags.push({
        kind: "checkout",
        detail: `pays ${usd(quote.total)} for ${quote.recipients} piece${quote.recipients === 1 ? "" : "s"} (${order})`,
      });
      if (quote.aboveMaxTotal) {
        problems.push(
          `the checkout of ${order} would charge ${usd(quote.total)}, more than maxTotal ` +
            `${usd(quote.maxTotal as number)}: \`pulumi up\` refuses it, charging nothing. Raise maxTotal if ` +
            "that is intended, or change the order.",
        );
      }
      const r = facts.recipients;
      if (r && changesRecipients(r)) {
        notes.push(
          `priced for the ${quote.recipients} recipients on ${order} now; this change adds ${r.added}, removes ` +
            `${r.removed} and changes ${r.changed}, and \`pulumi up\` prices the checkout again once they are in ` +
            "(maxTotal guards that price)",
        );
      }
    } else if (facts.quote && "refused" in facts.quote) {
      price = { kind: "refused", reason: facts.quote.refused };
      flags.push({ kind: "checkout", detail: `pays for ${order}` });
      problems.push(`the service refuses to price the checkout of ${order}: ${facts.quote.refused}`);
    } else if (facts.offline) {
      price = { kind: "offline" };
      flags.push({
        kind: "checkout",
        detail: `pays for ${order}, at a price the offline review does not ask`,
      });
    } else if (facts.orderId !== undefined) {
      // The order exists, but its price could not be had (the service unreachable, the order gone).
      price = { kind: "unavailable" };
      flags.push({ kind: "checkout", detail: `pays for ${order}, at a price the service did not give` });
    } else {
      price = { kind: "after-draft" };
      flags.push({
        kind: "checkout",
        detail: "pays for an order that does not exist yet, at a price not known yet",
      });
      notes.push(
        "the price is known once the draft is applied: merge the campaign without `checkout:` first, review the " +
          "draft (its proof, its accepted and dropped recipients, its exact price), then add `checkout:` in a " +
          "second pull request",
      );
    }
  } else if (facts.deployedCheckout && isCheckedOut(facts.orderStatus)) {
    price = { kind: "paid", total: facts.deployedCheckout.totalCharges };
  }

  for (const step of facts.steps) {
    const detail = `${step.kind} ${step.name} (${step.op})`;
    if (AUTOMATION_KINDS.has(step.kind) && (CREATES.has(step.op) || UPDATES.has(step.op))) {
      flags.push({ kind: "automation-recipients", detail });
    }
    // The service has no delete for an entry; a replacement is a create too (any changed input).
    if (step.kind === KIND.AddressBookEntry && CREATES.has(step.op)) {
      flags.push({ kind: "address-book-entry", detail });
    }
  }
  if (actions.includes("retire") && isCheckedOut(facts.orderStatus)) {
    flags.push({
      kind: "paid-order-leaves",
      detail: `${order} is "${facts.orderStatus}": it stays at the service and leaves this stack`,
    });
  }

  const over =
    facts.predicted && overDropLimit(facts.predicted, facts.head?.spec.recipients.maxDroppedPercent);
  if (over) {
    problems.push(
      `after this change ${over}: merged, \`pulumi up\` fails on it. Fix or remove those rows, or raise maxDroppedPercent.`,
    );
  }

  const messages: string[] = [];
  // A Checkout that prices itself at plan time fails the preview above maxTotal: the same refusal
  // as the quote's, said once.
  const refusedAboveMax = price.kind === "quote" && price.quote.aboveMaxTotal;
  for (const diagnostic of facts.diagnostics) {
    if (diagnostic.severity !== "error") messages.push(diagnostic.message);
    else if (!(refusedAboveMax && diagnostic.kind === KIND.Checkout))
      problems.push(`preview: ${diagnostic.message}`);
  }

  return {
    name: facts.name,
    file: facts.file,
    orderId: facts.orderId,
    orderStatus: facts.orderStatus,
    actions,
    steps: facts.steps
      .filter((s) => s.type !== COMPONENT_TYPE.Campaign)
      .map((s) => ({ resource: s.name, kind: s.kind, op: s.op })),
    recipients: facts.recipients,
    drops: facts.drops,
    predicted: facts.predicted,
    price,
    flags,
    problems,
    notes,
    messages,
    proof: facts.proof,
  };
}

/** 1 on any problem; else 3 when anything spends money, cannot be undone or changes code; else 0. */
export function exitCodeOf(
  review: Pick<Review, "campaigns" | "validation" | "problems"> & Partial<Pick<Review, "offline">>,
): ExitCode {
  const problems =
    review.problems.length +
    review.validation.length +
    review.campaigns.reduce((n, c) => n + c.problems.length, 0);
  if (problems > 0) return EXIT.problems;
  const codeChanged = (review.offline?.codeChanges.length ?? 0) > 0;
  return codeChanged || review.campaigns.some((c) => c.flags.length > 0)
    ? EXIT.needsApproval
    : EXIT.nothingToApprove;
}
