import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import type { z } from "zod";
import { endpoints, type OperationId } from "../provider/api/endpoints";
import * as S from "../provider/api/schemas";
import { DEFAULT_TIMINGS, type Timings } from "./assumptions";
import { Automations } from "./automations";
import { SandboxClock } from "./clock";
import { registerControl } from "./control";
import { Engagement } from "./engagement";
import { envelope } from "./envelope";
import { ApiError } from "./errors";
import { type Fault, FaultTable } from "./faults";
import { type Account, SandboxService } from "./service";
import { Store } from "./store";
import { type Answer, type Call, handlers, parseWith, RAW_BODY, routePaths } from "./v1";

export interface SandboxOptions {
  /** A SQLite file path, or `:memory:` (tests). */
  storage: string;
  /** Clock speed: sandbox seconds per wall second (default 1). */
  speed?: number;
  timings?: Partial<Timings>;
  /**
   * Check every JSON response against the shared schemas before sending it; a mismatch is a 500
   * naming the field (tests turn this on, so the sandbox cannot drift from the client).
   */
  validateResponses?: boolean;
  /** One line per request and errors; default: stderr. Pass `() => {}` to silence. */
  log?: (line: string) => void;
  /** false: no line per request (errors are still logged). Default true. */
  requestLog?: boolean;
  /** Source of randomness for fault probabilities (tests make it deterministic). */
  random?: () => number;
}

declare module "fastify" {
  interface FastifyRequest {
    fault?: Fault;
    account?: Account;
    startedAt?: bigint;
  }
}

/** A running sandbox: the service, its clock, faults, and the HTTP server in front of them. */
export class Sandbox {
  readonly store: Store;
  readonly clock: SandboxClock;
  readonly service: SandboxService;
  readonly automations: Automations;
  readonly engagement: Engagement;
  readonly faults: FaultTable;
  readonly app: FastifyInstance;
  readonly log: (line: string) => void;
  private closed = false;

  constructor(readonly options: SandboxOptions) {
    this.log = options.log ?? ((line) => process.stderr.write(`${line}\n`));
    this.store = new Store(options.storage);
    this.clock = new SandboxClock(this.store, options.speed ?? 1);
    this.service = new SandboxService(
      this.store,
      this.clock,
      { ...DEFAULT_TIMINGS, ...options.timings },
      (event, error) =>
        this.log(
          `timed work ${event.kind} ${event.ref} failed and was dropped: ${(error as Error)?.stack ?? String(error)}`,
        ),
    );
    this.automations = new Automations(this.service);
    this.engagement = new Engagement(this.service);
    this.faults = new FaultTable(options.random);
    this.app = this.buildApp();
  }

  reset(): void {
    this.store.reset();
    this.service.forgetCaches();
    this.clock.reset();
    this.faults.clear();
  }

