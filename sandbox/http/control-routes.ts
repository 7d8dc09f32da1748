import type { FastifyPluginAsync, FastifyRequest, FastifySchemaCompiler } from "fastify";
import type { z } from "zod";
import { formatPath } from "../../provider/api/schemas/issues";
import type { Accounts } from "../domain/accounts";
import type { AddressBook } from "../domain/address-book";
import type { Automations } from "../domain/automations";
import { ApiError } from "../domain/errors";
import type { FastForward } from "../domain/fast-forward";
import type { Orders } from "../domain/orders";
import type { Scans } from "../domain/scans";
import type { Scheduler } from "../domain/scheduler";
import type { Templates } from "../domain/templates";
import type { SandboxClock } from "../storage/clock";
import type { Account } from "../storage/rows";
import { checkRequestBounds } from "./bounds";
import { ControlSchemas, ControlResults as R } from "./control-schemas";
import type { FaultTable } from "./faults";
import { serializerCompiler } from "./zod";

/** What the control API reaches: the domain parts, the clock and the faults, and a whole reset. */
export interface ControlParts {
  accounts: Accounts;
  templates: Templates;
  orders: Orders;
  automations: Automations;
  scans: Scans;
  addressBook: AddressBook;
  fastForward: FastForward;
  scheduler: Scheduler;
  clock: SandboxClock;
  faults: FaultTable;
  /** Empties every table, resets the clock, clears faults (after the control operations before it). */
  reset: () => Promise<void>;
  log: (line: string) => void;
}

class ControlError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
  }
}

/** A control body read with its schema (a missing body is `{}`), or a 400 naming each field. */
const controlValidatorCompiler: FastifySchemaCompiler<z.ZodType> =
  ({ schema }) =>
  (body) => {
    const result = schema.safeParse(body ?? {});
    if (result.success) return { value: result.data };
    return {
      error: new ControlError(
        400,
        result.error.issues.map((i) => `${formatPath(i.path) || "body"}: ${i.message}`).join("; "),
      ),
    };
  };

/**
 * The control API of the design brief, under /_sandbox/ (the prefix it is registered with), for
 * local tools only (loopback peers, Host, Origin and content type: local-callers.ts, checked by the
 * app before anything runs), without X-API-KEY. Its answers are written through `ControlResults`.
 */
