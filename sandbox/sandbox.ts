import { STATUS_CODES } from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import type { z } from "zod";
import { endpoints, type OperationId } from "../provider/api/endpoints";
import * as S from "../provider/api/schemas";
import { DEFAULT_TIMINGS, MAX_BODY_BYTES, MAX_JSON_DEPTH, type Timings } from "./assumptions";
import { Automations } from "./automations";
import { SandboxClock } from "./clock";
import { registerControl } from "./control";
import { Engagement } from "./engagement";
import { envelope } from "./envelope";
import { ApiError, HTTP_ERROR_CODES, httpLayerError, unsupportedMediaType } from "./errors";
import { type Fault, FaultTable } from "./faults";
import { type Account, SandboxService } from "./service";
import { Store } from "./store";
import { type Answer, allowedMethods, type Call, handlers, parseWith, RAW_BODY, routePaths } from "./v1";

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

/** Whether JSON text nests arrays and objects deeper than `limit`: one pass, strings skipped. */
function nestsDeeperThan(source: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < source.length; i++) {
    const c = source.charCodeAt(i);
    if (inString) {
      // A backslash escapes the next character; a quote ends the string.
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/** The 405 of a path the table has with other methods (with `Allow`), or the 404 of any other. */
function unknownRoute(method: string, url: string): ApiError {
  const path = (url.split("?")[0] ?? "").slice(0, 200);
  const allowed = allowedMethods(path);
  if (allowed.length === 0)
    return new ApiError(404, HTTP_ERROR_CODES[404], [`no operation at ${method} ${path}`]);
  return new ApiError(
    405,
    HTTP_ERROR_CODES[405],
    [`${method} is not an operation of ${path}; it answers ${allowed.join(", ")}`],
    null,
    [],
    { allow: allowed.join(", ") },
  );
}

/** Answers on a socket Node could not parse a request from: the envelope, then the connection ends. */
function sendRawError(socket: Duplex, error: ApiError): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const body = JSON.stringify(envelope(null, null, { errorCode: error.errorCode, errors: error.messages }));
  socket.end(
    `HTTP/1.1 ${error.statusCode} ${STATUS_CODES[error.statusCode] ?? "Bad Request"}\r\n` +
      "Content-Type: application/json; charset=utf-8\r\n" +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
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
    const app = Fastify({
      logger: false,
      bodyLimit: MAX_BODY_BYTES,
      forceCloseConnections: true,
      // A path fastify cannot decode: the envelope, not fastify's own body.
      frameworkErrors: (error, request, reply) => this.sendError(request, reply, error),
      // A request Node cannot parse (bad header, headers too large): the envelope on the raw socket.
      clientErrorHandler: (error, socket) => sendRawError(socket, httpLayerError(error)),
    });

    // JSON is the only body format (spec); fastify's own text/plain parser would let text through.
    app.removeAllContentTypeParsers();
    // An empty body of any type (a DELETE from many clients) is no body; any other body is a 415.
    app.addContentTypeParser("*", (request, _payload, done) => {
      if (request.headers["content-length"] === "0") return done(null, undefined);
      done(unsupportedMediaType(request.headers["content-type"]), undefined);
    });
    app.addContentTypeParser("application/json", { parseAs: "string" }, (_req, text, done) => {
      const source = String(text);
      if (source.trim() === "") return done(null, undefined);
      let value: unknown;
      try {
        value = JSON.parse(source);
      } catch (error) {
        return done(
          new ApiError(400, "INVALID_JSON", [`body: not valid JSON (${(error as Error).message})`]),
          undefined,
        );
      }
      if (nestsDeeperThan(source, MAX_JSON_DEPTH)) {
        return done(
          new ApiError(400, "INVALID_JSON", [
            `body: arrays and objects nested deeper than ${MAX_JSON_DEPTH} levels; no request of this service needs more than a few`,
          ]),
          undefined,
        );
      }
      done(null, value);
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
    // A path or method the table does not have is answered before fastify reads a body, so the
    // answer is 404 or 405 whatever the body (fastify would first refuse a QUERY without a type).
    app.addHook("onRequest", async (request) => {
      if (request.is404) throw unknownRoute(request.method, request.url);
    });
    app.setNotFoundHandler((request) => {
      throw unknownRoute(request.method, request.url);
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

  private sendError(request: FastifyRequest, reply: FastifyReply, error: unknown): FastifyReply {
    let profile = null;
    try {
      profile = request.account ? this.service.profile(request.account) : null;
    } catch {
      // The failure being reported may be the profile itself: answer without it.
    }
    if (error instanceof ApiError) {
      const body = envelope(profile, error.payload, {
        errorCode: error.errorCode,
        errors: error.messages,
        errorDetails: error.errorDetails,
      });
      let text: string;
      try {
        text = JSON.stringify(body);
      } catch (failure) {
        // Never fastify's own error body: a payload that cannot be written is a server failure.
        return this.sendError(request, reply, failure);
      }
      return reply
        .code(error.statusCode)
        .headers(error.headers)
        .type("application/json; charset=utf-8")
        .send(text);
    }
    const status = (error as { statusCode?: number }).statusCode;
    if (typeof status === "number" && status >= 400 && status < 500) {
      // fastify's own client errors (media type, body too large, bad URL) under documented codes.
      return this.sendError(request, reply, httpLayerError(error as Error, request.headers["content-type"]));
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