  private buildApp(): FastifyInstance {
    // 5,000 recipients with every field filled are a few MB; the spec's limit is the count, not bytes.
    const app = Fastify({ logger: false, bodyLimit: 64 * 1024 * 1024, forceCloseConnections: true });

    // An empty body with a JSON content type (a DELETE from many clients) is no body, not a 400.
    app.addContentTypeParser("application/json", { parseAs: "string" }, (_req, text, done) => {
      const source = String(text);
      if (source.trim() === "") return done(null, undefined);
      try {
        done(null, JSON.parse(source));
      } catch (error) {
        done(
          new ApiError(400, "INVALID_JSON", [`body: not valid JSON (${(error as Error).message})`]),
          undefined,
        );
      }
    });

    app.addHook("onRequest", async (request, reply) => {
      request.startedAt = process.hrtime.bigint();
      if (request.url.startsWith("/_sandbox/")) {
        // The control API is never faulted, but what it reads (the ledger) is as current as the API.
        this.service.tick();
        return;
      }
      const path = request.url.split("?")[0] ?? request.url;
      const fault = this.faults.take(request.method, path);
      if (fault && !fault.after) {
        if (fault.kind === "delay") {
          await sleep(fault.delayMs ?? 0);
        } else if (fault.kind === "reset") {
          request.raw.socket.destroy();
          reply.hijack();
          return;
        } else {
          return this.sendFault(reply, fault);
        }
      } else if (fault) {
        request.fault = fault;
      }
      // Bring timed work (settlement, production, scans, ...) up to the clock before reading.
      this.service.tick();
    });

    app.addHook("onSend", async (request, reply, payload) => {
      const fault = request.fault;
      if (!fault) return payload;
      request.fault = undefined;
      if (fault.kind === "delay") {
        await sleep(fault.delayMs ?? 0);
        return payload;
      }
      if (fault.kind === "reset") {
        // The request took effect; the client never hears so.
        request.raw.socket.destroy();
        return payload;
      }
      this.faultHeaders(reply, fault);
      return fault.status === 403 || fault.status === 204 ? "" : JSON.stringify(this.faultBody(fault));
    });

    if (this.options.requestLog !== false) this.addRequestLog(app);

    app.setErrorHandler((error, request, reply) => this.sendError(request, reply, error));
    app.setNotFoundHandler((request, reply) => {
      reply.code(404).send(
        envelope(null, null, {
          errorCode: "NOT_FOUND",
          errors: [`no operation at ${request.method} ${request.url.split("?")[0]}`],
        }),
      );
    });

    registerControl(app, this);
    this.registerV1(app);
    return app;
  }

  /** One line per request: time, method, path and query (keys masked), status, duration. */
  private addRequestLog(app: FastifyInstance): void {
    app.addHook("onResponse", async (request, reply) => {
      const ms = request.startedAt ? Number(process.hrtime.bigint() - request.startedAt) / 1e6 : 0;
      // The control API takes apiKey in its query: never log a key.
      const url = request.url.replace(/([?&]apikey=)[^&]*/gi, "$1***");
      this.log(`${new Date().toISOString()} ${request.method} ${url} ${reply.statusCode} ${ms.toFixed(1)}ms`);
    });
  }

  private faultBody(fault: Fault) {
    return envelope(null, null, {
      errorCode: fault.status === 429 ? "RATE_LIMITED" : "SANDBOX_FAULT",
      errors: [`fault ${fault.id} injected by the sandbox control API (status ${fault.status})`],
    });
  }

  private faultHeaders(reply: FastifyReply, fault: Fault): void {
    reply.code(fault.status ?? 500);
    reply.header("content-type", "application/json; charset=utf-8");
    if (fault.status === 429) reply.header("retry-after", String(fault.retryAfterSeconds ?? 1));
  }

  private sendFault(reply: FastifyReply, fault: Fault) {
    this.faultHeaders(reply, fault);
    if (fault.status === 403 || fault.status === 204) return reply.send();
    return reply.send(this.faultBody(fault));
  }

  private sendError(request: FastifyRequest, reply: FastifyReply, error: unknown) {
    let profile = null;
    try {
      profile = request.account ? this.service.profile(request.account) : null;
    } catch {
      // The failure being reported may be the profile itself: answer without it.
    }
    if (error instanceof ApiError) {
      return reply.code(error.statusCode).send(
        envelope(profile, error.payload, {
          errorCode: error.errorCode,
          errors: error.messages,
          errorDetails: error.errorDetails,
        }),
      );
    }
    const status = (error as { statusCode?: number }).statusCode;
    if (typeof status === "number" && status >= 400 && status < 500) {
      // fastify's own client errors (media type, body too large, ...) in the envelope.
      return reply.code(status).send(
        envelope(profile, null, {
          errorCode: (error as { code?: string }).code ?? "INVALID_REQUEST",
          errors: [(error as Error).message],
        }),
      );
    }
    this.log(
      `error on ${request.method} ${request.url.split("?")[0]}: ${(error as Error)?.stack ?? String(error)}`,
    );
    return reply
      .code(500)
      .send(envelope(profile, null, { errorCode: "INTERNAL_ERROR", errors: ["unexpected server failure"] }));
  }