export const controlRoutes: FastifyPluginAsync<ControlParts> = async (control, parts) => {
  const {
    accounts,
    templates,
    orders,
    automations,
    scans,
    addressBook,
    fastForward,
    scheduler,
    clock,
    faults,
  } = parts;
  control.setValidatorCompiler(controlValidatorCompiler);
  control.setSerializerCompiler(serializerCompiler);

  const accountOf = (key: unknown): Account => {
    const account = typeof key === "string" ? accounts.byKey(key) : undefined;
    if (!account) throw new ControlError(404, "no account has this apiKey");
    return account;
  };
  const accountResult = (apiKey: string, a: Account): z.input<typeof R.account> => ({
    apiKey,
    profile: accounts.profile(a),
    tier: a.tier,
    balance: a.balance,
    payment: a.payment,
  });

  // The sandbox's bounds (a clock step, a delay), after each call's schema.
  control.addHook("preHandler", async (request) => checkRequestBounds(request));
  control.setErrorHandler((error: unknown, _request, reply) => {
    if (error instanceof ControlError) return reply.code(error.statusCode).send({ error: error.message });
    if (error instanceof ApiError)
      return reply.code(error.statusCode).send({ error: error.messages.join("; ") });
    const status = (error as { statusCode?: number }).statusCode;
    if (status && status < 500) return reply.code(status).send({ error: (error as Error).message });
    parts.log(`control error: ${(error as Error).stack ?? error}`);
    return reply.code(500).send({ error: (error as Error).message });
  });

  /** One control call: its body's schema (null: it reads none), its answer's schema, what it does. */
  const call = <B extends z.ZodType>(
    method: "GET" | "POST" | "PATCH" | "DELETE",
    url: string,
    body: B | null,
    answer: z.ZodType,
    run: (body: z.output<B>, request: FastifyRequest) => unknown,
  ) =>
    control.route({
      method,
      url,
      schema: { ...(body ? { body } : {}), response: { 200: answer, "4xx": R.error, "5xx": R.error } },
      handler: async (request) => run(request.body as z.output<B>, request),
    });
  const idParam = (request: FastifyRequest) => Number((request.params as { id: string }).id);
  const queryAccount = (request: FastifyRequest) =>
    accountOf((request.query as Record<string, unknown>).apiKey);

  const S = ControlSchemas;
  call("POST", "/accounts", S.createAccount, R.account, (body) => {
    if (body.apiKey !== undefined && accounts.authenticate(body.apiKey))
      throw new ControlError(409, "this apiKey is already an account's key; choose another");
    const { apiKey, account } = accounts.create(body);
    return accountResult(apiKey, account);
  });
  call("PATCH", "/accounts", S.updateAccount, R.account, (body) =>
    accountResult(body.apiKey, accounts.update(accountOf(body.apiKey).id, body)),
  );
  call("POST", "/accounts/keys", S.addKey, R.key, (body) => ({
    apiKey: accounts.addKey(accountOf(body.apiKey).id),
  }));
  call("POST", "/templates", S.createTemplate, R.id, (body) =>
    templates.create(accountOf(body.apiKey).id, body),
  );
  call("POST", "/integration-orders", S.createIntegrationOrder, R.id, (body) =>
    automations.create(accountOf(body.apiKey).id, body),
  );
  call("GET", "/integration-orders/:id/recipients", null, R.integrationRecipients, (_, request) => ({
    recipients: automations.recipients(queryAccount(request).id, idParam(request)),
  }));
  call("POST", "/do-not-mail", S.doNotMail, R.nothing, (body) => {
    accounts.addDoNotMail(accountOf(body.apiKey).id, body);
    return {};
  });
  call("POST", "/fonts", S.uploadFont, R.id, (body) =>
    templates.addUploadedFont(accountOf(body.apiKey).id, body.name),
  );
  call("POST", "/orders/:id/state", S.orderState, R.orderState, (body, request) => {
    const order = orders.forceState(accountOf(body.apiKey).id, idParam(request), body);
    return { orderId: order.id, status: order.status, paidRecipientSearches: order.paid_recipient_searches };
  });
  call("POST", "/clock/advance", S.advanceClock, R.clockAdvanced, async (body) => {
    // Answered once all the step made due has run; other requests are served meanwhile.
    const now = await scheduler.advanceBy(body.seconds);
    return { now: now.toISOString() };
  });
  call("GET", "/clock", null, R.clock, () => ({ now: clock.iso(), speed: clock.speed }));
  call("POST", "/deliver", S.deliver, R.delivered, (body) =>
    fastForward.deliver(accountOf(body.apiKey).id, body.orderId),
  );
  call("POST", "/orders/:id/scans", S.scans, R.scanned, (body, request) =>
    scans.simulate(accountOf(body.apiKey).id, idParam(request), body.count),
  );
  call("POST", "/faults", S.addFault, R.id, (body) => {
    if (body.kind === "status" && body.status === undefined)
      throw new ControlError(400, "status: required when kind is status");
    if (body.kind === "delay" && body.delayMs === undefined)
      throw new ControlError(400, "delayMs: required when kind is delay");
    return { id: faults.add(body).id };
  });
  call("GET", "/faults", null, R.faults, () => ({
    faults: faults.list().map(({ regex: _regex, remaining, ...f }) => ({
      ...f,
      remaining: Number.isFinite(remaining) ? remaining : null,
    })),
  }));
  call("DELETE", "/faults", null, R.nothing, () => {
    faults.clear();
    return {};
  });
  call("GET", "/ledger", null, R.ledger, (_, request) => {
    const account = queryAccount(request);
    return {
      balance: account.balance,
      entries: accounts.ledgerEntries(account.id).map((l) => ({
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
  call("GET", "/address-book", null, R.addressBook, (_, request) => ({
    entries: addressBook.list(queryAccount(request).id),
  }));
  call("POST", "/reset", null, R.nothing, async () => {
    await parts.reset();
    return {};
  });
};
