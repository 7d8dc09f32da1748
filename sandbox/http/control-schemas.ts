import { z } from "zod";
import { Profile } from "../../provider/api/schemas";

/**
 * The schemas of the control API of the design brief (a contract other tests rely on): what each
 * call reads and what it answers. They are the sandbox's own (not wire types of the service);
 * test/support/sandbox.ts types its helpers from them. Calls marked "extension" are additions
 * beyond the brief's table; the brief's calls keep exactly the brief's shapes.
 */
const tier = z.enum(["basic", "pro"]);
const payment = z.enum(["succeed", "fail", "hang"]);
const apiKey = z.string().min(1);
/**
 * A key chosen for a new account: what an X-API-KEY header carries unchanged (HTTP drops spaces
 * around a header's value), so that a key is always compared exactly as it was made.
 */
const chosenKey = z
  .string()
  .regex(
    /^[\x21-\x7e]+$/,
    "a key is visible ASCII characters, without spaces (an X-API-KEY header carries it)",
  );
/** The most scans one control call records: a whole campaign's worth, and a bound on the numbers. */
export const MAX_SCANS_AT_ONCE = 100_000;

export const ControlSchemas = {
  createAccount: z.object({
    email: z.string().optional(),
    tier: tier.optional(),
    balance: z.number().nonnegative().optional(),
    payment: payment.optional(),
    /** extension */
    firstName: z.string().optional(),
    lastName: z.string().optional(),
    company: z.string().optional(),
    /** extension: the account's key, chosen (a distinctive one a test searches for); a new one otherwise. */
    apiKey: chosenKey.optional(),
  }),
  /** extension: change an account's tier, balance or payment behaviour. */
  updateAccount: z.object({
    apiKey,
    tier: tier.optional(),
    balance: z.number().nonnegative().optional(),
    payment: payment.optional(),
  }),
  /** extension: another key for the same account (earlier keys keep working). */
  addKey: z.object({ apiKey }),
  createTemplate: z.object({
    apiKey,
    name: z.string().min(1),
    product: z.string().min(1).optional(),
    hasQr: z.boolean().optional(),
    qrUrl: z.string().optional(),
    requiredMergeFields: z.array(z.string()).optional(),
  }),
  createIntegrationOrder: z.object({
    apiKey,
    name: z.string().min(1),
    templateId: z.int().positive().optional(),
    status: z.enum(["Active", "Paused"]).optional(),
    postageType: z.string().nullable().optional(),
  }),
  doNotMail: z.object({ apiKey, address1: z.string(), city: z.string(), state: z.string(), zip: z.string() }),
  /** extension: an uploaded account font (which order creation must reject). */
  uploadFont: z.object({ apiKey, name: z.string().min(1) }),
  /** extension: put an order in a state the public API cannot reach (e.g. Edits Needed). */
  orderState: z.object({
    apiKey,
    status: z.string().min(1).optional(),
    paidRecipientSearches: z.int().nonnegative().optional(),
  }),
  advanceClock: z.object({ seconds: z.number().nonnegative() }),
  /** extension: run the clock until the order (or every paid order of the account) is delivered. */
  deliver: z.object({ apiKey, orderId: z.int().positive().optional() }),
  /** extension: QR scans of a mailed order's pieces, applied at once. */
  scans: z.object({ apiKey, count: z.int().min(1).max(MAX_SCANS_AT_ONCE).default(1) }),
  addFault: z.object({
    method: z.string().optional(),
    path: z.string().min(1),
    kind: z.enum(["status", "reset", "delay"]),
    status: z.int().min(100).max(599).optional(),
    delayMs: z.int().nonnegative().optional(),
    times: z.int().positive().optional(),
    probability: z.number().min(0).max(1).optional(),
    after: z.boolean().optional(),
    retryAfterSeconds: z.int().nonnegative().optional(),
  }),
};

export type CreateAccountInput = z.input<typeof ControlSchemas.createAccount>;
export type UpdateAccountInput = z.input<typeof ControlSchemas.updateAccount>;
export type CreateTemplateInput = z.input<typeof ControlSchemas.createTemplate>;
export type CreateIntegrationOrderInput = z.input<typeof ControlSchemas.createIntegrationOrder>;
export type DoNotMailInput = z.input<typeof ControlSchemas.doNotMail>;
export type OrderStateInput = z.input<typeof ControlSchemas.orderState>;
export type AddFaultInput = z.input<typeof ControlSchemas.addFault>;
export type ScansInput = z.input<typeof ControlSchemas.scans>;

/** One entry of `GET /_sandbox/ledger`: a charge or credit of the account. */
const LedgerEntry = z.object({
  id: z.int(),
  orderId: z.int().nullable(),
  /** Groups the entries of one checkout: count distinct ids with `outcome: "succeeded"` to count paid checkouts. */
  checkoutId: z.int().nullable(),
  kind: z.enum(["charge", "credit"]),
  method: z.enum(["card", "balance"]),
  amount: z.number(),
  outcome: z.enum(["succeeded", "failed"]),
  description: z.string(),
  createdAt: z.iso.datetime(),
});
export type LedgerEntry = z.infer<typeof LedgerEntry>;

const id = z.object({ id: z.int() });
const nothing = z.object({});
const rows = z.array(z.record(z.string(), z.unknown()));

/** What each control call answers (status 200); every error is `{ error }`. */
export const ControlResults = {
  account: z.object({ apiKey, profile: Profile, tier, balance: z.number(), payment }),
  key: z.object({ apiKey }),
  id,
  nothing,
  integrationRecipients: z.object({ recipients: rows }),
  orderState: z.object({ orderId: z.int(), status: z.string(), paidRecipientSearches: z.int() }),
  clockAdvanced: z.object({ now: z.iso.datetime() }),
  delivered: z.object({
    /** The clock before and after. */
    from: z.iso.datetime(),
    now: z.iso.datetime(),
    orders: z.array(
      z.object({
        orderId: z.int(),
        status: z.string(),
        totalCards: z.int(),
        delivered: z.int(),
        undeliverable: z.int(),
        /** Why the order is not Complete; null when it is. */
        waiting: z.string().nullable(),
      }),
    ),
  }),
  scanned: z.object({ orderId: z.int(), recorded: z.int(), recipients: z.int(), totalScans: z.int() }),
  clock: z.object({ now: z.iso.datetime(), speed: z.number() }),
  faults: z.object({
    faults: z.array(
      ControlSchemas.addFault.extend({ id: z.int(), fired: z.int(), remaining: z.int().nullable() }),
    ),
  }),
  ledger: z.object({ balance: z.number(), entries: z.array(LedgerEntry) }),
  addressBook: z.object({ entries: rows }),
  error: z.object({ error: z.string() }),
};

export type AccountResult = z.infer<typeof ControlResults.account>;
export type DeliveredResult = z.infer<typeof ControlResults.delivered>;
export type ScannedResult = z.infer<typeof ControlResults.scanned>;
export type LedgerResult = z.infer<typeof ControlResults.ledger>;