  private registerV1(app: FastifyInstance): void {
    const impl = handlers(this);
    for (const [operationId, def] of Object.entries(endpoints) as [
      OperationId,
      (typeof endpoints)[OperationId],
    ][]) {
      const handle = impl[operationId];
      for (const url of routePaths(def)) {
        app.route({
          method: def.method,
          url,
          // Key and entitlement before the body is read: a request without a key is a 401 whatever
          // its body, and a tier without the feature a 403.
          onRequest: async (request, reply) => {
            const account = this.authenticate(request);
            if ("feature" in def && def.feature && account.tier === "basic") {
              // Entitlement failures have no body (spec).
              return reply.code(403).send();
            }
          },
          handler: async (request, reply) => {
            const account = request.account as Account;
            const call: Call = {
              account,
              params: "pathParams" in def && def.pathParams ? parseWith(def.pathParams, request.params) : {},
              query: "query" in def && def.query ? this.parseQuery(def.query, request.query) : {},
              body:
                "body" in def && def.body && !RAW_BODY.has(operationId)
                  ? parseWith(def.body, request.body ?? null)
                  : request.body,
            };
            const answer: Answer = await handle(call);
            if ("pdf" in answer) {
              return reply.code(200).header("content-type", "application/pdf").send(answer.pdf);
            }
            const profile = this.service.profile(account);
            const body = answer.bare
              ? (({ errorCode: _c, errorDetails: _d, ...rest }) => rest)(
                  envelope(profile, answer.payload, { warnings: answer.warnings, metadata: answer.metadata }),
                )
              : envelope(profile, answer.payload, {
                  errors: answer.errors,
                  warnings: answer.warnings,
                  metadata: answer.metadata,
                });
            if (this.options.validateResponses && def.response.kind === "json") {
              this.checkResponse(def.response.envelope, body, operationId);
            }
            return reply.code(200).send(body);
          },
        });
      }
    }
  }

  private parseQuery(schema: z.ZodObject, raw: unknown) {
    const result = S.readQuery(schema, (raw ?? {}) as Record<string, unknown>);
    if (!result.success) {
      throw new ApiError(
        400,
        "INVALID_REQUEST",
        S.formatIssues(result.error.issues),
        null,
        result.error.issues.map((i) => ({ field: S.formatPath(i.path), code: i.code, message: i.message })),
      );
    }
    return result.data as Record<string, unknown>;
  }

  private checkResponse(schema: z.ZodType, body: unknown, operationId: string): void {
    const result = schema.safeParse(body);
    if (!result.success) {
      throw new Error(
        `response of ${operationId} does not match the shared schema: ${S.formatIssues(result.error.issues).join("; ")}`,
      );
    }
  }

  private authenticate(request: FastifyRequest): Account {
    const header = request.headers["x-api-key"];
    const key = Array.isArray(header) ? header[0] : header;
    const account = key ? this.service.authenticate(key.trim()) : undefined;
    if (!account) {
      throw new ApiError(401, S.ERROR_CODES.unauthenticated, [
        key ? "the X-API-KEY header does not name a valid key" : "the X-API-KEY header is missing",
      ]);
    }
    request.account = account;
    return account;
  }

  /** Starts listening; resolves to the base URL. Port 0 picks a free port. */
  async listen(port = 0, host = "127.0.0.1"): Promise<string> {
    await this.app.listen({ port, host });
    const address = this.app.server.address() as AddressInfo;
    const shown = address.family === "IPv6" ? `[${address.address}]` : address.address;
    return `http://${shown}:${address.port}`;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.app.close();
    try {
      this.clock.persist();
    } catch {
      // A closed or read-only store has nothing left to persist.
    }
    this.store.close();
  }
}

export async function startSandbox(
  options: SandboxOptions & { port?: number; host?: string },
): Promise<{ sandbox: Sandbox; url: string }> {
  const sandbox = new Sandbox(options);
  const url = await sandbox.listen(options.port ?? 0, options.host ?? "127.0.0.1");
  return { sandbox, url };
}
