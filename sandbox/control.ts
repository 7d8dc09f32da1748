import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import { ApiError } from "./errors";
import type { Sandbox } from "./sandbox";
import type { Account } from "./service";

/**
 * The control API of the design brief (a contract other tests rely on), under /_sandbox/, on
 * loopback only, without X-API-KEY. The schemas here are the sandbox's own (not wire types of the
 * service); test/support/sandbox.ts types its helpers from them. Calls marked "extension" are
 * additions beyond the brief's table; the brief's calls keep exactly the brief's shapes.
 */
const tier = z.enum(["basic", "pro"]);
const payment = z.enum(["succeed", "fail", "hang"]);
const apiKey = z.string().min(1);

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

/** One entry of `GET /_sandbox/ledger`: a charge or credit of the account. */
export interface LedgerEntry {
  id: number;
  orderId: number | null;
  /** Groups the entries of one checkout: count distinct ids with `outcome: "succeeded"` to count paid checkouts. */
  checkoutId: number | null;
  kind: "charge" | "credit";
  method: "card" | "balance";
  amount: number;
  outcome: "succeeded" | "failed";
  description: string;
  createdAt: string;
}

export interface LedgerResult {
  balance: number;
  entries: LedgerEntry[];
}

export interface AccountResult {
  apiKey: string;
  profile: {
    id: number;
    aadId: string;
    email: string;
    firstName: string;
    lastName: string;
    company: string;
    created: string;
    shouldProcessQrCodes: boolean;
  };
  tier: "basic" | "pro";
  balance: number;
  payment: "succeed" | "fail" | "hang";
}

class ControlError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
  }
}

function parse<T extends z.ZodType>(schema: T, body: unknown): z.output<T> {
  const result = schema.safeParse(body ?? {});
  if (!result.success) {
    throw new ControlError(
      400,
      result.error.issues.map((i) => `${i.path.join(".") || "body"}: ${i.message}`).join("; "),
    );
  }
  return result.data;
}

const LOOPBACK = /^(127\.|::1$|::ffff:127\.)/;

export function registerControl(app: FastifyInstance, sb: Sandbox): void {
  const svc = sb.service;
  const accountOf = (key: unknown): Account => {
    const account = typeof key === "string" ? svc.accountByKey(key) : undefined;
    if (!account) throw new ControlError(404, "no account has this apiKey");
    return account;
  };
  const accountResult = (apiKey: string, a: Account): AccountResult => ({
    apiKey,
    profile: svc.profile(a),
    tier: a.tier,
    balance: a.balance,
    payment: a.payment,
  });

  app.register(
    async (control) => {
      control.addHook("onRequest", async (request: FastifyRequest, reply: FastifyReply) => {
        if (!LOOPBACK.test(request.socket.remoteAddress ?? "127.0.0.1")) {
          reply.code(403).send({ error: "the sandbox control API answers on loopback only" });
        }
      });
      control.setErrorHandler((error: unknown, _request, reply) => {
        if (error instanceof ControlError) return reply.code(error.statusCode).send({ error: error.message });
        if (error instanceof ApiError)
          return reply.code(error.statusCode).send({ error: error.messages.join("; ") });
        const status = (error as { statusCode?: number }).statusCode;
        if (status && status < 500) return reply.code(status).send({ error: (error as Error).message });
        sb.log(`control error: ${(error as Error).stack ?? error}`);
        return reply.code(500).send({ error: (error as Error).message });
      });

      control.post("/accounts", async (request) => {
        const body = parse(ControlSchemas.createAccount, request.body);
        const { apiKey, account } = svc.createAccount(body);
        return accountResult(apiKey, account);
      });
      control.patch("/accounts", async (request) => {
        const body = parse(ControlSchemas.updateAccount, request.body);
        const account = svc.updateAccount(accountOf(body.apiKey).id, body);
        return accountResult(body.apiKey, account);
      });
      control.post("/accounts/keys", async (request) => {
        const body = parse(ControlSchemas.addKey, request.body);
        return { apiKey: svc.addKey(accountOf(body.apiKey).id) };
      });
      control.post("/templates", async (request) => {
        const body = parse(ControlSchemas.createTemplate, request.body);
        return svc.createTemplate(accountOf(body.apiKey).id, body);
      });
      control.post("/integration-orders", async (request) => {
        const body = parse(ControlSchemas.createIntegrationOrder, request.body);
        return sb.automations.create(accountOf(body.apiKey).id, body);
      });
      control.get("/integration-orders/:id/recipients", async (request) => {
        const q = request.query as Record<string, unknown>;
        const id = Number((request.params as { id: string }).id);
        return { recipients: sb.automations.recipients(accountOf(q.apiKey).id, id) };
      });
      control.post("/do-not-mail", async (request) => {
        const body = parse(ControlSchemas.doNotMail, request.body);
        svc.addDoNotMail(accountOf(body.apiKey).id, body);
        return {};
      });
      control.post("/fonts", async (request) => {
        const body = parse(ControlSchemas.uploadFont, request.body);
        return svc.addUploadedFont(accountOf(body.apiKey).id, body.name);
      });
      control.post("/orders/:id/state", async (request) => {
        const body = parse(ControlSchemas.orderState, request.body);
        const id = Number((request.params as { id: string }).id);
        const order = svc.forceOrderState(accountOf(body.apiKey).id, id, body);
        return {
          orderId: order.id,
          status: order.status,
          paidRecipientSearches: order.paid_recipient_searches,
        };
      });
      control.post("/clock/advance", async (request) => {
        const body = parse(ControlSchemas.advanceClock, request.body);
        const now = sb.clock.advance(body.seconds);
        svc.tick();
        return { now: now.toISOString() };
      });
      control.get("/clock", async () => ({ now: sb.clock.iso(), speed: sb.clock.speed }));
      control.post("/faults", async (request) => {
        const body = parse(ControlSchemas.addFault, request.body);
        if (body.kind === "status" && body.status === undefined)
          throw new ControlError(400, "status: required when kind is status");
        if (body.kind === "delay" && body.delayMs === undefined)
          throw new ControlError(400, "delayMs: required when kind is delay");
        return { id: sb.faults.add(body).id };
      });
      control.get("/faults", async () => ({
        faults: sb.faults.list().map(({ regex: _regex, remaining, ...f }) => ({
          ...f,
          remaining: Number.isFinite(remaining) ? remaining : null,
        })),
      }));
      control.delete("/faults", async () => {
        sb.faults.clear();
        return {};
      });
      control.get("/ledger", async (request): Promise<LedgerResult> => {
        const account = accountOf((request.query as Record<string, unknown>).apiKey);
        return {
          balance: account.balance,
          entries: svc.ledgerEntries(account.id).map((l) => ({
            id: l.id,
            orderId: l.order_id,
            checkoutId: l.checkout_id,
            kind: l.kind,
            method: l.method,
            amount: l.amount,
            outcome: l.outcome,
            description: l.description,
            createdAt: l.created,
          })),
        };
      });
      control.get("/address-book", async (request) => {
        const account = accountOf((request.query as Record<string, unknown>).apiKey);
        return { entries: sb.engagement.addressBook(account.id) };
      });
      control.post("/reset", async () => {
        sb.reset();
        return {};
      });
    },
    { prefix: "/_sandbox" },
  );
}
